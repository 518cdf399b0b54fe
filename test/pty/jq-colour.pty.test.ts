import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { cleanup, ensureBuilt, spawnPartner, localProfile } from './harness.js';

// `--jq` at a terminal is coloured as jq colours at a terminal (jq's own -C); never when piped,
// with NO_COLOR or with --no-color. Strings stay raw (jq -r), as before.

let s: TestServer;
let configDir: string;
beforeAll(async () => {
  ensureBuilt();
  s = await startTestServer({ seed: 'demo' });
}, 60_000);
// A profile per test: the harness's cleanup removes its temp dirs after each.
beforeEach(() => {
  configDir = localProfile(s);
});
afterAll(async () => {
  await s?.close();
});
afterEach(() => cleanup());

const ESC = '\u001b[';

describe('--jq colours', { timeout: 120_000 }, () => {
  it('at a terminal: the keys and strings of a JSON result coloured', async () => {
    const t = spawnPartner(['brands', 'list', '--no-pager', '--jq', '.[0].brands[0] | {id, title}'], {
      configDir,
    });
    expect(await t.exit(30_000)).toBe(0);
    // jq's own colours: object keys bold blue (1;34), strings green (0;32).
    expect(t.raw).toContain(`${ESC}1;34m"id"`);
    expect(t.raw).toMatch(/\u001b\[0;32m"[^"]+"/);
    // What a person reads is the JSON itself.
    const text = t.history().join('\n');
    expect(text).toMatch(/"id": \d+,/);
    expect(text).toMatch(/"title": "[^"]+"/);
  });

  it('at a terminal, a string result stays raw (jq -r) and uncoloured', async () => {
    const t = spawnPartner(['brands', 'list', '--no-pager', '--jq', '.[0].brands[0].title'], { configDir });
    expect(await t.exit(30_000)).toBe(0);
    expect(t.raw).not.toContain(`${ESC}0;32m`);
    expect(t.history().join('\n')).not.toContain('"');
  });

  it('never with NO_COLOR or --no-color at a terminal', async () => {
    for (const [args, env] of [
      [['--no-color'], {}],
      [[], { NO_COLOR: '1' }],
    ] as const) {
      const t = spawnPartner(['brands', 'list', '--no-pager', ...args, '--jq', '.[0].brands[0]'], {
        configDir,
        env,
      });
      expect(await t.exit(30_000)).toBe(0);
      expect(t.raw).toMatch(/"id": \d+/);
      expect(t.raw).not.toContain(`${ESC}1;34m`);
    }
  });

  it('never when piped', async () => {
    const r = await runCli(['brands', 'list', '--jq', '.[0].brands[0]'], { configDir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\u001b');
    expect(JSON.parse(r.stdout).id).toEqual(expect.any(Number));
  });
});
