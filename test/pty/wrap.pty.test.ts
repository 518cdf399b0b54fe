import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { KEYS, type PtySession, root, spawnPartner, tempDir, localProfile, onDemoServer } from './harness.js';

// Messages at a real 80-column terminal break at word boundaries (issue 21, Cosmetic): the
// program wraps them itself, so the terminal never breaks a row (mid-word or before a space).

let s: TestServer;
onDemoServer((server) => {
  s = server;
});

/**
 * Rows the terminal broke itself (a line wider than the screen), shown as `above⏎below`: in the
 * middle of a word, or at a space that then starts the next row. The one allowed case is a single
 * token wider than the terminal (a long URL or path) on a row of its own.
 */
function terminalBreaks(t: PtySession): string[] {
  const lines = t.history();
  return t
    .wrappedRows(true)
    .filter((y) => y > 0 && /\s/.test(lines[y - 1]!.trim()))
    .map((y) => `${lines[y - 1]}⏎${lines[y]}`);
}

async function run(args: string[], configDir?: string): Promise<PtySession> {
  const t = spawnPartner(args, {
    cols: 80,
    rows: 60,
    configDir: configDir ?? tempDir('partner-pty-cfg-'),
    cwd: root,
  });
  await t.exit(20_000);
  return t;
}

describe('messages wrap at word boundaries on an 80-column terminal', () => {
  it('the help footer', async () => {
    const t = await run(['--help']);
    expect(t.history().join('\n')).toContain('Exit codes:');
    expect(terminalBreaks(t), t.history().join('\n')).toEqual([]);
  });

  it('the menu diff summary', async () => {
    const t = await run(
      ['menu', 'diff', 'test/fixtures/menu.sample.yaml', '--brand', '1', '--no-pager'],
      localProfile(s),
    );
    expect(t.history().join('\n')).toMatch(/\S/);
    expect(terminalBreaks(t), t.history().join('\n')).toEqual([]);
  });

  it('the auth login message', async () => {
    const t = await run([
      'auth',
      'login',
      '--name',
      'shop',
      '--key',
      s.credential.key,
      '--secret',
      s.credential.secret,
      '--base-url',
      s.baseUrl,
    ]);
    expect(t.history().join('\n')).toContain('Logged in');
    expect(terminalBreaks(t), t.history().join('\n')).toEqual([]);
  });

  it('the orders watch summary', async () => {
    const t = await run(
      ['orders', 'watch', '--since', '1h', '--max-polls', '1', '--no-pager'],
      localProfile(s),
    );
    expect(terminalBreaks(t), t.history().join('\n')).toEqual([]);
  });

  it('the listen start line and event header', async () => {
    const t = spawnPartner(['listen', '--local', '--port', '0'], {
      cols: 80,
      rows: 60,
      configDir: localProfile(s),
      env: { PARTNER_DATA_DIR: s.dataDir },
    });
    await t.waitFor('Ctrl-C stops', 30_000);
    const order = await s.operator('POST', '/v1/operator/orders', {
      business_id: s.credential.businessId,
      brand_id: 1,
      branch_id: 1,
      items: 1,
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    await t.waitFor('-->', 30_000);
    t.write(KEYS.ctrlC);
    await t.exit(20_000);
    expect(terminalBreaks(t), t.history().join('\n')).toEqual([]);
  });

  it('the menu get tree', async () => {
    const t = await run(['menu', 'get', '--brand', '1', '--branch', '1', '--no-pager'], localProfile(s));
    expect(t.history().join('\n')).toContain('section');
    expect(terminalBreaks(t), t.history().join('\n')).toEqual([]);
  });

  it('the demo narration', async () => {
    const t = spawnPartner(['demo'], { cols: 80, rows: 60, env: { PARTNER_KEYRING: 'off' } });
    expect(await t.exit(60_000)).toBe(0);
    expect(t.history().join('\n')).toMatch(/^1\. /m);
    expect(terminalBreaks(t), t.history().join('\n')).toEqual([]);
  });

  it('the profiles add message', async () => {
    const t = await run([
      'profiles',
      'add',
      'a-rather-long-profile-name',
      '--key',
      s.credential.key,
      '--secret',
      s.credential.secret,
      '--base-url',
      s.baseUrl,
    ]);
    expect(t.history().join('\n')).toContain('Saved profile');
    expect(terminalBreaks(t), t.history().join('\n')).toEqual([]);
  });

  it('piped, the same lines stay whole (scripts read them)', () => {
    const out = execFileSync(process.execPath, [join(root, 'bin/partner.js'), '--help'], {
      encoding: 'utf8',
      env: { ...process.env, COLUMNS: '80' },
    });
    expect(out).toContain(
      'Exit codes: 0 ok, 1 other, 2 usage, 3 auth, 4 not found, 5 conflict, 6 rate limited,\n',
    );
  });
});
