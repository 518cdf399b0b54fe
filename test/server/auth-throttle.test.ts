import { randomBytes, scryptSync } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startTestServer, type TestServer } from '../helpers/server.js';

// Issue 12, defect 3: wrong-secret guesses were never throttled. Each cost a scrypt hash (tens of
// ms of CPU); a flood pushed a legitimate credential's first request from 40 ms to 1.5 s. Secrets
// are HMAC now (issue 24); the budgets stay, and scrypt hashes of earlier versions, still checked
// until their next success, keep the bound on hashes at once.

/** GET /v1/partner/brands from a chosen loopback address (127.0.0.2 stands for another client). */
function get(
  s: TestServer,
  cred: { key: string; secret: string },
  from = '127.0.0.1',
): Promise<{
  status: number;
  headers: Record<string, unknown>;
  body: { error?: { code: string; details?: unknown } };
}> {
  return new Promise((resolve, reject) => {
    const u = new URL(s.baseUrl);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: '/v1/partner/brands',
        localAddress: from,
        agent: false,
        headers: { authorization: basic(cred) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('failure budgets (injected clock)', () => {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      now: () => clock,
      authThrottle: { failuresPerKeyPerMinute: 5, failuresPerAddressPerMinute: 1_000 },
    });
  });
  afterAll(() => s.close());

  it('per key: after the budget, 429 with Retry-After and no hashing; a token returns with time', async () => {
    const wrong = { key: s.credential.key, secret: 'not-the-secret' };
    for (let i = 0; i < 5; i++) expect((await get(s, wrong)).status).toBe(401);
    const hashed = s.server.services.auth.stats.verifications;
    const r = await get(s, wrong);
    expect(r.status).toBe(429);
    expect(r.body.error?.code).toBe('rate_limit_exceeded');
    expect(r.headers['retry-after']).toBe('12');
    expect(r.body.error?.details).toEqual({ retry_after: 12, reason: 'auth_failures' });
    // Refused before any hashing, however many come.
    for (let i = 0; i < 20; i++) expect((await get(s, wrong)).status).toBe(429);
    expect(s.server.services.auth.stats.verifications).toBe(hashed);

    // 5 a minute: one more try every 12 s.
    clock += 12_000;
    expect((await get(s, wrong)).status).toBe(401);
    expect((await get(s, wrong)).status).toBe(429);
  });

  it('a cached (already verified) credential of that key is not affected by its spent budget', async () => {
    const key = s.credential.key;
    // The right secret was verified before the guesses (cached) in a fresh key: spend its budget.
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    expect((await get(s, cred)).status).toBe(200);
    for (let i = 0; i < 8; i++) await get(s, { key: cred.key, secret: 'guess' });
    expect((await get(s, { key: cred.key, secret: 'guess' })).status).toBe(429);
    expect((await get(s, cred)).status).toBe(200);
    expect(key).not.toBe(cred.key);
  });

  it('unknown keys spend the budget of their address and of the key they name', async () => {
    for (let i = 0; i < 5; i++) expect((await get(s, { key: 'pk_nobody', secret: 'x' })).status).toBe(401);
    expect((await get(s, { key: 'pk_nobody', secret: 'x' })).status).toBe(429);
  });
});

describe('per address', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      authThrottle: { failuresPerKeyPerMinute: 1_000, failuresPerAddressPerMinute: 6 },
    });
  });
  afterAll(() => s.close());

  it('guesses over many keys from one address are throttled; another address is not', async () => {
    for (let i = 0; i < 6; i++)
      expect((await get(s, { key: `pk_guess_${i}`, secret: 'x' }, '127.0.0.2')).status).toBe(401);
    expect((await get(s, { key: 'pk_guess_x', secret: 'x' }, '127.0.0.2')).status).toBe(429);
    // A legitimate client elsewhere, not yet verified (nothing cached), goes through.
    expect((await get(s, s.credential, '127.0.0.1')).status).toBe(200);
  });
});

describe('hashing cost and concurrency', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      authThrottle: {
        failuresPerKeyPerMinute: 100_000,
        failuresPerAddressPerMinute: 100_000,
        maxConcurrentHashes: 2,
        maxQueuedHashes: 8,
      },
    });
  });
  afterAll(() => s.close());

  it('an unknown key costs one verification, like a wrong secret (timing does not tell keys apart)', async () => {
    const stats = s.server.services.auth.stats;
    const time = async (cred: { key: string; secret: string }) => {
      const before = stats.verifications;
      const t0 = performance.now();
      const r = await get(s, cred);
      expect(r.status).toBe(401);
      expect(stats.verifications - before).toBe(1);
      return performance.now() - t0;
    };
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 8; i++) {
      unknown.push(await time({ key: `pk_unknown_${i}`, secret: `s${i}` }));
      wrong.push(await time({ key: s.credential.key, secret: `s${i}` }));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    console.log(
      `auth failure cost: unknown key median ${median(unknown).toFixed(1)} ms, wrong secret median ${median(wrong).toFixed(1)} ms`,
    );
    // Each was one verification (counted in time() above): one HMAC, compared in constant time
    // against the stored MAC or, for an unknown key, a dummy (SecretHasher.unknownKey). Microseconds
    // either way, so the medians printed are the HTTP round trip's noise; no ratio is asserted.
  });

  it('at most 2 scrypt hashes (of an earlier version) run at once; beyond the bounded queue, 429 at once', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    const salt = randomBytes(16);
    const old = `scrypt$16384$8$1$${salt.toString('base64')}$${scryptSync(cred.secret, salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`;
    await s.exec(`UPDATE credentials SET secret_hash = '${old}' WHERE key = '${cred.key}'`);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => get(s, { key: cred.key, secret: `parallel-${i}` })),
    );
    const codes = results.map((r) => r.status);
    expect(s.server.services.auth.stats.maxConcurrent).toBeLessThanOrEqual(2);
    // 2 running + 8 queued get their 401; the rest are told to come back.
    expect(codes.filter((c) => c === 401).length).toBeGreaterThanOrEqual(10);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThan(0);
    expect(codes.every((c) => c === 401 || c === 429)).toBe(true);
    const busy = results.find((r) => r.status === 429)!;
    expect(busy.headers['retry-after']).toBe('1');
  });
});

describe('a flood of wrong guesses', () => {
  let s: TestServer;
  beforeAll(async () => {
    // Default budgets: the flood comes from 127.0.0.2 and soon answers 429 without hashing.
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it('does not slow down a legitimate cached credential; its latency is printed', async () => {
    const legit = s.credential;
    expect((await get(s, legit)).status).toBe(200);
    const sample = async (n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const r = await get(s, legit);
        out.push(performance.now() - t0);
        expect(r.status).toBe(200);
      }
      return out.sort((a, b) => a - b);
    };
    const quiet = await sample(50);

    let stop = false;
    const codes = new Map<number, number>();
    const attacker = async (w: number) => {
      for (let i = 0; !stop && i < 2_000; i++) {
        const r = await get(s, { key: s.other.key, secret: `guess-${w}-${i}` }, '127.0.0.2');
        codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
      }
    };
    const flood = Array.from({ length: 16 }, (_, w) => attacker(w));
    // Sample once the flood is past its budget (its answers are 429s), not after a guessed pause.
    for (let i = 0; i < 6_000 && !codes.get(429); i++) await new Promise((r) => setTimeout(r, 10));
    expect(codes.get(429)).toBeGreaterThan(0);
    const during = await sample(40);
    // A credential not verified yet (its first request needs a hash) during the flood.
    const fresh = await s.issueCredential({ businessId: legit.businessId, scopes: ['brands:read'] });
    const f0 = performance.now();
    expect((await get(s, fresh)).status).toBe(200);
    const firstRequestMs = performance.now() - f0;
    during.push(...(await sample(60)));
    during.sort((a, b) => a - b);
    stop = true;
    await Promise.all(flood);

    const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
    const verified = s.server.services.auth.stats.verifications;
    console.log(
      `legit cached credential: quiet p50 ${pct(quiet, 0.5).toFixed(2)} ms p99 ${pct(quiet, 0.99).toFixed(2)} ms; ` +
        `during a 16-connection flood p50 ${pct(during, 0.5).toFixed(2)} ms p99 ${pct(during, 0.99).toFixed(2)} ms; ` +
        `flood answers ${JSON.stringify(Object.fromEntries(codes))}, secret hashes run ${verified}; ` +
        `a new credential's first request during the flood ${firstRequestMs.toFixed(1)} ms`,
    );
    // The flood was refused before hashing after its budget (30 a minute from its address).
    expect(codes.get(429) ?? 0).toBeGreaterThan(codes.get(401) ?? 0);
    // 30 failures a minute from the flood's address, plus what was already in flight.
    expect(verified).toBeLessThanOrEqual(60);
    // The hash counts above are the guarantee. The new credential's first-request time is printed
    // above, not bounded: attacker, server and this client share one busy process here.
    // The legitimate requests were never verified again (100 of them, fewer verifications than
    // that in all). Their latency is printed, not bounded: attacker, server and this client share
    // one event loop here, so it measures the flood's own load on this process (with scrypt the
    // attackers' first guesses queued for hashing slots and the sample partly missed the flood;
    // with HMAC they are answered at once). Speed belongs in `npm run bench`.
    expect(verified).toBeLessThan(during.length);
  });
});
