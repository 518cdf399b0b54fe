import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../../src/cli/context.js';
import { MANIFEST } from '../../src/cli/manifest/data.js';
import { PartnerClient, type RequestLog } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// The client against the real server: pacing under a real token bucket, typed errors,
// idempotent replays, pagination.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
});
afterAll(async () => {
  await s?.close();
});

const routes = routesOf(MANIFEST);

describe('PartnerClient against the local server', () => {
  it('paces a sequence longer than the bucket without a single 429', async () => {
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['brands:read'],
      rateLimit: 120,
    });
    const logs: RequestLog[] = [];
    const c = new PartnerClient({
      baseUrl: s.baseUrl,
      credential: cred,
      routes,
      onRequest: (e) => logs.push(e),
    });
    const started = Date.now();
    for (let i = 0; i < 126; i++) await c.call('listProviders');
    await c.close();
    expect(logs.filter((l) => l.status === 429)).toEqual([]);
    expect(logs.some((l) => (l.pacedMs ?? 0) > 0)).toBe(true);
    // 120 in the bucket, then 2 per second: the last few had to wait.
    expect(Date.now() - started).toBeGreaterThan(2000);
  }, 30_000);

  it('without pacing the same sequence does hit 429 (the test above can fail)', async () => {
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['brands:read'],
      rateLimit: 5,
    });
    const logs: RequestLog[] = [];
    const c = new PartnerClient({
      baseUrl: s.baseUrl,
      credential: cred,
      routes,
      pace: false,
      retry: { maxRetries: 0 },
      onRequest: (e) => logs.push(e),
    });
    const errors: unknown[] = [];
    for (let i = 0; i < 7; i++) await c.call('listProviders').catch((e: unknown) => errors.push(e));
    await c.close();
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({ name: 'ApiError', status: 429, code: 'rate_limit_exceeded' });
  });

  it('replays a write with the same Idempotency-Key and paginates branches', async () => {
    const c = new PartnerClient({ baseUrl: s.baseUrl, credential: s.credential, routes });
    const a = await c.callRaw('createPriceGroup', { body: { title: 'Live' }, idempotencyKey: 'live-key-1' });
    const b = await c.callRaw('createPriceGroup', { body: { title: 'Live' }, idempotencyKey: 'live-key-1' });
    expect(b.replayed).toBe(true);
    expect(b.data).toEqual(a.data);
    const total = ((await c.call('listBranches')) as { total: number }).total;
    const all: unknown[] = [];
    for await (const x of c.paginate('listBranches', { size: 1 })) all.push(x);
    expect(all).toHaveLength(total);
    const err = await c.call('getBranch', { params: { id: 999999 } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ApiError', status: 404, code: 'resource_not_found' });
    expect((err as { request_id: string }).request_id).toMatch(/^req_/);
    await c.close();
  });
});
