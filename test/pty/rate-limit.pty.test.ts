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
