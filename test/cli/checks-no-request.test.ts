import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Run, partner as runBinary } from '../bin/harness.js';
import { startProxy } from '../helpers/proxy.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { profileDir } from './run-cli.js';

// Issue 21 point 10: checks docs/cli.md promises "before any request" are made before any
// request. The built binary talks to a real server through a counting proxy: a refused command
// exits 2 naming the flag and the proxy saw nothing (a command that passes the checks is seen,
// so the proxy does count).

const root = fileURLToPath(new URL('../../', import.meta.url));

let s: TestServer;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let configDir: string;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/cli.js'))) {
    const b = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
  }
  s = await startTestServer({ seed: 'demo' });
  proxy = await startProxy(s.baseUrl);
  configDir = profileDir(proxy.url, s.credential);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await s?.close();
});
beforeEach(() => {
  proxy.log.length = 0;
});

/** The built binary against the proxy, with the local profile; a hang ends the test after 20 s. */
function partner(args: string[]): Promise<Run> {
  return runBinary(args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: configDir,
      PARTNER_CONFIG_DIR: configDir,
      PARTNER_KEYRING: 'off',
      // Where `operator …` goes (docs/cli.md): the proxy too.
      PARTNER_OPERATOR_URL: proxy.url,
      PARTNER_OPERATOR_TOKEN: s.operatorToken,
    },
    cwd: process.cwd(),
    timeoutMs: 20_000,
  });
}

const past = new Date(Date.now() - 3_600_000).toISOString();

describe('refused before any request (exit 2, the flag named, nothing sent)', () => {
  it.each([
    [['orders', 'list', '--from', '2024-02-30'], /--from/],
    [['orders', 'list', '--to', '2024-02-30T10:00:00Z'], /--to/],
    [['orders', 'list', '--from', '2024-13-01'], /--from/],
    [['orders', 'list', '--status', 'BOGUS'], /--status.*BOGUS/],
    [['orders', 'list', '--from', '2024-01-01', '--to', '2024-06-01'], /--from.*--to.*90 days/],
    [['orders', 'list', '--from', '2024-05-02', '--to', '2024-05-01'], /--from.*after.*--to/],
    [['orders', 'list', '--from', '100d'], /--from.*90 days/],
    [['items', 'snooze', 'SKU-1', '--branch', '1', '--until', past], /--until.*past/],
    [['items', 'snooze', 'SKU-1', '--branch', '1', '--until', 'tomorrow'], /--until/],
    [['operator', 'orders', 'status', '25', 'nosuch'], /STATUS.*nosuch/],
    [['orders', 'watch', '--max-polls', '0'], /--max-polls/],
  ])('partner %j', async (args, message) => {
    const r = await partner(args as string[]);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(/request_invalid|request_id/);
    expect(proxy.log).toEqual([]);
  });
});

describe('what passes the checks reaches the server', () => {
  it.each([
    [['orders', 'list', '--from', '2024-02-29', '--to', '2024-03-01']],
    [['orders', 'list', '--status', 'accepted,4', '--from', '7d']],
    [['operator', 'orders', 'status', '1', 'picked_up']],
  ])('partner %j', async (args) => {
    const r = await partner(args as string[]);
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.log.length).toBeGreaterThan(0);
  });
});

describe('orders watch --branch of no branch', () => {
  it('says so and ends (exit 4) instead of polling forever', async () => {
    const r = await partner(['orders', 'watch', '--branch', '99', '--json']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/--branch 99/);
    expect(r.stderr).toMatch(/no such branch|not found/i);
    // One look at the branch, no poll of the orders.
    expect(proxy.log.map((e) => e.path.split('?')[0])).not.toContain('/v1/partner/orders');
  });

  it('a branch that exists is watched (--max-polls 1 ends it)', async () => {
    const r = await partner(['orders', 'watch', '--branch', '1', '--json', '--max-polls', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.log.map((e) => e.path.split('?')[0])).toContain('/v1/partner/orders');
  });
});
