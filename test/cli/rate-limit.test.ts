import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { profileDir, runCli } from './run-cli.js';

// What the CLI says and does about a 429 against the real server.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
});
afterAll(async () => {
  await s?.close();
});

describe('rate limited', () => {
  it('at 1 request per minute: exit 6 at once, and the hint does not claim a retry that did not happen', async () => {
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['brands:read'],
      rateLimit: 1,
    });
    const configDir = profileDir(s.baseUrl, cred);
    expect((await runCli(['brands', 'list'], { configDir })).code).toBe(0);
    const started = Date.now();
    const r = await runCli(['brands', 'list'], { configDir });
    // Not retried: the server asks for about a minute, so a retry could not end before 30 s.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('rate limit of 1 request per minute exceeded');
    expect(r.stderr).toMatch(
      /hint: not retried: the server asks to wait (\d+ s|1 min), longer than the 30 s/,
    );
    expect(r.stderr).not.toMatch(/already retried/);
  });
});
