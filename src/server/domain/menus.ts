import type { AvailableTimes } from '../../contract/schemas/common.js';
import type { SYNC_FIELDS } from '../../contract/schemas/menus.js';
import type { FieldIssue } from '../errors.js';
// Menu layers as pure functions over plain data (docs/menus.md):
//
//   business definition ──sync──▶ store layer (per brand × branch) ──publish──▶ snapshot
//
// Sync replays the business definition into a store layer, keeping the store's own values of
// the preserved fields unless the caller lists them in `fieldIncludeOnSync`. Publish turns a
// store layer into the snapshot tree of the pinned shape. Operational state (availability,
// snooze, stock) is not part of either: it is laid over the snapshot at read time.

export type SyncField = (typeof SYNC_FIELDS)[number];

/** A section's AvailableTimes: days "0".."6", each with slots of startTime/endTime. */
export type Times = AvailableTimes;
export type BoolMap = Record<string, boolean>;
export type PriceMap = Record<string, string>;

export interface SectionDef {
  id: number;
  title: string;
  description: string;
  availableTimes: Times | null;
  isEnabled: boolean;
  visibilities: BoolMap;
  blackoutDates: string[];
  /** Linked categories, in link order. */
  category_ids: number[];
}
export interface CategoryDef {
  id: number;
  title: string;
  description: string;
  isEnabled: boolean;
  /** Linked items, in link order. */
  item_ids: number[];
}
export interface ItemDef {
  id: number;
  title: string;
  partner_item_id: string;
  description: string;
  prices: PriceMap;
  groupPrices: PriceMap;
  visibilities: BoolMap;
  enabled: boolean;
  onlyModifier: boolean;
  /** Modifier groups offered on this item, in link order. */
  modifier_group_ids: number[];
}
export interface ModifierGroupDef {
  id: number;
  title: string;
  min: number;
  max: number;
  /** Member modifiers (items with onlyModifier:true), in link order. */
  modifier_ids: number[];
}
/** One brand's menu: the business definition, or a store layer (same shape, store values). */
export interface MenuDef {
  brand_id: number;
  sections: SectionDef[];
  categories: CategoryDef[];
  items: ItemDef[];
  modifierGroups: ModifierGroupDef[];
}

// ─── Sync ───────────────────────────────────────────────────────────────────────────────────

/**
 * Which stored field each preserved sync field maps to, per entity kind. Sections carry all
 * four; categories only `isEnabled`; items (and modifiers) `visibilities` and `isEnabled`
 * (stored as `enabled`). Modifier groups have none of them.
 */
const PRESERVED = {
  section: {
    availableTimes: 'availableTimes',
    isEnabled: 'isEnabled',
    visibilities: 'visibilities',
    blackoutDates: 'blackoutDates',
  },
  category: { isEnabled: 'isEnabled' },
  item: { isEnabled: 'enabled', visibilities: 'visibilities' },
} as const satisfies Record<string, Partial<Record<SyncField, string>>>;

function keep<T extends object>(
  fromBusiness: T,
  fromStore: T | undefined,
  fields: Partial<Record<SyncField, string>>,
  include: ReadonlySet<SyncField>,
): T {
  const out = structuredClone(fromBusiness) as Record<string, unknown>;
  if (!fromStore) return out as T;
  for (const [syncField, stored] of Object.entries(fields) as [SyncField, string][]) {
    if (!include.has(syncField))
      out[stored] = structuredClone((fromStore as Record<string, unknown>)[stored]);
  }
  return out as T;
}

/**
 * Replays the business definition into one store layer. Entities are matched by id: new ones
 * arrive with business values, removed ones disappear, and for those already in the store the
 * preserved fields keep the store's values unless named in `include`. Everything else (titles,
 * prices, links, …) is overwritten by the business definition. The result is a fresh object.
 */
export function syncStore(
  business: MenuDef,
  store: MenuDef | null,
  include: readonly SyncField[] = [],
): MenuDef {
  const inc = new Set(include);
  const byId = <T extends { id: number }>(xs: T[] | undefined) => new Map((xs ?? []).map((x) => [x.id, x]));
  const sections = byId(store?.sections);
  const categories = byId(store?.categories);
  const items = byId(store?.items);
  return {
    brand_id: business.brand_id,
    sections: business.sections.map((s) => keep(s, sections.get(s.id), PRESERVED.section, inc)),
    categories: business.categories.map((c) => keep(c, categories.get(c.id), PRESERVED.category, inc)),
    items: business.items.map((i) => keep(i, items.get(i.id), PRESERVED.item, inc)),
    modifierGroups: structuredClone(business.modifierGroups),
  };
}

// ─── Snapshot ───────────────────────────────────────────────────────────────────────────────

interface SnapshotModifier {
  id: number;
  title: string;
  partner_item_id: string;
  prices: PriceMap;
  isAvailable: boolean;
}
interface SnapshotGroup {
  id: number;
  title: string;
  min: number;
  max: number;
  modifiers: SnapshotModifier[];
}
interface SnapshotItem {
  id: number;
  title: string;
  partner_item_id: string;
  prices: PriceMap;
  groupPrices: PriceMap;
  visibilities: BoolMap;
  enabled: boolean;
  isAvailable: boolean;
  stock: number | null;
  snoozed_until: string | null;
  modifierGroups: SnapshotGroup[];
}
interface SnapshotCategory {
  id: number;
  title: string;
  items: SnapshotItem[];
}
interface SnapshotSection {
  id: number;
  title: string;
  availableTimes: Times | null;
  isEnabled: boolean;
  visibilities: BoolMap;
  blackoutDates: string[];
  categories: SnapshotCategory[];
}
/** The snapshot tree, a fixed part of the contract (docs/menus.md). */
interface MenuSnapshot {
  brand_id: number;
  branch_id: number;
  version: number;
  published_at: string;
  sections: SnapshotSection[];
}

interface SnapshotMeta {
  brand_id: number;
  branch_id: number;
  version: number;
  published_at: string;
}

/** Operational state of one item at one branch. */
export interface ItemState {
  /** The explicit flag set by availability calls (true unless marked unavailable). */
  available: boolean;
  /** Stock count; null = not tracked. 0 makes the item unavailable. */
  stock: number | null;
  /** Snooze end, ms since the epoch; the snooze is active while now < this. */
  snoozedUntil: number | null;
}
export const DEFAULT_STATE: Readonly<ItemState> = Object.freeze({
  available: true,
  stock: null,
  snoozedUntil: null,
});

export const snoozeActive = (s: ItemState, now: number): boolean =>
  s.snoozedUntil !== null && s.snoozedUntil > now;

/** What GET /menus shows for an item: the flag, a zero stock and an active snooze all take it out. */
export function effectiveState(
  s: ItemState,
  now: number,
): { isAvailable: boolean; stock: number | null; snoozed_until: string | null } {
  const snoozed = snoozeActive(s, now);
  return {
    isAvailable: s.available && s.stock !== 0 && !snoozed,
    stock: s.stock,
    snoozed_until: snoozed ? new Date(s.snoozedUntil!).toISOString() : null,
  };
}

/**
 * Builds the snapshot tree of one store layer with default operational state. Disabled
 * sections and items stay in the tree (their shape carries `isEnabled` / `enabled`); disabled
 * categories and disabled modifiers are left out (their shape has no such flag). Items flagged
 * `onlyModifier` appear only inside modifier groups. Dangling ids are skipped.
 */
export function buildSnapshot(store: MenuDef, meta: SnapshotMeta): MenuSnapshot {
  const categories = new Map(store.categories.map((c) => [c.id, c]));
  const items = new Map(store.items.map((i) => [i.id, i]));
  const groups = new Map(store.modifierGroups.map((g) => [g.id, g]));
  const group = (g: ModifierGroupDef): SnapshotGroup => ({
    id: g.id,
    title: g.title,
    min: g.min,
    max: g.max,
    modifiers: g.modifier_ids
      .map((id) => items.get(id))
      .filter((m): m is ItemDef => m?.enabled === true)
      .map((m) => ({
        id: m.id,
        title: m.title,
        partner_item_id: m.partner_item_id,
        prices: { ...m.prices },
        isAvailable: true,
      })),
  });
  const item = (i: ItemDef): SnapshotItem => ({
    id: i.id,
    title: i.title,
    partner_item_id: i.partner_item_id,
    prices: { ...i.prices },
    groupPrices: { ...i.groupPrices },
    visibilities: { ...i.visibilities },
    enabled: i.enabled,
    isAvailable: true,
    stock: null,
    snoozed_until: null,
    modifierGroups: i.modifier_group_ids
      .map((id) => groups.get(id))
      .filter((g): g is ModifierGroupDef => g !== undefined)
      .map(group),
  });
  return {
    brand_id: meta.brand_id,
    branch_id: meta.branch_id,
    version: meta.version,
    published_at: meta.published_at,
    sections: store.sections.map((s) => ({
      id: s.id,
      title: s.title,
      availableTimes: s.availableTimes === null ? null : structuredClone(s.availableTimes),
      isEnabled: s.isEnabled,
      visibilities: { ...s.visibilities },
      blackoutDates: [...s.blackoutDates],
      categories: s.category_ids
        .map((id) => categories.get(id))
        .filter((c): c is CategoryDef => c?.isEnabled === true)
        .map((c) => ({
          id: c.id,
          title: c.title,
          items: c.item_ids
            .map((id) => items.get(id))
            .filter((i): i is ItemDef => i !== undefined && !i.onlyModifier)
            .map(item),
        })),
    })),
  };
}

/** The snapshot as GET /menus shows it at `now`: operational state laid over the published tree. */
export function applyState(
  snapshot: MenuSnapshot,
  states: ReadonlyMap<number, ItemState>,
  now: number,
): MenuSnapshot {
  const out = structuredClone(snapshot);
  for (const s of out.sections) {
    for (const c of s.categories) {
      for (const i of c.items) {
        Object.assign(i, effectiveState(states.get(i.id) ?? DEFAULT_STATE, now));
        for (const g of i.modifierGroups) {
          for (const m of g.modifiers)
            m.isAvailable = effectiveState(states.get(m.id) ?? DEFAULT_STATE, now).isAvailable;
        }
      }
    }
  }
  return out;
}

/** Provider ids a published store ships to: those pricing anything in it, minus hidden ones. */
export function shippedProviders(snapshot: MenuSnapshot, hidden: ReadonlySet<string> = new Set()): number[] {
  const ids = new Set<string>();
  for (const s of snapshot.sections) {
    for (const c of s.categories) {
      for (const i of c.items) {
        for (const k of Object.keys(i.prices)) ids.add(k);
        for (const g of i.modifierGroups)
          for (const m of g.modifiers) for (const k of Object.keys(m.prices)) ids.add(k);
      }
    }
  }
  return [...ids]
    .filter((k) => !hidden.has(k))
    .map(Number)
    .sort((a, b) => a - b);
}

export function countItems(snapshot: MenuSnapshot): number {
  const ids = new Set<number>();
  for (const s of snapshot.sections) for (const c of s.categories) for (const i of c.items) ids.add(i.id);
  return ids.size;
}

// ─── Snapshot template: serialise once at publish, lay live state in at read time ───────────

// Placeholders stand where the live fields go. A title can never produce them: quotes inside
// JSON string values are escaped, and map keys are validated digits.
const ITEM_MARK = (id: number) => `@@I:${id}@@`;
const MOD_MARK = (id: number) => `@@M:${id}@@`;
const SLOT_RE = /"isAvailable":"@@([IM]):(\d+)@@"/g;

/** The snapshot serialised with a placeholder where each item's or modifier's live state goes. */
export function snapshotTemplate(snapshot: MenuSnapshot): string {
  return JSON.stringify(snapshot, function (this: unknown, key, value) {
    if (key === 'isAvailable' && this && typeof this === 'object') {
      const node = this as { id: number; modifierGroups?: unknown };
      return node.modifierGroups === undefined ? MOD_MARK(node.id) : ITEM_MARK(node.id);
    }
    // stock and snoozed_until of items are emitted together with isAvailable
    if (
      (key === 'stock' || key === 'snoozed_until') &&
      this &&
      typeof this === 'object' &&
      'modifierGroups' in this
    )
      return undefined;
    return value;
  });
}

export interface CompiledTemplate {
  /** Text between slots; parts.length === slots.length + 1. */
  parts: string[];
  /** Item id per slot; `mod` marks a modifier (only `isAvailable`). */
  slots: { id: number; mod: boolean }[];
}

export function compileTemplate(json: string): CompiledTemplate {
  const parts: string[] = [];
  const slots: CompiledTemplate['slots'] = [];
  let last = 0;
  for (const m of json.matchAll(SLOT_RE)) {
    parts.push(json.slice(last, m.index));
    slots.push({ id: Number(m[2]), mod: m[1] === 'M' });
    last = m.index! + m[0].length;
  }
  parts.push(json.slice(last));
  return { parts, slots };
}

const DEFAULT_ITEM_FRAGMENT = '"isAvailable":true,"stock":null,"snoozed_until":null';
const DEFAULT_MOD_FRAGMENT = '"isAvailable":true';

/**
 * Renders a compiled template with the live state at `now`; equal to
 * `JSON.stringify(applyState(snapshot, states, now))`. Items without a state row (the usual
 * case) cost one string append.
 */
export function renderTemplate(
  t: CompiledTemplate,
  states: ReadonlyMap<number, ItemState>,
  now: number,
): string {
  if (states.size === 0) {
    let out = t.parts[0]!;
    for (let i = 0; i < t.slots.length; i++)
      out += (t.slots[i]!.mod ? DEFAULT_MOD_FRAGMENT : DEFAULT_ITEM_FRAGMENT) + t.parts[i + 1]!;
    return out;
  }
  let out = t.parts[0]!;
  for (let i = 0; i < t.slots.length; i++) {
    const slot = t.slots[i]!;
    const st = states.get(slot.id);
    let frag: string;
    if (!st) frag = slot.mod ? DEFAULT_MOD_FRAGMENT : DEFAULT_ITEM_FRAGMENT;
    else {
      const e = effectiveState(st, now);
      frag = slot.mod
        ? `"isAvailable":${e.isAvailable}`
        : `"isAvailable":${e.isAvailable},"stock":${e.stock === null ? 'null' : e.stock},"snoozed_until":${e.snoozed_until === null ? 'null' : `"${e.snoozed_until}"`}`;
    }
    out += frag + t.parts[i + 1]!;
  }
  return out;
}

/** The first moment after `now` when some snooze ends (the rendered menu changes then), or Infinity. */
export function nextChange(states: Iterable<ItemState>, now: number): number {
  let next = Number.POSITIVE_INFINITY;
  for (const s of states)
    if (s.snoozedUntil !== null && s.snoozedUntil > now && s.snoozedUntil < next) next = s.snoozedUntil;
  return next;
}

// ─── Enable toggles on a layer ──────────────────────────────────────────────────────────────

export type EnableKind = 'sections' | 'categories' | 'items';

/**
 * Sets the enabled flag of the given entities in a layer (store layer or published source);
 * returns the new layer and, per id present, the flag before. Ids not in the layer are skipped.
 */
export function setEnabled(
  menu: MenuDef,
  kind: EnableKind,
  ids: readonly number[],
  enabled: boolean,
): { menu: MenuDef; before: Map<number, boolean> } {
  const want = new Set(ids);
  const before = new Map<number, boolean>();
  const out = structuredClone(menu);
  if (kind === 'sections') {
    for (const s of out.sections) {
      if (!want.has(s.id)) continue;
      before.set(s.id, s.isEnabled);
      s.isEnabled = enabled;
    }
  } else if (kind === 'categories') {
    for (const c of out.categories) {
      if (!want.has(c.id)) continue;
      before.set(c.id, c.isEnabled);
      c.isEnabled = enabled;
    }
  } else {
    for (const i of out.items) {
      if (!want.has(i.id)) continue;
      before.set(i.id, i.enabled);
      i.enabled = enabled;
    }
  }
  return { menu: out, before };
}

// ─── Validation rules a schema cannot express ───────────────────────────────────────────────

export function checkMinMax(min: number, max: number, at: (string | number)[] = ['body']): FieldIssue[] {
  return min > max ? [{ path: [...at, 'min'], message: `min (${min}) must not exceed max (${max})` }] : [];
}

interface GroupFacts {
  id: number;
  min: number;
  max: number;
  modifier_ids: readonly number[];
}
interface LinkRestatement {
  min: number;
  max: number;
  modifier_ids: readonly number[];
}

/**
 * linkModifierGroupToItem: min, max and the modifier ids must be restated and match the group
 * (modifier ids as a set; no duplicates); min ≤ max; every restated modifier must be an
 * `onlyModifier` item (docs/menus.md).
 */
export function checkGroupLink(
  group: GroupFacts,
  restated: LinkRestatement,
  onlyModifier: ReadonlyMap<number, boolean>,
): FieldIssue[] {
  const out: FieldIssue[] = [...checkMinMax(restated.min, restated.max)];
  if (restated.min !== group.min)
    out.push({
      path: ['body', 'min'],
      message: `group ${group.id} has min ${group.min}, not ${restated.min}`,
    });
  if (restated.max !== group.max)
    out.push({
      path: ['body', 'max'],
      message: `group ${group.id} has max ${group.max}, not ${restated.max}`,
    });
  restated.modifier_ids.forEach((id, i) => {
    const flag = onlyModifier.get(id);
    if (flag === false)
      out.push({
        path: ['body', 'modifier_ids', i],
        message: `item ${id} is not a modifier (onlyModifier is false)`,
      });
  });
  const given = new Set(restated.modifier_ids);
  const actual = new Set(group.modifier_ids);
  const missing = [...actual].filter((id) => !given.has(id));
  const extra = [...given].filter((id) => !actual.has(id));
  if (missing.length || extra.length || given.size !== restated.modifier_ids.length) {
    const bits = [
      missing.length ? `missing ${missing.join(', ')}` : '',
      extra.length ? `not in the group: ${extra.join(', ')}` : '',
      given.size !== restated.modifier_ids.length ? 'duplicates' : '',
    ].filter(Boolean);
    out.push({
      path: ['body', 'modifier_ids'],
      message: `must restate the modifiers of group ${group.id} [${group.modifier_ids.join(', ')}] (${bits.join('; ')})`,
    });
  }
  return out;
}

// ─── Date ranges of the OOS history ─────────────────────────────────────────────────────────

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_RANGE_MS = 90 * DAY_MS;
const DEFAULT_RANGE_MS = DAY_MS;

type Range =
  | { ok: true; from: number; to: number }
  | { ok: false; code: 'request_invalid' | 'request_invalid_range'; message: string };

/** Both ends inclusive. Neither: the last 24 h; only `from`: up to now; only `to`: the 24 h before it. */
export function resolveRange(from: number | undefined, to: number | undefined, now: number): Range {
  const t = to ?? Math.max(now, from ?? now);
  const f = from ?? t - DEFAULT_RANGE_MS;
  if (f > t) return { ok: false, code: 'request_invalid', message: '`from` is after `to`' };
  if (t - f > MAX_RANGE_MS)
    return {
      ok: false,
      code: 'request_invalid_range',
      message: 'the range from `from` to `to` is longer than 90 days',
    };
  return { ok: true, from: f, to: t };
}
