import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Run, partner as runBinary } from '../bin/harness.js';
import { startWithProfile } from '../helpers/profile.js';
import { call, type TestServer } from '../helpers/server.js';
import { freshBrand } from '../server/menus-helpers.js';
import { tempDir } from './run-cli.js';

// The small things of issue 21's "Cosmetic" paragraph, through the built binary against a real
// server: each was seen wrong by a newcomer at a terminal.

const root = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = join(root, 'docs/examples/menu.sample.yaml');

let s: TestServer;
let configDir: string;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/cli.js'))) {
    const b = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
  }
  ({ s, configDir } = await startWithProfile());
}, 60_000);
afterAll(async () => {
  await s?.close();
});

/** The built binary with the local profile (or another config dir); a hang ends the test after 30 s. */
function partner(args: string[], o: { configDir?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return runBinary(args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: o.configDir ?? configDir,
      PARTNER_CONFIG_DIR: o.configDir ?? configDir,
      PARTNER_KEYRING: 'off',
      PARTNER_OPERATOR_URL: s.baseUrl,
      PARTNER_OPERATOR_TOKEN: s.operatorToken,
      ...o.env,
    },
    cwd: process.cwd(),
    timeoutMs: 30_000,
  });
}

describe('orders patch --reason', () => {
  it('with a status other than CANCELLED is refused (exit 2), not silently dropped', async () => {
    const r = await partner(['orders', 'patch', '1', '--status', 'DELIVERED', '--reason', 'x']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--reason goes only with --status CANCELLED/);
  });
});

describe('operator credentials rotate --grace', () => {
  it('takes a duration as other flags do (1m = 60 s)', async () => {
    const issued = await s.issueCredential({ businessId: 1, scopes: ['orders:read'] });
    const r = await partner(['operator', 'credentials', 'rotate', issued.key, '--grace', '1m', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.key).toBe(issued.key);
    // The old secret still works within the grace period.
    const old = await call(s, 'GET', '/v1/partner/orders/statuses', { cred: issued });
    expect(old.status).toBe(200);
  });

  it('still takes bare seconds, and refuses what is no duration (exit 2)', async () => {
    const issued = await s.issueCredential({ businessId: 1, scopes: ['orders:read'] });
    expect((await partner(['operator', 'credentials', 'rotate', issued.key, '--grace', '0'])).code).toBe(0);
    const bad = await partner(['operator', 'credentials', 'rotate', issued.key, '--grace', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--grace expects/);
  });
});

describe('profiles use NAME of no profile', () => {
  it('lists the profiles there are', async () => {
    const r = await partner(['profiles', 'use', 'nosuch']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no profile named "nosuch"; the profiles are: local/);
  });
});

describe('menu diff: an unlinked item is named by its key, not #id', () => {
  it('an item taken out of the file', async () => {
    const { brandId } = await freshBrand(s);
    const dir = tempDir('partner-menu-');
    const file = join(dir, 'menu.yaml');
    writeFileSync(file, readFileSync(SAMPLE, 'utf8'));
    const push = await partner(['menu', 'push', file, '--brand', String(brandId), '--yes']);
    expect(push.code, push.stderr).toBe(0);
    writeFileSync(
      file,
      readFileSync(SAMPLE, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('key: es-teh'))
        .join('\n'),
    );
    const d = await partner(['menu', 'diff', file, '--brand', String(brandId)]);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toContain('- unlink item es-teh from category cold');
    expect(d.stdout).not.toMatch(/#\d/);
  });
});

describe('errors and their hints', () => {
  it('trigger on an order the profile cannot see: error first, then the hint', async () => {
    const r = await partner(['trigger', 'order.status', '--order', '999999'], {
      env: { PARTNER_DATA_DIR: s.dataDir },
    });
    expect(r.code).toBe(4);
    const error = r.stderr.indexOf('error:');
    const hint = r.stderr.indexOf('hint:');
    expect(error, r.stderr).toBeGreaterThanOrEqual(0);
    expect(hint, r.stderr).toBeGreaterThan(error);
  });

  it('a wrong operator token gets the operator-token hint, not the partner-key one', async () => {
    const r = await partner(['operator', 'businesses', 'list', '--server', s.baseUrl, '--token', 'wrong']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/hint: the operator token is wrong/);
    expect(r.stderr).not.toMatch(/key or secret/);
  });
});

describe('local start --data NEWDIR on a port in use', () => {
  it('exits 2 and leaves no NEWDIR behind', async () => {
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const newDir = join(tempDir('partner-local-'), 'fresh', 'data');
      const r = await partner(['local', 'start', '--data', newDir, '--port', String(port)]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`port ${port} .*in use`));
      expect(existsSync(newDir)).toBe(false);
      expect(existsSync(join(newDir, '..'))).toBe(false);
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
  });
});
