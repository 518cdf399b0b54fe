import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretHasher } from './secrets.js';

const key = randomBytes(32);
const h = new SecretHasher(key);

describe('SecretHasher', () => {
  it('stores HMAC-SHA-256 under its key: the right secret matches, a wrong one or another key does not', () => {
    const stored = h.hash('sk_right');
    expect(stored).toMatch(/^hmac-sha256\$[A-Za-z0-9+/]{43}=$/);
    expect(h.matches('sk_right', stored)).toBe(true);
    expect(h.matches('sk_wrong', stored)).toBe(false);
    expect(new SecretHasher(randomBytes(32)).matches('sk_right', stored)).toBe(false);
    expect(h.hash('sk_right')).toBe(stored); // keyed, not salted: the key is the secret part
  });

  it('never matches a malformed or foreign hash, nor an unknown key', () => {
    for (const bad of ['', 'hmac-sha256$', 'hmac-sha256$AAAA', 'md5$x', h.hash('x').slice(0, -4)])
      expect(h.matches('x', bad)).toBe(false);
    expect(h.unknownKey('anything')).toBe(false);
  });

  it('an earlier version’s scrypt hash verifies and hands back its HMAC replacement; a wrong secret gets none', async () => {
    const salt = randomBytes(16);
    const old = `scrypt$16384$8$1$${salt.toString('base64')}$${scryptSync('sk_old', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`;
    expect(await h.verify('sk_old', old)).toEqual({ ok: true, upgrade: h.hash('sk_old') });
    expect(await h.verify('sk_wrong', old)).toEqual({ ok: false });
    expect(await h.verify('sk_old', old.replace('16384', '1024'))).toEqual({ ok: false });
    expect(await h.verify('sk_new', h.hash('sk_new'))).toEqual({ ok: true });
  });
});
