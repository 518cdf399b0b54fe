import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../contract/operations.js';
import { authenticate } from './authenticate.js';
import { type RealServices, realServices, stageApp } from './harness.js';
import { rateLimit } from './rate-limit.js';
import { inOrder } from './stage.js';

// The rate-limit stage in-process, after authenticate on a real server's services (the budget is
// the store's, with an injected clock): the headers on every partner answer, then 429.

let clock = Date.parse('2026-01-01T00:00:00Z');
let s: RealServices;
let app: ReturnType<typeof stageApp>;
let limited: { key: string; secret: string };
beforeAll(async () => {
  s = await realServices({ now: () => clock });
  const created = await s.operator('POST', '/v1/operator/credentials', {
    business_id: s.server.seeded[0]!.business_id,
    scopes: ['brands:read'],
    rate_limit: 2,
  });
  limited = created.json().data;
  app = stageApp();
  const op = OPERATIONS.listBrands;
  app.get(
    '/t',
    { onRequest: inOrder([authenticate(op, s.server.services), rateLimit(op)]) },
    async () => 'ok',
  );
});
afterAll(async () => {
  await app.close();
  await s.close();
});

describe('rate limit', () => {
  it('RateLimit-* on every answer; past the budget 429 with Retry-After in the envelope; refilled with time', async () => {
    const get = () => app.inject({ url: '/t', headers: { authorization: s.basic(limited) } });
    const a = await get();
    const b = await get();
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.headers['ratelimit-limit']).toBe('2');
    expect([a.headers['ratelimit-remaining'], b.headers['ratelimit-remaining']]).toEqual(['1', '0']);
    const c = await get();
    expect(c.statusCode).toBe(429);
    expect(c.json().error.code).toBe('rate_limit_exceeded');
    expect(c.json().error.message).toMatch(/^rate limit of 2 requests per minute exceeded; retry in \d+ s$/);
    expect(c.headers['retry-after']).toBe(String(c.json().error.details.retry_after));
    expect(c.headers['ratelimit-remaining']).toBe('0');
    clock += 60_000;
    expect((await get()).statusCode).toBe(200);
  });

  it('only partner operations have the stage', () => {
    expect(rateLimit(OPERATIONS.operatorListCredentials)).toBeUndefined();
    expect(rateLimit(OPERATIONS.listBrands)).toBeDefined();
  });
});
