import { describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/cli/profiles.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { spawnPartner, tempDir, onDemoServer } from './harness.js';

// A 429 at a terminal: the person sees why the command sits still, not only a spinner.

let s: TestServer;
onDemoServer((server) => {
  s = server;
});

describe('rate limited at a terminal', () => {
  it('says "rate limited (429), waiting 1 s before retrying" on the screen, then succeeds', async () => {
    // The server's clock stands still while the CLI is refused: its bucket cannot refill under
    // the CLI's feet however slow the machine (a drain loop raced the refill under load). It moves
    // on once the refusal is on the screen; the CLI retries up to 3 times, 1 s apart.
    let clock = Date.now();
    const own = await startTestServer({ seed: 'demo', now: () => clock });
    try {
      // 60 per minute: Retry-After is 1 s once the bucket is empty.
      const cred = await own.issueCredential({
        businessId: own.credential.businessId,
        scopes: ['brands:read'],
        rateLimit: 60,
      });
      const configDir = tempDir('partner-pty-cfg-');
      openProfiles({ configDir }).save({ name: 'limited', base_url: own.baseUrl, ...cred });
      let status = 0;
      for (let i = 0; i < 100 && status !== 429; i++)
        status = (await call(own, 'GET', '/v1/partner/brands', { cred })).status;
      expect(status).toBe(429);
      const t = spawnPartner(['brands', 'list'], { configDir });
      await t.waitFor(/rate limited \(429\), waiting 1 s before retrying/);
      clock += 60_000;
      expect(await t.exit()).toBe(0);
      const text = t.history().join('\n');
      expect(text).toMatch(/ID\s+TITLE/);
      expect(text).not.toMatch(/error/);
    } finally {
      await own.close();
    }
  }, 120_000);
});

describe('a paged read paced under the rate limit at a terminal', () => {
  it('keeps one line that says the page and the wait, instead of a new "pacing" line per request', async () => {
    // 20 per minute: one token every 3 s, so each page after the first waits for one.
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['brands:read'],
      rateLimit: 20,
    });
    const configDir = tempDir('partner-pty-cfg-');
    openProfiles({ configDir }).save({ name: 'paced', base_url: s.baseUrl, ...cred });
    // Empty the bucket: the first page waits out a 429, the pacer then waits for each next one.
    for (let i = 0; i < 10; i++) {
      const r = await Promise.all(
        Array.from({ length: 10 }, () => call(s, 'GET', '/v1/partner/brands', { cred })),
      );
      if (r.some((x) => x.status === 429)) break;
    }
    const t = spawnPartner(['branches', 'list', '--all', '--size', '1'], { configDir });
    await t.waitFor(/page 2 of 3 · pacing at 20\/min, waiting \d s/, 30_000);
    await t.waitFor(/page 3 of 3/, 30_000);
    expect(await t.exit(30_000)).toBe(0);
    // The waits were said on the spinner's line, which is gone: none left on the screen as a line.
    expect(t.history().filter((l) => /pacing/.test(l))).toEqual([]);
    expect(t.history().join('\n')).toMatch(/Kopi Kita Senopati/);
  }, 60_000);
});
