import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let t = Date.parse('2026-11-20T10:00:00Z');
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ now: () => t });
});
afterAll(() => s.close());

it('per-credential token bucket: RateLimit-* on every answer, 429 with Retry-After past the limit', async () => {
  const cred = await s.issueCredential({
    businessId: s.credential.businessId,
    scopes: ['brands:read'],
    rateLimit: 3,
  });
  const seen = [];
  for (let i = 0; i < 3; i++) {
    const r = await call(s, 'GET', '/v1/partner/brands', { cred });
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-limit')).toBe('3');
    seen.push(r.headers.get('ratelimit-remaining'));
  }
  expect(seen).toEqual(['2', '1', '0']);
  const limited = await call(s, 'GET', '/v1/partner/brands', { cred });
  expect(limited.status).toBe(429);
  expect(limited.body.error?.code).toBe('rate_limit_exceeded');
  expect(limited.headers.get('retry-after')).toBe('20');
  expect(limited.headers.get('ratelimit-remaining')).toBe('0');

  // Another credential of the same business is not affected.
  expect((await call(s, 'GET', '/v1/partner/brands')).status).toBe(200);

  t += 20_000;
  expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(200);
});

it('also counts errors, and the default limit is 600/min', async () => {
  const r = await call(s, 'GET', '/v1/partner/branches/999999');
  expect(r.status).toBe(404);
  expect(r.headers.get('ratelimit-limit')).toBe('600');
});

it('the operator can raise a credential limit', async () => {
  const cred = await s.issueCredential({
    businessId: s.credential.businessId,
    scopes: ['brands:read'],
    rateLimit: 1,
  });
  await call(s, 'GET', '/v1/partner/brands', { cred });
  expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(429);
  const r = await s.operator('PUT', `/v1/operator/credentials/${cred.key}/rate-limit`, { rate_limit: 1000 });
  expect(r.body.data.rate_limit).toBe(1000);
  const ok = await call(s, 'GET', '/v1/partner/brands', { cred });
  expect(ok.status).toBe(200);
  expect(ok.headers.get('ratelimit-limit')).toBe('1000');
});

it('a NUL byte in a path (a credential key, an event id) is refused 400 naming it, on every backend', async () => {
  // Refused before any store sees it: PostgreSQL text cannot hold U+0000 (it was a 500 there).
  const r = await s.operator('PUT', '/v1/operator/credentials/%00/rate-limit', { rate_limit: 6 });
  expect(r.status).toBe(400);
  expect(r.body.error?.code).toBe('request_invalid');
  expect(r.body.error?.details).toEqual([
    { path: ['params', 'key'], message: expect.stringMatching(/U\+0000/) },
  ]);
  const replay = await s.operator('POST', '/v1/operator/webhooks/replay/evt_1_%00');
  expect(replay.status).toBe(400);
  expect((replay.body.error?.details as { path: string[] }[] | undefined)?.[0]?.path).toEqual([
    'params',
    'event_id',
  ]);
});
