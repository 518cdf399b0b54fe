import { z } from 'zod';
import type { OperationSpec } from '../contract/operation.js';
import { menuOperations } from '../contract/ops/menus.js';
import type { Desired } from './model.js';

// How many ids one call may carry, read from the contract's request schemas (the same `maxItems`
// the server enforces and its OpenAPI document publishes), so the planner never sends a list the
// server must refuse and no bound is written down twice.

export type MenuOp = keyof typeof menuOperations;

const cache = new Map<string, number>();

/** The most entries `field` of one `op` request body may hold. */
export function listBound(op: MenuOp, field: string): number {
  const key = `${op}.${field}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const body = (menuOperations[op] as OperationSpec).body;
  const schema = body
    ? (z.toJSONSchema(body, { io: 'input', unrepresentable: 'any' }) as {
        properties?: Record<string, { maxItems?: number }>;
      })
    : {};
  const max = schema.properties?.[field]?.maxItems;
  if (max === undefined || max < 1) throw new Error(`internal: ${key} has no list bound in the contract`);
  cache.set(key, max);
  return max;
}

/** `list` in order, cut into pieces of at most `size`. */
export function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/**
 * Offering a modifier group on items restates all its modifiers in the same call, and that list
 * has a bound of its own: a group offered on any item may not have more modifiers than that.
 * (A bigger group can still be pushed, offered on nothing: its modifiers are linked in pieces.)
 */
export function offerProblems(desired: Desired): { path: (string | number)[]; message: string }[] {
  const bound = listBound('linkModifierGroupToItem', 'modifier_ids');
  const firstOffer = new Map<string, string>();
  for (const it of desired.items)
    for (const g of it.groups) if (!firstOffer.has(g)) firstOffer.set(g, it.key);
  return desired.groups
    .filter((g) => g.modifiers.length > bound && firstOffer.has(g.key))
    .map((g) => ({
      path: [...g.path, 'modifiers'],
      message: `${g.modifiers.length} modifiers in a group offered on items (first: ${firstOffer.get(g.key)}); offering a group restates all its modifiers in one call, which takes at most ${bound}`,
    }));
}
