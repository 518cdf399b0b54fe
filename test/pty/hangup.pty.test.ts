import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { spawnPartner, tempDir, localProfile, onDemoServer } from './harness.js';

// A foreground command whose terminal window is closed (SIGHUP, then EIO on every write) cleans
// up as Ctrl-C does: `listen --local` removes its registration, `local start` releases its lock.

let s: TestServer;
onDemoServer((server) => {
  s = server;
});

/** Waits (bounded) for the process to be gone. */
async function gone(t: { running(): boolean }, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (t.running()) {
    if (Date.now() > end) throw new Error(`still running ${ms} ms after the hang-up`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the terminal closed', { timeout: 120_000 }, () => {
  it('listen --local removes its registration', async () => {
    const configDir = localProfile(s);
    const t = spawnPartner(['listen', '--local', '--port', '0'], {
      configDir,
      env: { PARTNER_DATA_DIR: s.dataDir },
      cols: 160,
    });
    await t.waitFor(/Listening on \S+ \(registered as webhook \d+/, 30_000);
    const id = Number(/registered as webhook (\d+)/.exec(t.raw)![1]);
    const ids = async () =>
      ((await s.operator('GET', '/v1/operator/webhooks')).body.data as { id: number }[]).map((w) => w.id);
    expect(await ids()).toContain(id);
    t.hangUp();
    await gone(t);
    expect(await ids()).not.toContain(id);
  });

  it('local start releases its lock and stops', async () => {
    const data = tempDir('partner-pty-data-');
    const t = spawnPartner(['local', 'start', '--port', '0', '--data', data], { cols: 160 });
    await t.waitFor(/Ctrl-C/, 60_000);
    expect(existsSync(join(data, 'server.lock'))).toBe(true);
    t.hangUp();
    await gone(t);
    expect(existsSync(join(data, 'server.lock'))).toBe(false);
  });
});
