import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_EXAMPLES } from '../../src/contract/openapi.js';
import { fillPath, type OperationSpec } from '../../src/contract/operation.js';
import { OPERATION_LIST } from '../../src/contract/operations.js';
import { SCOPES } from '../../src/contract/scopes.js';
import { call, type CallResult, startTestServer, type TestServer } from '../helpers/server.js';
import { FULL, mode, scale } from './config.js';

// Suite 2, the auth and tenancy matrix: every partner operation × {no auth, malformed, wrong
// secret, revoked, missing scope, another business's ids, another business's business_id and
// filterByBusiness} → exactly the pinned code; no answer carries anything of the other
// business, and the other business's data is the same afterwards.

// biome-ignore lint/suspicious/noExplicitAny: payloads of every shape
type Any = any;
type Cred = { key: string; secret: string };
type Input = { params?: Record<string, string | number>; query?: Record<string, unknown>; body?: Any };

const OPS = OPERATION_LIST.filter((o) => o.auth === 'partner');

let s: TestServer;
let revoked: Cred;
const scopeCreds = new Map<string, Cred>();
/** Business 2's ids by resource, and text only business 2 has (titles, its key). */
const theirs: Record<string, number | string> = {};
const markers: string[] = [];

async function ok(p: Promise<CallResult>): Promise<Any> {
  const r = await p;
  if (r.status >= 300) throw new Error(`setup: ${r.status} ${r.text.slice(0, 200)}`);
  return r.body.data;
}

/** What business 2 looks like through its own credential: compared before and after the matrix. */
async function snapshotOfOther(): Promise<string> {
  const parts: unknown[] = [];
  for (const path of [
    '/v1/partner/brands',
    '/v1/partner/branches?size=100',
    '/v1/partner/price/groups',
    '/v1/partner/orders?size=100&from=2020-01-01T00:00:00Z&to=2020-03-30T00:00:00Z',
    '/v1/partner/orders?size=100',
    '/v1/partner/menus',
    `/v1/partner/menus?brand_id=${theirs.brand}&branch_id=${theirs.branch}`,
    '/v1/partner/webhooks',
    '/v1/partner/oos-activity/items?size=100',
  ]) {
    const r = await call(s, 'GET', path, { cred: s.other });
    parts.push([path, r.status, r.body.data ?? r.body.error?.code]);
  }
  return JSON.stringify(parts);
}

beforeAll(async () => {
  s = await startTestServer({
    rateLimit: 1_000_000,
    authThrottle: { failuresPerKeyPerMinute: 1_000_000, failuresPerAddressPerMinute: 1_000_000 },
  });
  const me = s.credential.businessId;
  revoked = await s.issueCredential({ businessId: me, scopes: [...SCOPES] });
  await s.operator('POST', `/v1/operator/credentials/${revoked.key}/revoke`);
  // One credential per scope: each lacks every other scope.
  for (const scope of FULL ? SCOPES : (['webhooks:read', 'brands:read'] as const))
    scopeCreds.set(scope, await s.issueCredential({ businessId: me, scopes: [scope] }));

  const o = s.other;
  const brands = (await ok(call(s, 'GET', '/v1/partner/brands', { cred: o })))[0];
  theirs.brand = brands.brands[0].id;
  markers.push(brands.business.title, ...brands.brands.map((b: Any) => b.title), o.key);
  const branches = await ok(call(s, 'GET', '/v1/partner/branches?size=100', { cred: o }));
  theirs.branch = branches.results[0].id;
  markers.push(...branches.results.map((b: Any) => b.title));
  theirs.order = (await ok(call(s, 'GET', '/v1/partner/orders?size=1', { cred: o }))).results[0].id;
  theirs.priceGroup = (await ok(call(s, 'GET', '/v1/partner/price/groups', { cred: o })))[0].id;
  const tree = (await ok(call(s, 'GET', '/v1/partner/menus', { cred: o }))).brands[0];
  const section = tree.sections[0];
  const category = section.categories[0];
  const item = category.items.find((i: Any) => i.modifierGroups.length > 0) ?? category.items[0];
  theirs.section = section.id;
  theirs.category = category.id;
  theirs.item = item.id;
  theirs.sku = item.partner_item_id;
  theirs.modifierGroup = item.modifierGroups[0]?.id ?? 999_999;
  theirs.modifier = item.modifierGroups[0]?.modifiers[0]?.id ?? 999_999;
  markers.push(section.title, category.title, item.title);
  // Only text business 1 does not also have.
  const mine = JSON.stringify((await call(s, 'GET', '/v1/partner/menus')).body.data);
  for (let i = markers.length - 1; i >= 0; i--) if (mine.includes(markers[i]!)) markers.splice(i, 1);
});
afterAll(() => s.close());

const PATH_RESOURCE: [RegExp, string][] = [
  [/\/brands\/\{id\}/, 'brand'],
  [/\/branches\/\{id\}/, 'branch'],
  [/\/price\/groups\/\{id\}/, 'priceGroup'],
  [/\/orders\/\{id\}/, 'order'],
  [/\/menus\/sections\/\{id\}/, 'section'],
  [/\/menus\/categories\/\{id\}/, 'category'],
  [/\/menus\/items\/\{id\}/, 'item'],
  [/\/menus\/modifier-groups\/\{id\}/, 'modifierGroup'],
];

const BODY_RESOURCE: Record<string, string> = {
  brand_id: 'brand',
  branch_id: 'branch',
  section_id: 'section',
  item_id: 'item',
  group_id: 'modifierGroup',
};
const LIST_RESOURCE: Record<string, string> = {
  brand_ids: 'brand',
  branch_ids: 'branch',
  category_ids: 'category',
  item_ids: 'item',
  modifier_ids: 'modifier',
};

/** The example input with every resource it names replaced by one of `ids` (business 2's, or none). */
function pointAt(op: OperationSpec, ids: Record<string, number | string>): Input | undefined {
  const ex = OPERATION_EXAMPLES[op.id];
  if (!ex) return undefined;
  let changed = false;
  const params = { ...(ex.params ?? {}) };
  const query = { ...(ex.query ?? {}) } as Record<string, unknown>;
  const body =
    ex.body && typeof ex.body === 'object' ? structuredClone(ex.body as Record<string, Any>) : ex.body;
  const res = PATH_RESOURCE.find(([re]) => re.test(op.path))?.[1];
  if (res && params.id !== undefined) {
    params.id = ids[res]!;
    changed = true;
  }
  for (const part of [query, body as Record<string, Any>]) {
    if (!part || typeof part !== 'object') continue;
    for (const [k, r] of Object.entries(BODY_RESOURCE))
      if (k in part) {
        part[k] = ids[r];
        changed = true;
      }
    for (const [k, r] of Object.entries(LIST_RESOURCE))
      if (Array.isArray(part[k])) {
        part[k] = [ids[r]];
        changed = true;
      }
  }
  if (op.id === 'patchOrderStatus') {
    (body as Any).id = ids.order;
    changed = true;
  }
  if (/\/(sections|categories|items)\/enable$/.test(op.path)) {
    const kind = /sections/.test(op.path) ? 'section' : /categories/.test(op.path) ? 'category' : 'item';
    (body as Any).ids = [ids[kind]];
    changed = true;
  }
  return changed ? { params, query, body } : undefined;
}

function send(op: OperationSpec, input: Input, cred: Cred | null, headers: Record<string, string> = {}) {
  const qs = new URLSearchParams(
    Object.entries(input.query ?? {}).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  return call(s, op.method, `${fillPath(op.path, input.params ?? {})}${qs ? `?${qs}` : ''}`, {
    cred,
    headers,
    ...(input.body !== undefined ? { body: input.body } : {}),
  });
}

const exampleOf = (op: OperationSpec): Input => {
  const ex = OPERATION_EXAMPLES[op.id]!;
  return { params: ex.params ?? {}, query: ex.query ?? {}, body: ex.body };
};

const counts = { requests: 0, cases: 0 };
const leaks: string[] = [];
function expectCode(r: CallResult, status: number, code: string, what: string) {
  counts.requests++;
  expect(r.status, `${what}: ${r.text.slice(0, 200)}`).toBe(status);
  expect(r.body.error?.code, what).toBe(code);
  expect(r.headers.get('x-request-id'), what).toBe(r.body.request_id);
}
function noLeak(r: CallResult, what: string) {
  for (const m of markers) if (r.text.includes(m)) leaks.push(`${what} carries "${m}"`);
}

describe(
  `auth and tenancy matrix (${mode()})`,
  () => {
    let before: string;
    beforeAll(async () => {
      before = await snapshotOfOther();
    });

    it('credentials: no auth, malformed, wrong secret, revoked → the pinned code, every operation', async () => {
      for (const op of OPS) {
        const input = exampleOf(op);
        const cases: [string, Cred | null, Record<string, string>, number, string][] = [
          ['no auth', null, {}, 401, 'auth_missing'],
          ['malformed', null, { authorization: 'Basic not base64!' }, 401, 'auth_missing'],
          ['bearer', null, { authorization: `Bearer ${s.operatorToken}` }, 401, 'auth_missing'],
          ['wrong secret', { key: s.credential.key, secret: 'wrong' }, {}, 401, 'auth_invalid_credential'],
          ['unknown key', { key: 'pk_nobody', secret: 'x' }, {}, 401, 'auth_invalid_credential'],
          ['revoked', revoked, {}, 403, 'auth_revoked'],
        ];
        for (const [name, cred, headers, status, code] of cases) {
          const r = await send(op, input, cred, headers);
          expectCode(r, status, code, `${op.id} ${name}`);
          noLeak(r, `${op.id} ${name}`);
          counts.cases++;
        }
        if (cases[0]![4] === 'auth_missing') {
          const anon = await send(op, input, null);
          expect(anon.headers.get('www-authenticate')).toBe('Basic realm="partner"');
        }
      }
    });

    it('missing scope → 403 auth_forbidden naming the scope; scope-free operations answer anyway', async () => {
      for (const op of OPS) {
        for (const [scope, cred] of scopeCreds) {
          const r = await send(op, exampleOf(op), cred);
          counts.requests++;
          counts.cases++;
          noLeak(r, `${op.id} with ${scope}`);
          if (op.scopes.length > 0 && !op.scopes.includes(scope as never)) {
            expectCode(r, 403, 'auth_forbidden', `${op.id} with only ${scope}`);
            expect(r.body.error?.message).toBe(`credential is not scoped for ${op.scopes[0]}`);
            expect((r.body.error?.details as Any)?.required_scope).toBe(op.scopes[0]);
          } else {
            expect(r.status, `${op.id} with ${scope}`).not.toBe(403);
            expect([401, 403]).not.toContain(r.status);
          }
        }
      }
    });

    it("another business's ids → what a missing id gets (404 resource_not_found for a path id), no leak", async () => {
      const nobody = Object.fromEntries(
        Object.keys(theirs).map((k) => [k, k === 'sku' ? 'NO-SUCH-SKU' : 999_999]),
      );
      let n = 0;
      for (const op of OPS) {
        const foreign = pointAt(op, theirs);
        if (!foreign) continue;
        const missing = pointAt(op, nobody)!;
        const a = await send(op, foreign, s.credential);
        const b = await send(op, missing, s.credential);
        counts.requests += 2;
        counts.cases++;
        n++;
        noLeak(a, `${op.id} with business 2's ids`);
        expect(a.status, `${op.id}: ${a.text.slice(0, 300)}`).toBe(b.status);
        expect(a.body.error?.code, op.id).toBe(b.body.error?.code);
        if (a.status < 300) {
          // A filter naming their brand or branch finds what a filter naming no one finds: nothing.
          expect(JSON.stringify(a.body.data), op.id).toBe(JSON.stringify(b.body.data));
          continue;
        }
        expect(['resource_not_found', 'request_invalid', 'resource_unmapped'], op.id).toContain(
          a.body.error?.code,
        );
        if (/\{id\}/.test(op.path)) expect(a.body.error?.code, op.id).toBe('resource_not_found');
      }
      expect(n).toBeGreaterThan(40);
    });

    it('business_id / filterByBusiness of the other business are overridden: same answer as without', async () => {
      const other = String(s.other.businessId);
      for (const op of OPS.filter((o) => o.method === 'GET')) {
        const input = exampleOf(op);
        const plain = await send(op, input, s.credential);
        const spoofed = await send(
          op,
          { ...input, query: { ...input.query, business_id: other, filterByBusiness: other } },
          s.credential,
        );
        counts.requests += 2;
        counts.cases++;
        noLeak(spoofed, `${op.id} spoofed`);
        expect(spoofed.status, op.id).toBe(plain.status);
        if (op.id !== 'getOpenApi')
          expect(JSON.stringify(spoofed.body.data), op.id).toBe(JSON.stringify(plain.body.data));
      }
      // Writes: business_id in the body (and query) is overridden too.
      const r = await call(s, 'POST', `/v1/partner/brands?business_id=${other}`, {
        body: { title: 'Spoofed business', business_id: s.other.businessId },
      });
      expect(r.status).toBe(201);
      expect(r.body.data.business_id).toBe(s.credential.businessId);
    });

    it('the other business is unchanged and nothing of it leaked', async () => {
      expect(await snapshotOfOther()).toBe(before);
      expect(leaks).toEqual([]);
      console.log(
        `matrix (${mode()}): ${OPS.length} partner operations, ${counts.cases} cases, ${counts.requests} requests, ` +
          `${scopeCreds.size} single-scope credentials, ${markers.length} markers of the other business: 0 leaks`,
      );
    });
  },
  scale(60_000, 300_000),
);
