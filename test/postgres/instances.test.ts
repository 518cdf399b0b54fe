import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgStore } from '../../src/server/store/postgres/store.js';
import { call, errorCode, startTestServer, type TestServer } from '../helpers/server.js';

// Two servers on one PostgreSQL database stand for two instances behind a load balancer: what
// an operator changes through one holds on the very next request to the other.

let a: TestServer;
let b: TestServer;
let businessId: number;

beforeAll(async () => {
  a = await startTestServer({ seed: 'none' });
  b = await startTestServer({ seed: 'none', database: a.databaseUrl! });
  const biz = await a.operator('POST', '/v1/operator/businesses', { title: 'Two instances' });
  expect(biz.status).toBe(201);
  businessId = biz.body.data.id;
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

const webhooks = (s: TestServer, cred: { key: string; secret: string }) =>
  call(s, 'GET', `/v1/partner/webhooks?business_id=${businessId}`, { cred });

describe('credentials across instances', () => {
  it('a revoke through one instance refuses the next request on the other, which had it cached', async () => {
    const cred = await a.issueCredential({ businessId, scopes: ['webhooks:read'] });
    expect((await webhooks(b, cred)).status).toBe(200);
    expect((await webhooks(b, cred)).status).toBe(200); // cached on b now
    expect((await a.operator('POST', `/v1/operator/credentials/${cred.key}/revoke`)).status).toBe(200);
    const r = await webhooks(b, cred);
    expect([r.status, errorCode(r)]).toEqual([403, 'auth_revoked']);
  });

  it('a scope change and a rotation without grace take effect on the other instance at once', async () => {
    const cred = await a.issueCredential({ businessId, scopes: ['webhooks:read', 'orders:read'] });
    expect((await webhooks(b, cred)).status).toBe(200);
    const scoped = await a.operator('PUT', `/v1/operator/credentials/${cred.key}/scopes`, {
      scopes: ['orders:read'],
    });
    expect(scoped.status).toBe(200);
    const r = await webhooks(b, cred);
    expect([r.status, errorCode(r)]).toEqual([403, 'auth_forbidden']);

    const cred2 = await a.issueCredential({ businessId, scopes: ['webhooks:read'] });
    expect((await webhooks(b, cred2)).status).toBe(200);
    const rotated = await a.operator('POST', `/v1/operator/credentials/${cred2.key}/rotate`, {
      grace_seconds: 0,
    });
    expect(rotated.status).toBe(200);
    const old = await webhooks(b, cred2);
    expect([old.status, errorCode(old)]).toEqual([401, 'auth_invalid_credential']);
    const fresh = await webhooks(b, { key: cred2.key, secret: rotated.body.data.secret });
    expect(fresh.status).toBe(200);
  });

  it('a write whose cached secret was rotated out on the other instance (401) leaves its key free for the new secret', async () => {
    const cred = await a.issueCredential({ businessId, scopes: ['brands:create'] });
    const brand = (c: { key: string; secret: string }, key?: string) =>
      call(b, 'POST', '/v1/partner/brands', { cred: c, ...(key ? { key } : {}), body: { title: 'Rotated' } });
    expect((await brand(cred)).status).toBe(201); // cached on b now
    const rotated = await a.operator('POST', `/v1/operator/credentials/${cred.key}/rotate`, {
      grace_seconds: 0,
    });
    expect(rotated.status).toBe(200);
    // b's admit claims the key with the take, then finds the row changed and the secret refused.
    const old = await brand(cred, 'rotated-key');
    expect([old.status, errorCode(old)]).toEqual([401, 'auth_invalid_credential']);
    const fresh = await brand({ key: cred.key, secret: rotated.body.data.secret }, 'rotated-key');
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
  });

  it('one rate budget per credential, whichever instance answers', async () => {
    const cred = await a.issueCredential({ businessId, scopes: ['webhooks:read'], rateLimit: 6 });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await webhooks(i % 2 ? a : b, cred)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.slice(6)).toEqual([429, 429, 429, 429]);
  });

  it('a guess at the secret of a key in use spends nothing of its budget', async () => {
    const cred = await a.issueCredential({ businessId, scopes: ['webhooks:read'], rateLimit: 3 });
    // Verified and cached on b: b's next requests check the row and take in one statement.
    expect((await webhooks(b, cred)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const r = await webhooks(b, { key: cred.key, secret: `${cred.secret}x` });
      expect([r.status, errorCode(r)]).toEqual([401, 'auth_invalid_credential']);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await webhooks(b, cred)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('a read of one statement takes one round trip, with no transaction around it', async () => {
    const cred = await a.issueCredential({ businessId, scopes: ['webhooks:read'] });
    expect((await webhooks(b, cred)).status).toBe(200);
    const stats = (b.server.services.store as PgStore).stats;
    const before = stats.roundTrips;
    expect((await webhooks(b, cred)).status).toBe(200);
    expect(stats.roundTrips - before).toBe(1);
  });
});
