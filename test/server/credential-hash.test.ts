import { createHmac, hkdfSync, randomBytes, scryptSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

// Issue 24: partner secrets (server-issued, 256 random bits) are stored as HMAC-SHA-256 under a key
// derived from the seal key, no longer as scrypt. Hashes written by earlier versions still
// authenticate and are rewritten as HMAC after one successful check.

let t = Date.parse('2026-11-26T10:00:00Z');
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ now: () => t });
});
afterAll(() => s.close());

/** What an earlier version stored for `secret` (its scrypt parameters and format). */
function scryptHash(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, 32, { N: 16384, r: 8, p: 1 });
  return `scrypt$16384$8$1$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** The seal key the server was given (PostgreSQL) or made in its data dir (SQLite). */
function sealKey(): Buffer {
  return s.backend === 'postgres'
    ? Buffer.alloc(32, 3)
    : Buffer.from(readFileSync(join(s.dataDir, 'secret.key'), 'utf8').trim(), 'base64');
}

const hashOf = async (key: string, column = 'secret_hash') =>
  (await s.rows<{ h: string | null }>(`SELECT ${column} AS h FROM credentials WHERE key = ?`, key))[0]!.h;

const brands = (cred: { key: string; secret: string }) => call(s, 'GET', '/v1/partner/brands', { cred });

describe('secrets at rest', () => {
  it('a new credential is stored as HMAC-SHA-256 under the key derived from the seal key, not scrypt', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    const stored = await hashOf(cred.key);
    expect(stored).not.toMatch(/^scrypt/);
    const key = Buffer.from(
      hkdfSync('sha256', sealKey(), Buffer.alloc(0), 'partner credential secrets v1', 32),
    );
    expect(stored).toBe(`hmac-sha256$${createHmac('sha256', key).update(cred.secret).digest('base64')}`);
    expect(stored).not.toContain(cred.secret);
    expect((await brands(cred)).status).toBe(200);
  });

  it('a secret is issued with 256 random bits (what makes a fast keyed hash enough)', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    expect(cred.secret).toMatch(/^sk_[\w-]+$/);
    expect(Buffer.from(cred.secret.slice(3), 'base64url').length).toBeGreaterThanOrEqual(32);
  });

  it('a rotated secret is stored as HMAC too', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    const r = await s.operator('POST', `/v1/operator/credentials/${cred.key}/rotate`, {});
    expect(r.status).toBe(200);
    expect(await hashOf(cred.key)).toMatch(/^hmac-sha256\$/);
    expect(await hashOf(cred.key, 'prev_secret_hash')).toMatch(/^hmac-sha256\$/);
    expect((await brands({ key: cred.key, secret: r.body.data.secret })).status).toBe(200);
  });
});

describe('scrypt hashes of earlier versions', () => {
  it('still authenticate, and are rewritten as HMAC after one successful check', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    const old = scryptHash(cred.secret);
    await s.exec(`UPDATE credentials SET secret_hash = '${old}' WHERE key = '${cred.key}'`);

    // A wrong secret neither authenticates nor rewrites anything.
    const wrong = await brands({ key: cred.key, secret: `${cred.secret}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error?.code).toBe('auth_invalid_credential');
    expect(await hashOf(cred.key)).toBe(old);

    expect((await brands(cred)).status).toBe(200);
    const upgraded = await hashOf(cred.key);
    expect(upgraded).toMatch(/^hmac-sha256\$/);
    expect((await brands(cred)).status).toBe(200);
    expect(await hashOf(cred.key)).toBe(upgraded);
    expect((await brands({ key: cred.key, secret: 'wrong' })).status).toBe(401);
  });

  it('a previous secret still in its grace period is upgraded in its own column', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    const r = await s.operator('POST', `/v1/operator/credentials/${cred.key}/rotate`, { grace_seconds: 600 });
    const fresh = { key: cred.key, secret: r.body.data.secret as string };
    const current = await hashOf(cred.key);
    const old = scryptHash(cred.secret);
    await s.exec(`UPDATE credentials SET prev_secret_hash = '${old}' WHERE key = '${cred.key}'`);

    expect((await brands(cred)).status).toBe(200);
    expect(await hashOf(cred.key, 'prev_secret_hash')).toMatch(/^hmac-sha256\$/);
    expect(await hashOf(cred.key)).toBe(current);
    expect((await brands(fresh)).status).toBe(200);
    t += 601_000;
    expect((await brands(cred)).status).toBe(401);
  });
});
