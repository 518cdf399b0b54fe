import type { ApiResponse, CallInput } from '../client/client.js';
import type { OperationSpec } from '../contract/operation.js';
import { menuOperations } from '../contract/ops/menus.js';
import type { Plan } from './plan.js';

// What a push checks before its first write, so that it never stops half-way for a reason known
// in advance (docs/menu-push.md): every branch it will sync and publish exists and carries the
// brand, and the credential holds the scope of every kind of call the plan makes. Without these a
// push wrote its creates, then stopped at the first update (403) or at the sync (404), leaving the
// brand changed and unpublished.

interface PreflightClient {
  callRaw(id: string, input?: CallInput): Promise<ApiResponse>;
}

export type PushProblem =
  /** The credential lacks `scope`, which the plan's `ops` need. */
  | { kind: 'scope'; scope: string; ops: string[]; request_id: string }
  /** No such branch in the business (or not visible to it). */
  | { kind: 'branch_missing'; branch_id: number; request_id: string }
  /** The branch exists but does not carry the brand: sync and publish would refuse it. */
  | { kind: 'branch_not_carrying'; branch_id: number; brand_id: number };

interface ErrLike {
  name?: string;
  status?: number;
  code?: string;
  request_id?: string;
}

const apiError = (err: unknown, status?: number): boolean => {
  const e = err as ErrLike;
  return e?.name === 'ApiError' && (status === undefined || e.status === status);
};

/**
 * The branches of `--branch`: each read with `getBranch` (one read each). A credential that may
 * not read branches (no `brands:read`/`branches:read`) cannot check them here; the server still
 * checks them at the sync, which comes after the authoring calls.
 */
export async function branchProblems(
  client: PreflightClient,
  brandId: number,
  branchIds: readonly number[] | undefined,
): Promise<PushProblem[]> {
  const problems: PushProblem[] = [];
  for (const id of branchIds ?? []) {
    try {
      const b = (await client.callRaw('getBranch', { params: { id } })).data as { brand_ids?: number[] };
      if (!b.brand_ids?.includes(brandId))
        problems.push({ kind: 'branch_not_carrying', branch_id: id, brand_id: brandId });
    } catch (err) {
      if (apiError(err, 404))
        problems.push({
          kind: 'branch_missing',
          branch_id: id,
          request_id: (err as ErrLike).request_id ?? '',
        });
      else if (apiError(err, 403)) return problems;
      else throw err;
    }
  }
  return problems;
}

/**
 * The scopes the plan's calls need, each probed once with a call the server must refuse after its
 * scope check (an empty body, ids of 0): `403 auth_forbidden` means the scope is missing, any
 * other refusal that it is held. Nothing is written (a refused request stores nothing). A 401,
 * or no answer, is thrown: the push could not start anyway.
 */
export async function scopeProblems(client: PreflightClient, plan: Plan): Promise<PushProblem[]> {
  const byScope = new Map<string, string[]>();
  for (const step of plan.steps) {
    const spec = (menuOperations as Record<string, OperationSpec>)[step.op];
    if (!spec || spec.scopes.length === 0) continue;
    // Any one of the listed scopes grants the call; the first names the group.
    const key = spec.scopes.join(' or ');
    const ops = byScope.get(key) ?? [];
    if (!ops.includes(step.op)) ops.push(step.op);
    byScope.set(key, ops);
  }
  const problems: PushProblem[] = [];
  for (const [scope, ops] of byScope) {
    const op = ops[0]!;
    const spec = (menuOperations as Record<string, OperationSpec>)[op]!;
    const params = Object.fromEntries([...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, 0]));
    try {
      await client.callRaw(op, {
        ...(Object.keys(params).length ? { params } : {}),
        ...(spec.method === 'GET' || spec.method === 'DELETE' ? {} : { body: {} }),
      });
    } catch (err) {
      const e = err as ErrLike;
      if (apiError(err, 403) && e.code === 'auth_forbidden')
        problems.push({ kind: 'scope', scope, ops, request_id: e.request_id ?? '' });
      else if (!apiError(err) || e.status === 401) throw err;
      // Any other refusal came after the scope check: held.
    }
  }
  return problems;
}
