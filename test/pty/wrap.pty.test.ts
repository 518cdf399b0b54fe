import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/cli/profiles.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { cleanup, ensureBuilt, type PtySession, root, spawnPartner, tempDir } from './harness.js';

// Messages at a real 80-column terminal break at word boundaries (issue 21, Cosmetic): no row of
// the screen ends inside a word that goes on at the start of the next row.

let s: TestServer;
beforeAll(async () => {
  ensureBuilt();
  s = await startTestServer({ seed: 'demo' });
}, 60_000);
afterAll(async () => {
  await s?.close();
});
afterEach(() => cleanup());

function localProfile(): string {
  const dir = tempDir('partner-pty-cfg-');
  openProfiles({ configDir: dir }).save({
    name: 'local',
    base_url: s.baseUrl,
    key: s.credential.key,
    secret: s.credential.secret,
  });
  return dir;
}

/** Rows the terminal continued from the row above in the middle of a word. */
function midWordBreaks(t: PtySession): string[] {
  const lines = t.history();
  return t
    .wrappedRows(true)
    .filter((y) => y > 0 && /\S$/.test(lines[y - 1] ?? '') && /^\S/.test(lines[y] ?? ''))
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
    expect(midWordBreaks(t), t.history().join('\n')).toEqual([]);
  });

  it('the menu diff summary', async () => {
    const t = await run(
      ['menu', 'diff', 'test/fixtures/menu.sample.yaml', '--brand', '1', '--no-pager'],
      localProfile(),
    );
    expect(t.history().join('\n')).toMatch(/\S/);
    expect(midWordBreaks(t), t.history().join('\n')).toEqual([]);
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
    expect(midWordBreaks(t), t.history().join('\n')).toEqual([]);
  });

  it('the orders watch summary', async () => {
    const t = await run(
      ['orders', 'watch', '--since', '1h', '--max-polls', '1', '--no-pager'],
      localProfile(),
    );
    expect(midWordBreaks(t), t.history().join('\n')).toEqual([]);
  });
});
