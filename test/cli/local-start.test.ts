import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './run-cli.js';

// `partner local start` as the built binary, in real processes: one server per data dir (a second
// start is refused and changes nothing; the lock of a server killed with -9 is taken over), and
// a port in use is a usage error like any other.

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/partner.js');

interface Started {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];

function env(configDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: tempDir('partner-home-'),
    PARTNER_CONFIG_DIR: configDir,
    ...extra,
  };
}

/** Starts a server and resolves once it prints its URL (at most 15 s). */
function start(args: string[], configDir: string, extra: NodeJS.ProcessEnv = {}): Promise<Started> {
  const child = spawn(process.execPath, [bin, 'local', 'start', ...args], {
    env: env(configDir, extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 15 s:\n${out}\n${err}`)), 15_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, stdout: () => out, stderr: () => err, exited });
      }
    };
    child.stdout!.on('data', check);
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${e.code} before listening:\n${out}\n${err}`));
    });
  });
}

/** Runs `partner local start …` to its end (at most 15 s). */
function run(
  args: string[],
  configDir: string,
  extra: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, 'local', 'start', ...args], {
    env: env(configDir, extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`did not exit within 15 s:\n${stdout}\n${stderr}`));
    }, 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(() => {
  if (!existsSync(join(root, 'dist/cli.js'))) {
    const b = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
  }
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

describe('partner local start: one server per data dir', () => {
  it('a second start on the same data dir exits 2 naming the running server, and changes nothing', async () => {
    const data = tempDir('partner-data-');
    const config = tempDir('partner-cfg-');
    const first = await start(['--port', '0', '--data', data, '--seed', 'demo'], config);
    const profiles = readFileSync(join(config, 'config.json'), 'utf8');
    const local = readFileSync(join(data, 'local.json'), 'utf8');
    expect(JSON.parse(profiles).profiles.local.base_url).toBe(first.url);

    // What the "port in use" hint used to lead to: another port, same data dir.
    const second = await run(['--port', '0', '--data', data, '--seed', 'demo'], config);
    expect(second.code).toBe(2);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(
      new RegExp(
        `^error: already served at ${first.url.replace(/\./g, '\\.')} \\(pid ${first.child.pid}\\): `,
      ),
    );
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(join(config, 'config.json'), 'utf8')).toBe(profiles);
    expect(readFileSync(join(data, 'local.json'), 'utf8')).toBe(local);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);

    // Stopped cleanly: the lock goes with it, and the next start needs no recovery.
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(existsSync(join(data, 'server.lock'))).toBe(false);
    const third = await start(['--port', '0', '--data', data], config);
    expect(third.stderr()).not.toMatch(/took over/);
    third.child.kill('SIGTERM');
    expect((await third.exited).code).toBe(0);
  });

  it('the lock of a server killed with -9 is taken over by the next start', async () => {
    const data = tempDir('partner-data-');
    const config = tempDir('partner-cfg-');
    const first = await start(['--port', '0', '--data', data, '--seed', 'demo'], config);
    const pid = first.child.pid!;
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(JSON.parse(readFileSync(join(data, 'server.lock'), 'utf8'))).toMatchObject({
      pid,
      url: first.url,
    });

    const again = await start(['--port', '0', '--data', data], config);
    expect(again.stderr()).toContain(`took over the lock of a server that is gone (pid ${pid})`);
    expect(JSON.parse(readFileSync(join(data, 'server.lock'), 'utf8'))).toMatchObject({
      pid: again.child.pid,
      url: again.url,
    });
    // The profile follows the server that runs now.
    expect(JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')).profiles.local.base_url).toBe(
      again.url,
    );
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  });

  it('a port in use exits 2 in the same error format as every other CLI error, leaving no lock', async () => {
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const data = tempDir('partner-data-');
      const r = await run(['--port', String(port), '--data', data], tempDir('partner-cfg-'));
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `error: port ${port} on 127.0.0.1 is in use; pass --port N (0 picks a free one)\n`,
      );
      expect(existsSync(join(data, 'server.lock'))).toBe(false);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });

  it('the next steps it prints can be typed as shown: `npx partner …` from a clone, `partner …` when on PATH', async () => {
    const data = tempDir('partner-data-');
    // PATH without partner on it (a fresh clone): npx finds the package's bin.
    const noBin = { PATH: dirname(process.execPath) };
    const clone = await start(
      ['--port', '0', '--data', data, '--seed', 'demo'],
      tempDir('partner-cfg-'),
      noBin,
    );
    expect(clone.stdout()).toContain('\n  npx partner brands list\n');
    expect(clone.stdout()).toContain(`\n  npx partner operator businesses list --data ${data}\n`);
    expect(clone.stdout()).not.toMatch(/^ {2}partner /m);
    clone.child.kill('SIGTERM');
    await clone.exited;
    // `npm link` or a global install: `partner` on PATH is this very script.
    const binDir = tempDir('partner-bin-');
    symlinkSync(bin, join(binDir, 'partner'));
    const linked = await start(['--port', '0', '--data', data], tempDir('partner-cfg-'), {
      PATH: `${binDir}${delimiter}${dirname(process.execPath)}`,
    });
    expect(linked.stdout()).toContain('\n  partner brands list\n');
    expect(linked.stdout()).not.toContain('npx');
    linked.child.kill('SIGTERM');
    await linked.exited;
  });

  it('a bad --retry-schedule is a usage error naming the flag', async () => {
    const r = await run(
      ['--retry-schedule', '1s,soon', '--data', tempDir('partner-data-')],
      tempDir('partner-cfg-'),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --retry-schedule: "soon" is not a duration such as 500ms, 10s, 5m or 2h\n');
  });

  it('a --database (or PARTNER_DATABASE_URL) that is not a postgres:// URL is a usage error naming its source, writing nothing', async () => {
    const data = tempDir('partner-data-');
    const flag = await run(['--database', 'mysql://u:p@h/db', '--data', data], tempDir('partner-cfg-'));
    expect([flag.code, flag.stderr]).toEqual([
      2,
      'error: --database must be a postgres:// or postgresql:// URL\n',
    ]);
    const envd = await run(['--data', data], tempDir('partner-cfg-'), {
      PARTNER_DATABASE_URL: 'file:partner.db',
    });
    expect([envd.code, envd.stderr]).toEqual([
      2,
      'error: PARTNER_DATABASE_URL must be a postgres:// or postgresql:// URL\n',
    ]);
    for (const f of ['server.lock', 'local.json', 'partner.db'])
      expect(existsSync(join(data, f)), f).toBe(false);
  });

  it('a PostgreSQL it cannot reach is a clear error that never shows the password', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const a = srv.address();
        srv.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
      });
    });
    const r = await run(
      [
        '--database',
        `postgres://partner:s3cret-pw@127.0.0.1:${port}/partner`,
        '--data',
        tempDir('partner-data-'),
      ],
      tempDir('partner-cfg-'),
      // The shared secrets PostgreSQL requires, so the start gets as far as connecting.
      {
        PARTNER_SEAL_KEY: Buffer.alloc(32, 5).toString('base64'),
        PARTNER_OPERATOR_TOKEN: 'op_cli_test_0123456789abcdef',
      },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^error: could not start the local server: .*ECONNREFUSED/);
    expect(r.stderr + r.stdout).not.toContain('s3cret-pw');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('partner local start: the profile belongs to the server of one data dir', () => {
  // Four servers started one after another: bounded generously, the machine may be busy.
  it('a second --seed demo on another data dir saves profile local-2 and never takes over local', {
    timeout: 90_000,
  }, async () => {
    const config = tempDir('partner-cfg-');
    const dirA = tempDir('partner-data-');
    const dirB = tempDir('partner-data-');
    const profilesOf = () => JSON.parse(readFileSync(join(config, 'config.json'), 'utf8'));
    const first = await start(['--port', '0', '--data', dirA, '--seed', 'demo'], config);
    const local = profilesOf().profiles.local;
    expect(local.base_url).toBe(first.url);

    const second = await start(['--port', '0', '--data', dirB, '--seed', 'demo'], config);
    expect(second.stdout()).toMatch(/^ {2}profile: {2}local-2 → pk_\S+ \(business 1\), saved to /m);
    expect(second.stdout()).toContain('use this one with --profile local-2');
    let after = profilesOf();
    expect(after.profiles.local).toEqual(local);
    expect(after.default).toBe('local');
    expect(after.profiles['local-2'].base_url).toBe(second.url);

    // Restarted without a seed, the second server refreshes its own profile, not local.
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    const again = await start(['--port', '0', '--data', dirB], config);
    expect(again.stdout()).toMatch(/^ {2}profile: {2}local-2 → pk_\S+, base URL /m);
    after = profilesOf();
    expect(after.profiles.local).toEqual(local);
    expect(after.profiles['local-2'].base_url).toBe(again.url);

    // A fresh seed of the first data dir (emptied) is still profile local.
    for (const s of [first, again]) {
      s.child.kill('SIGTERM');
      expect((await s.exited).code).toBe(0);
    }
    rmSync(dirA, { recursive: true, force: true });
    const reseeded = await start(['--port', '0', '--data', dirA, '--seed', 'demo'], config);
    expect(reseeded.stdout()).toMatch(/^ {2}profile: {2}local → /m);
    expect(profilesOf().profiles.local.base_url).toBe(reseeded.url);
    reseeded.child.kill('SIGTERM');
    await reseeded.exited;
  });
});
