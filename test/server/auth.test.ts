import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_LIST } from '../../src/contract/operations.js';
import { SCOPES } from '../../src/contract/scopes.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let t = Date.parse('2026-11-20T10:00:00Z');
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ now: () => t });
});
afterAll(() => s.close());

describe('Basic auth', () => {
  it('missing or malformed header → 401 auth_missing with WWW-Authenticate', async () => {
    for (const headers of [{}, { authorization: 'Bearer x' }, { authorization: 'Basic ???' }] as Record<
      string,
      string
    >[]) {
      const r = await call(s, 'GET', '/v1/partner/brands', { cred: null, headers });
      expect(r.status).toBe(401);
      expect(r.body.error?.code).toBe('auth_missing');
      expect(r.headers.get('www-authenticate')).toBe('Basic realm="partner"');
    }
  });

  it('unknown key or wrong secret → 401 auth_invalid_credential', async () => {
    const a = await call(s, 'GET', '/v1/partner/brands', { cred: { key: 'pk_nope', secret: 'x' } });
    const b = await call(s, 'GET', '/v1/partner/brands', {
      cred: { key: s.credential.key, secret: 'wrong' },
    });
    for (const r of [a, b]) {
      expect(r.status).toBe(401);
      expect(r.body.error?.code).toBe('auth_invalid_credential');
    }
  });

  it('the operator token is not accepted under /v1/partner, nor partner credentials under /v1/operator', async () => {
    const a = await call(s, 'GET', '/v1/partner/brands', {
      cred: null,
      headers: { authorization: `Bearer ${s.operatorToken}` },
    });
    expect(a.body.error?.code).toBe('auth_missing');
    const b = await call(s, 'GET', '/v1/operator/businesses');
    expect(b.status).toBe(401);
    expect(b.body.error?.code).toBe('auth_missing');
    const c = await call(s, 'GET', '/v1/operator/businesses', {
      cred: null,
      headers: { authorization: 'Bearer wrong' },
    });
    expect(c.body.error?.code).toBe('auth_invalid_credential');
  });
});

describe('scopes', () => {
  it('every partner operation answers 403 auth_forbidden to a credential holding none of its scopes', async () => {
    const ops = OPERATION_LIST.filter((o) => o.auth === 'partner' && o.scopes.length > 0);
    for (const op of ops) {
      const others = SCOPES.filter((sc) => !op.scopes.includes(sc));
      const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: [...others] });
      const path = op.path.replace(/\{\w+\}/g, '1');
      const r = await call(s, op.method, path, { cred, ...(op.method === 'GET' ? {} : { body: {} }) });
      expect(r.status, `${op.id}`).toBe(403);
      expect(r.body.error?.code).toBe('auth_forbidden');
      expect(r.body.error?.message).toBe(`credential is not scoped for ${op.scopes[0]}`);
      expect((r.body.error!.details as { required_scope: string }).required_scope).toBe(op.scopes[0]);
    }
  });

  it('any one of the accepted scopes grants (branches:read for branch reads)', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['branches:read'] });
    expect((await call(s, 'GET', '/v1/partner/branches', { cred })).status).toBe(200);
    expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(403);
  });

  it('a scope change takes effect on the next request', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(200);
    await s.operator('PUT', `/v1/operator/credentials/${cred.key}/scopes`, { scopes: ['orders:read'] });
    expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(403);
  });
});

describe('revoke and rotation', () => {
  it('revoke → 403 auth_revoked on the very next request (cache invalidated)', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(200);
    const rev = await s.operator('POST', `/v1/operator/credentials/${cred.key}/revoke`);
    expect(rev.body.data.revoked_at).not.toBeNull();
    const r = await call(s, 'GET', '/v1/partner/brands', { cred });
    expect(r.status).toBe(403);
    expect(r.body.error?.code).toBe('auth_revoked');
  });

  it('rotation: new secret works at once, the old one for the grace period, then 401', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(200);
    const rot = await s.operator('POST', `/v1/operator/credentials/${cred.key}/rotate`, {
      grace_seconds: 60,
    });
    expect(rot.status).toBe(200);
    const fresh = { key: cred.key, secret: rot.body.data.secret as string };
    expect(fresh.secret).not.toBe(cred.secret);
    expect((await call(s, 'GET', '/v1/partner/brands', { cred: fresh })).status).toBe(200);
    expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(200);
    t += 61_000;
    const old = await call(s, 'GET', '/v1/partner/brands', { cred });
    expect(old.status).toBe(401);
    expect(old.body.error?.code).toBe('auth_invalid_credential');
    expect((await call(s, 'GET', '/v1/partner/brands', { cred: fresh })).status).toBe(200);
  });

  it('rotation with grace 0 ends the old secret immediately; default grace is 900 s', async () => {
    const a = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    await call(s, 'GET', '/v1/partner/brands', { cred: a });
    await s.operator('POST', `/v1/operator/credentials/${a.key}/rotate`, { grace_seconds: 0 });
    expect((await call(s, 'GET', '/v1/partner/brands', { cred: a })).status).toBe(401);

    const b = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    await s.operator('POST', `/v1/operator/credentials/${b.key}/rotate`, {});
    t += 899_000;
    expect((await call(s, 'GET', '/v1/partner/brands', { cred: b })).status).toBe(200);
    t += 1_000;
    expect((await call(s, 'GET', '/v1/partner/brands', { cred: b })).status).toBe(401);
  });

  it('operator listings never carry secrets or hashes', async () => {
    const r = await s.operator('GET', '/v1/operator/credentials');
    expect(r.status).toBe(200);
    const text = JSON.stringify(r.body);
    expect(text).not.toContain(s.credential.secret);
    expect(text).not.toContain('scrypt');
    expect(text).not.toContain('hmac-sha256');
    expect(r.body.data[0]).not.toHaveProperty('secret');
  });
});

describe('secrets at rest', () => {
  it('stores only keyed hashes (HMAC-SHA-256)', async () => {
    const rows = (await s.rows<{ secret_hash: string }>('SELECT secret_hash FROM credentials')).map(
      (r) => r.secret_hash,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const h of rows) expect(h).toMatch(/^hmac-sha256\$[A-Za-z0-9+/]{43}=$/);
    const dump = JSON.stringify(await s.rows('SELECT * FROM credentials'));
    expect(dump).not.toContain(s.credential.secret);
  });
});
