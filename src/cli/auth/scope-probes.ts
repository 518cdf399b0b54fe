import type { ApiResponse, CallInput } from '../../client/client.js';

// Which scopes a credential holds, found out without side effects (docs/cli.md, `partner auth
// status`). The API has no endpoint that names a credential's scopes, so each scope is probed with
// one request it guards: a read, or a write with an empty body (or an id of 0) that no server may
// apply. The server checks the scope before anything else about the request, so `403
// auth_forbidden` means missing and a `400` (or `404`) means held. Validation failures are not
// stored against the Idempotency-Key, and nothing is written.

interface ScopeProbe {
  scope: string;
  operation: string;
  input?: CallInput;
  /** Another scope that grants the same operation: when it is held this probe cannot tell. */
  alsoGrantedBy?: string;
}

export const SCOPE_PROBES: readonly ScopeProbe[] = [
  { scope: 'brands:read', operation: 'listBrands' },
  { scope: 'brands:create', operation: 'createBrand', input: { body: {} } },
  { scope: 'brands:update', operation: 'createPriceGroup', input: { body: {} } },
  {
    scope: 'branches:read',
    operation: 'listBranches',
    input: { query: { size: 1 } },
    alsoGrantedBy: 'brands:read',
  },
  { scope: 'branches:create', operation: 'createBranch', input: { body: {} } },
  { scope: 'branches:update', operation: 'updateBranch', input: { params: { id: 0 }, body: {} } },
  // brand_id without branch_id is refused (400) after the scope check.
  { scope: 'menus:read', operation: 'getMenu', input: { query: { brand_id: 1 } } },
  { scope: 'menus:create', operation: 'createSection', input: { body: {} } },
  { scope: 'menus:update', operation: 'syncMenuToStores', input: { body: {} } },
  { scope: 'menus:delete', operation: 'deleteSection', input: { params: { id: 0 } } },
  { scope: 'menus:oos', operation: 'setItemsAvailability', input: { body: {} } },
  {
    scope: 'stock:update',
    operation: 'updateItemStocks',
    input: { body: {} },
    alsoGrantedBy: 'menus:oos',
  },
  { scope: 'orders:read', operation: 'listOrders', input: { query: { size: 1 } } },
  { scope: 'orders:update', operation: 'patchOrderStatus', input: { body: {} } },
  { scope: 'visibility:write', operation: 'setBrandVisibility', input: { params: { id: 0 }, body: {} } },
  { scope: 'webhooks:read', operation: 'listWebhooks' },
];

export interface ScopeCheck {
  scope: string;
  /** The operation called to find out. */
  operation: string;
  /** true: held; false: 403 auth_forbidden; null: could not tell. */
  held: boolean | null;
  /** The error code of the probe's answer, when it failed. */
  code?: string;
  note?: string;
}

interface ProbeResult {
  checks: ScopeCheck[];
  /** The data of successful reads, by operation (listBrands carries the business). */
  data: Record<string, unknown>;
}

interface ErrLike {
  name?: string;
  status?: number;
  code?: string;
  details?: unknown;
}

/** A failure that is about the credential itself (not a scope), or no answer: ends the check. */
export function isCredentialFailure(err: unknown): boolean {
  const e = (err ?? {}) as ErrLike;
  return e.name === 'ApiError' && (e.status === 401 || e.code === 'auth_revoked');
}

function judge(p: ScopeProbe, err: unknown): ScopeCheck {
  const base = { scope: p.scope, operation: p.operation };
  if (err === undefined) return { ...base, held: true };
  const e = err as ErrLike;
  if (e.name === 'ApiError' && e.status === 403 && e.code === 'auth_forbidden')
    return { ...base, held: false, code: 'auth_forbidden' };
  // Past authentication and the scope check, refused for what the request said.
  if (e.name === 'ApiError' && [400, 404, 409, 422].includes(e.status ?? 0))
    return { ...base, held: true, code: e.code ?? `http_${e.status}` };
  return { ...base, held: null, code: e.code ?? e.name ?? 'error' };
}

/**
 * Runs every probe (at most `concurrency` at a time). A 401 or revoked credential is thrown; any
 * other failure leaves that scope unknown. A scope whose operation another held scope also grants
 * is unknown too (`alsoGrantedBy`): the probe cannot separate them.
 */
export async function probeScopes(
  client: { callRaw(id: string, input?: CallInput): Promise<ApiResponse> },
  probes: readonly ScopeProbe[] = SCOPE_PROBES,
  concurrency = 4,
): Promise<ProbeResult> {
  const results = new Map<string, { err?: unknown; data?: unknown }>();
  const queue = [...probes];
  const worker = async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      try {
        const res = await client.callRaw(p.operation, p.input ?? {});
        results.set(p.scope, { data: res.data });
      } catch (err) {
        if (isCredentialFailure(err)) throw err;
        results.set(p.scope, { err });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, probes.length) }, worker));
  const checks = probes.map((p) => judge(p, results.get(p.scope)?.err));
  const held = new Set(checks.filter((c) => c.held).map((c) => c.scope));
  for (const [i, p] of probes.entries()) {
    if (p.alsoGrantedBy && held.has(p.alsoGrantedBy) && checks[i]!.held === true)
      checks[i] = { ...checks[i]!, held: null, note: `${p.alsoGrantedBy} grants the same calls` };
  }
  const data: Record<string, unknown> = {};
  for (const p of probes) {
    const r = results.get(p.scope);
    if (r && r.err === undefined) data[p.operation] = r.data;
  }
  return { checks, data };
}

/** What each guided flow needs, and what it can do without. */
interface FlowNeeds {
  name: string;
  command: string;
  needs: string[];
  /** Scopes that unlock part of the flow. */
  optional: { scope: string; for: string }[];
}

const FLOW_NEEDS: readonly FlowNeeds[] = [
  { name: 'bootstrap', command: 'partner bootstrap', needs: ['brands:read'], optional: [] },
  {
    name: 'orders watch',
    command: 'partner orders watch',
    needs: ['orders:read'],
    optional: [{ scope: 'orders:update', for: 'changing statuses and comments' }],
  },
  {
    name: 'menu push',
    command: 'partner menu push',
    needs: ['menus:read', 'menus:create', 'menus:update'],
    optional: [{ scope: 'brands:read', for: 'checking provider and price-group ids before writing' }],
  },
];

export interface FlowReadiness {
  name: string;
  command: string;
  /** true: every needed scope is held; false: one is missing; null: one could not be checked. */
  ready: boolean | null;
  missing: string[];
  unknown: string[];
  /** Optional scopes missing, with what they would unlock. */
  limited: { scope: string; for: string }[];
}

export function flowReadiness(checks: readonly ScopeCheck[]): FlowReadiness[] {
  const state = new Map(checks.map((c) => [c.scope, c.held]));
  return FLOW_NEEDS.map((f) => {
    const missing = f.needs.filter((s) => state.get(s) === false);
    const unknown = f.needs.filter((s) => state.get(s) === null || state.get(s) === undefined);
    return {
      name: f.name,
      command: f.command,
      ready: missing.length ? false : unknown.length ? null : true,
      missing,
      unknown,
      limited: f.optional.filter((o) => state.get(o.scope) === false),
    };
  });
}
