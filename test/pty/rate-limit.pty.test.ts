import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/cli/profiles.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { cleanup, ensureBuilt, spawnPartner, tempDir } from './harness.js';

// A 429 at a terminal: the person sees why the command sits still, not only a spinner.

let s: TestServer;
beforeAll(async () => {
  ensureBuilt();
  s = await startTestServer({ seed: 'demo' });
}, 60_000);
afterAll(async () => {
  await s?.close();
});
afterEach(() => cleanup());

describe('rate limited at a terminal', () => {
  it('says "rate limited (429), waiting 1 s before retrying" on the screen, then succeeds', async () => {
    // 60 per minute: Retry-After is 1 s once the bucket is empty.
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['brands:read'],
      rateLimit: 60,
    });
    const configDir = tempDir('partner-pty-cfg-');
    openProfiles({ configDir }).save({ name: 'limited', base_url: s.baseUrl, ...cred });
    // Empty the bucket, then keep it empty until the CLI has been refused once.
    for (let i = 0; i < 20; i++) {
      const r = await Promise.all(
        Array.from({ length: 10 }, () => call(s, 'GET', '/v1/partner/brands', { cred })),
      );
      if (r.some((x) => x.status === 429)) break;
    }
    let draining = true;
    const drain = (async () => {
      while (draining) {
        await Promise.all(Array.from({ length: 10 }, () => call(s, 'GET', '/v1/partner/brands', { cred })));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      const t = spawnPartner(['brands', 'list'], { configDir });
      await t.waitFor(/rate limited \(429\), waiting 1 s before retrying/, 8000);
      draining = false;
      await drain;
      expect(await t.exit(8000)).toBe(0);
      const text = t.history().join('\n');
      expect(text).toMatch(/ID\s+TITLE/);
      expect(text).not.toMatch(/error/);
    } finally {
      draining = false;
      await drain;
    }
  }, 20_000);
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
    await t.waitFor(/page 2 of 3 · pacing at 20\/min, waiting \d s/, 15_000);
    await t.waitFor(/page 3 of 3/, 15_000);
    expect(await t.exit(15_000)).toBe(0);
    // The waits were said on the spinner's line, which is gone: none left on the screen as a line.
    expect(t.history().filter((l) => /pacing/.test(l))).toEqual([]);
    expect(t.history().join('\n')).toMatch(/Kopi Kita Senopati/);
  }, 60_000);
});
