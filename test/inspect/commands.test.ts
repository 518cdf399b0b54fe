import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/cli/profiles.js';
import { runCli } from '../cli/run-cli.js';
import { startWithProfile } from '../helpers/profile.js';
import type { TestServer } from '../helpers/server.js';
import { ensureBuilt, startInProcess, tempDir } from './harness.js';

// The three ways to the page: `partner inspect`, `local start --inspect`, `listen --inspect`;
// --open, and ports in use.

let s: TestServer;
let configDir: string;
beforeAll(async () => {
  ensureBuilt();
  ({ s, configDir } = await startWithProfile());
}, 60_000);
afterAll(async () => {
  await s?.close();
});

const info = async (origin: string, token: string) =>
  (await (await fetch(`${origin}/api/info`, { headers: { 'x-inspect-token': token } })).json()) as Record<
    string,
    unknown
  >;

/** A port something else listens on. */
async function busyPort(): Promise<{ port: number; close(): void }> {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  return { port: (blocker.address() as { port: number }).port, close: () => blocker.close() };
}

describe('local start --inspect', () => {
  it('serves the page beside the server: its deliveries, and the menu with profile local', async () => {
    const data = tempDir('partner-data-');
    const cfg = tempDir('partner-cfg-');
    const r = await startInProcess(
      ['local', 'start', '--seed', 'demo', '--port', '0', '--data', data, '--inspect'],
      {
        configDir: cfg,
      },
    );
    try {
      expect(r.out()).toMatch(/^ {2}inspect: {2}http:\/\/127\.0\.0\.1:\d+\/\?token=/m);
      const i = await info(r.origin, r.token);
      expect(i.mode).toBe('local');
      const local = JSON.parse(readFileSync(join(data, 'local.json'), 'utf8'));
      expect(i.local).toEqual({ base_url: local.base_url, error: null });
      const key = openProfiles({ configDir: cfg }).get('local')!.key;
      expect(i.menu).toEqual({ base_url: local.base_url, key, error: null });
      const menu = await fetch(`${r.origin}/api/menu?brand_id=1&branch_id=1`, {
        headers: { 'x-inspect-token': r.token },
      });
      expect(menu.status).toBe(200);
    } finally {
      expect(await r.stop()).toBe(0);
    }
    // Stopped with the server: nothing answers there any more.
    await expect(fetch(`${r.origin}/api/info`)).rejects.toThrow();
  });

  it('an inspect port in use: exit 2 naming --inspect-port, and the data dir is free again', async () => {
    const busy = await busyPort();
    const data = tempDir('partner-data-');
    try {
      const r = await runCli(
        ['local', 'start', '--port', '0', '--data', data, '--inspect', '--inspect-port', String(busy.port)],
        { configDir: tempDir(), untilStopped: () => new Promise(() => undefined) },
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `error: --inspect-port ${busy.port} is in use: pass --inspect-port N (0 picks a free one)\n`,
      );
      expect(existsSync(join(data, 'server.lock'))).toBe(false);
    } finally {
      busy.close();
    }
  });
});

describe('partner inspect', () => {
  it('--open starts $BROWSER with the URL', async () => {
    // The stand-in browser sends its argument to this socket: the test waits on that, not on a file.
    const got: string[] = [];
    let opened!: (url: string) => void;
    const openedWith = new Promise<string>((r) => {
      opened = r;
    });
    const sink = createServer((c) => {
      c.setEncoding('utf8');
      c.on('data', (d: string) => got.push(d));
      c.on('end', () => opened(got.join('')));
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    const port = (sink.address() as { port: number }).port;
    const browser = join(tempDir(), 'browser.cjs');
    writeFileSync(
      browser,
      `#!${process.execPath}\nrequire('node:net').connect(${port}, '127.0.0.1', function () { this.end(process.argv[2]); });\n`,
    );
    chmodSync(browser, 0o755);
    const r = await startInProcess(['inspect', '--data', s.dataDir, '--open'], {
      configDir,
      env: { BROWSER: browser },
    });
    try {
      expect(await openedWith).toBe(r.url);
      expect(r.err()).not.toContain('could not open');
    } finally {
      sink.close();
      expect(await r.stop()).toBe(0);
    }
  });

  it('--open without a browser says so and serves the page all the same', async () => {
    const r = await startInProcess(['inspect', '--data', s.dataDir, '--open'], {
      configDir,
      env: { BROWSER: join(tempDir(), 'no-such-browser') },
    });
    try {
      await r.waitFor(
        /could not open a browser \(.*no-such-browser not found\): open the URL above yourself/,
      );
      expect((await info(r.origin, r.token)).mode).toBe('inspect');
    } finally {
      expect(await r.stop()).toBe(0);
    }
  });

  it('a port in use is a usage error naming --port', async () => {
    const busy = await busyPort();
    try {
      const r = await runCli(['inspect', '--data', s.dataDir, '--port', String(busy.port)], { configDir });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`error: --port ${busy.port} is in use: pass --port N (0 picks a free one)\n`);
    } finally {
      busy.close();
    }
    const bad = await runCli(['inspect', '--data', s.dataDir, '--port', 'x'], { configDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: --port must be 0–65535, got "x"\n');
  });
});

describe('listen --inspect', () => {
  it('prints the page on stderr, keeps stdout for events, and reads without --local only what listen gets', async () => {
    const r = await startInProcess(['listen', '--secret', 'whsec_x', '--port', '0', '--inspect', '--json'], {
      configDir,
    });
    try {
      await r.waitFor(/Listening on/);
      expect(r.out()).toBe('');
      expect(r.err()).toMatch(/^Inspect: http:\/\/127\.0\.0\.1:\d+\/\?token=/m);
      const i = await info(r.origin, r.token);
      expect(i.mode).toBe('listen');
      expect(i.local).toBeNull();
      expect((i.listen as { url: string }).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    } finally {
      expect(await r.stop()).toBe(0);
    }
  });

  it('--inspect-port must be a port', async () => {
    const r = await runCli(
      ['listen', '--secret', 'whsec_x', '--port', '0', '--inspect', '--inspect-port', '70000'],
      {
        configDir,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --inspect-port must be 0–65535, got "70000"\n');
  });
});
