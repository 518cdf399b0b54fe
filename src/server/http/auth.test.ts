import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { type RealServices, realServices } from './harness.js';

// The credential verifier in-process, on a real store (SQLite file, demo seed) with an injected
// clock: its cache, its failed-authentication budget, and revocation on the next request.

let clock = Date.parse('2026-01-01T00:00:00Z');
let s: RealServices;
beforeAll(async () => {
  s = await realServices({
    now: () => clock,
    authThrottle: { failuresPerKeyPerMinute: 3, failuresPerAddressPerMinute: 1_000 },
  });
});
afterAll(() => s.close());

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

const auth = () => s.server.services.auth;

describe('CredentialAuth', () => {
  it('a verified credential is cached: the next request reads no row and hashes nothing', async () => {
    const header = s.basic(s.cred);
    const before = auth().stats.verifications;
    const cred = await auth().authenticate(header, '127.0.0.1');
    expect(cred).toMatchObject({ key: s.cred.key, businessId: s.server.seeded[0]!.business_id });
    await auth().authenticate(header, '127.0.0.1');
    await auth().authenticate(header, '127.0.0.1');
    expect(auth().stats.verifications - before).toBe(1);
  });

  it('no header or a malformed one: auth_missing with WWW-Authenticate; a wrong secret: auth_invalid_credential', async () => {
    const missing = await refusal(auth().authenticate(undefined, '127.0.0.9'));
    expect(missing.code).toBe('auth_missing');
    expect(missing.headers).toEqual({ 'www-authenticate': 'Basic realm="partner"' });
    expect((await refusal(auth().authenticate('Basic !!', '127.0.0.9'))).code).toBe('auth_missing');
    const other = s.server.seeded[1]!;
    const wrong = await refusal(
      auth().authenticate(s.basic({ key: other.key, secret: 'nope' }), '127.0.0.9'),
    );
    expect(wrong.code).toBe('auth_invalid_credential');
  });

  it('failures spend a budget per key: past it, 429 before any verification; a minute later it is back', async () => {
    const key = 'pk_no_such_key_1';
    const wrong = s.basic({ key, secret: 'not-the-secret' });
    const start = auth().stats.verifications;
    let codes: string[] = [];
    for (let i = 0; i < 3; i++) codes.push((await refusal(auth().authenticate(wrong, '127.0.0.3'))).code);
    expect(codes).toEqual(['auth_invalid_credential', 'auth_invalid_credential', 'auth_invalid_credential']);
    const spent = await refusal(auth().authenticate(wrong, '127.0.0.3'));
    expect(spent.code).toBe('rate_limit_exceeded');
    expect(spent.details).toMatchObject({ reason: 'auth_failures' });
    expect(Number(spent.headers!['retry-after'])).toBeGreaterThan(0);
    expect(auth().stats.verifications - start).toBe(3);
    clock += 60_000;
    codes = [(await refusal(auth().authenticate(wrong, '127.0.0.3'))).code];
    expect(codes).toEqual(['auth_invalid_credential']);
  });

  it('a revoked credential is refused on its next request, cached or not', async () => {
    const created = await s.operator('POST', '/v1/operator/credentials', {
      business_id: s.server.seeded[0]!.business_id,
      scopes: ['brands:read'],
    });
    const c = created.json().data as { key: string; secret: string };
    const header = s.basic(c);
    expect((await auth().authenticate(header, '127.0.0.1')).key).toBe(c.key);
    expect((await s.operator('POST', `/v1/operator/credentials/${c.key}/revoke`)).statusCode).toBe(200);
    expect((await refusal(auth().authenticate(header, '127.0.0.1'))).code).toBe('auth_revoked');
  });
});
