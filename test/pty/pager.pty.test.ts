import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { KEYS, type PtySession, root, spawnPartner, tempDir, localProfile, onDemoServer } from './harness.js';

// The pager at a real terminal (issue 15 point 6): the built binary under a pty, with the real
// `less -FRX` by default. `partner openapi` is the long output (600 kB, far beyond a pipe's
// buffer), `orders statuses --json` (355 lines) a long one from a real server; `profiles list`
// the short one.

let s: TestServer;
onDemoServer((server) => {
  s = server;
});

/** A config dir with one profile, so `profiles list` prints one short line. */
function withProfile(): string {
  const configDir = tempDir('partner-pty-cfg-');
  const r = spawnSync(
    process.execPath,
    [
      join(root, 'bin/partner.js'),
      'profiles',
      'add',
      'p1',
      '--key',
      'pk_1',
      '--secret',
      'sk_1',
      '--base-url',
      'http://127.0.0.1:1',
    ],
    { env: { PATH: process.env.PATH, PARTNER_CONFIG_DIR: configDir }, encoding: 'utf8' },
  );
  expect(r.status).toBe(0);
  return configDir;
}

/** The last line on screen once the pty has handed over everything (it may lag the exit a little). */
async function lastLine(t: PtySession, want: string): Promise<string | undefined> {
  const last = () =>
    t
      .screen()
      .filter((l) => l !== '')
      .at(-1);
  for (let i = 0; i < 100 && last() !== want; i++) await new Promise((r) => setTimeout(r, 50));
  return last();
}

const lessPrompt = (screen: string[]) => screen.at(-1) === ':';
// What a failure would print (the document itself contains the word "Error" in its schemas).
const FAILURE = /ENOENT|EPIPE|unexpected error|^error: /m;

describe('pager at a terminal', () => {
  it('long output from the API is paged the same way', async () => {
    const t = spawnPartner(['orders', 'statuses', '--json'], { rows: 10, configDir: localProfile(s) });
    const screen = await t.waitFor(lessPrompt, 30_000);
    expect(screen[0]).toBe('[');
    t.write('q');
    expect(await t.exit()).toBe(0);
  });

  it('--jq output at a terminal: indented, and paged when long', async () => {
    const t = spawnPartner(['orders', 'statuses', '--jq', '.[] | {id, status}'], {
      rows: 10,
      configDir: localProfile(s),
    });
    const screen = await t.waitFor(lessPrompt, 30_000);
    expect(screen.slice(0, 4)).toEqual(['{', '  "id": 1,', '  "status": "PLACED"', '}']);
    t.write('q');
    expect(await t.exit()).toBe(0);
  });

  it('long output opens less -FRX by default; q leaves it, exit 0, no error', async () => {
    const t = spawnPartner(['openapi']);
    const screen = await t.waitFor(lessPrompt, 30_000);
    expect(screen[0]).toBe('{');
    expect(screen[1]).toBe('  "openapi": "3.1.0",');
    // The command waits in the pager: it has not printed the whole document.
    expect(t.history().join('\n')).not.toContain('"components"');
    t.write('q');
    expect(await t.exit()).toBe(0);
    expect(t.raw).not.toMatch(FAILURE);
  });

  it('Ctrl-C inside less does not end the CLI under it: q still leaves with exit 0', async () => {
    const t = spawnPartner(['openapi']);
    await t.waitFor(lessPrompt, 30_000);
    t.write(KEYS.ctrlC);
    // less drops what was typed before it has handled the interrupt (a busy machine delays it:
    // a q sent 300 ms after the Ctrl-C was lost once, and less stayed): q again while it runs.
    for (let i = 0; i < 20 && t.running(); i++) {
      t.write('q');
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(await t.exit()).toBe(0);
    expect(t.raw).not.toMatch(FAILURE);
  });

  it('output that fits the screen is printed and the command ends (less -F)', async () => {
    const t = spawnPartner(['profiles', 'list', '--no-color'], { configDir: withProfile() });
    expect(await t.exit()).toBe(0);
    expect(t.screen().join('\n')).toMatch(/p1\s+http:\/\/127\.0\.0\.1:1\s+pk_1/);
  });

  it('--no-pager prints everything and ends without a key', async () => {
    const t = spawnPartner(['orders', 'statuses', '--json', '--no-pager'], {
      rows: 10,
      configDir: localProfile(s),
    });
    expect(await t.exit(10_000)).toBe(0);
    expect(await lastLine(t, ']')).toBe(']');
  });

  it('PARTNER_PAGER wins over PAGER; an empty one or cat means no pager', async () => {
    const env = { PARTNER_PAGER: 'sed s/^/P:/', PAGER: 'sed s/^/Q:/' };
    const t = spawnPartner(['profiles', 'list', '--no-color'], { configDir: withProfile(), env });
    expect(await t.exit()).toBe(0);
    expect(t.screen().join('\n')).toMatch(/^P:.*p1/m);

    const q = spawnPartner(['profiles', 'list', '--no-color'], {
      configDir: withProfile(),
      env: { PAGER: 'sed s/^/Q:/' },
    });
    expect(await q.exit()).toBe(0);
    expect(q.screen().join('\n')).toMatch(/^Q:.*p1/m);

    const offs: Record<string, string>[] = [{ PARTNER_PAGER: '', PAGER: 'sed s/^/Q:/' }, { PAGER: 'cat' }];
    for (const off of offs) {
      const o = spawnPartner(['profiles', 'list', '--no-color'], { configDir: withProfile(), env: off });
      expect(await o.exit()).toBe(0);
      expect(o.screen().join('\n')).toMatch(/\bp1\s+http/);
      expect(o.raw).not.toMatch(/[PQ]:/);
    }
  });

  it('a pager that is not installed: the output comes directly, with no error', async () => {
    const t = spawnPartner(['profiles', 'list', '--no-color'], {
      configDir: withProfile(),
      env: { PAGER: 'no-such-pager-xyz -R' },
    });
    expect(await t.exit()).toBe(0);
    expect(t.screen().join('\n')).toMatch(/\bp1\s+http/);
    expect(t.raw).not.toMatch(FAILURE);
    expect(t.raw).not.toContain('no-such-pager');
  });

  it('a pager that stops reading early (head) is not an error', async () => {
    const t = spawnPartner(['openapi'], { env: { PAGER: 'head -n 2' } });
    expect(await t.exit(10_000)).toBe(0);
    const text = t.history().join('\n');
    expect(text).toContain('"openapi": "3.1.0"');
    expect(text).not.toContain('"paths"');
    expect(t.raw).not.toMatch(FAILURE);
  });
});

describe('pager off a terminal', () => {
  it('piped stdout is never paged, whatever PAGER says', () => {
    const r = spawnSync(process.execPath, [join(root, 'bin/partner.js'), 'profiles', 'list'], {
      env: { PATH: process.env.PATH, PARTNER_CONFIG_DIR: withProfile(), PAGER: 'sed s/^/Q:/' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^p1\t/);
  });
});
