import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { cacheState, ensureBuilt, install as installAs, root, tempDir, BUSY_TIMEOUT } from './harness.js';

// The built binary compiles its hot chunk with a V8 code cache made by the build (bin/partner.js).
// V8 must accept the cache the build made; a damaged, foreign or missing one must only cost time;
// and an install nobody may write to must run without writing anything.

let s: TestServer;
beforeAll(async () => {
  ensureBuilt();
  s = await startTestServer({ seed: 'demo' });
}, 60_000);
afterAll(async () => {
  await s?.close();
});

/** A clean environment: no NODE_OPTIONS from the test runner (V8 flags decide whether a cache fits). */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: tempDir('partner-home-'),
    NO_COLOR: '1',
    ...extra,
  };
}

function node(
  args: string[],
  e: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The package as npm installs it, in a directory of its own, with the caches the build made; no
 * node_modules link (the read-only test below changes the modes of everything in it).
 */
const install = (): string => installAs('present', { linkModules: false });

/** `partner orders statuses --json` of the package at `pkg`, with `nodeArgs` before it. */
const statuses = (pkg: string, nodeArgs: string[] = []) =>
  node(
    [...nodeArgs, join(pkg, 'bin/partner.js'), 'orders', 'statuses', '--json'],
    env({
      PARTNER_CONFIG_DIR: tempDir('partner-config-'),
      PARTNER_BASE_URL: s.baseUrl,
      PARTNER_KEY: s.credential.key,
      PARTNER_SECRET: s.credential.secret,
    }),
  );

/** `statuses` of the built tree with `script` (CommonJS) loaded first by `node -r`. */
function tracedStatuses(script: string) {
  const trace = join(tempDir('partner-trace-'), 'trace.cjs');
  writeFileSync(trace, script);
  return statuses(root, ['-r', trace]);
}

function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => `${f} ${statSync(join(dir, f)).mtimeMs}`)
    .sort();
}

describe('the V8 code cache of the hot chunk', { timeout: BUSY_TIMEOUT }, () => {
  it('the build made one for each hot chunk and V8 accepts it', async () => {
    const state = await cacheState(root);
    expect(Object.keys(state).sort()).toEqual(['chunks/api-command.cjs', 'chunks/rolldown-runtime.cjs']);
    for (const v of Object.values(state)) expect(v).toEqual({ cached: true, rejected: false });
    const r = await statuses(root);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ id: 1, status: 'PLACED' });
  });

  it('a damaged cache is rejected and the CLI answers the same; a missing one likewise', async () => {
    const want = (await statuses(root)).stdout;
    const pkg = install();
    writeFileSync(join(pkg, 'dist/chunks/api-command.cjs.v8cache'), Buffer.alloc(4096, 7));
    expect((await cacheState(pkg))['chunks/api-command.cjs']).toEqual({ cached: true, rejected: true });
    const damaged = await statuses(pkg);
    expect(damaged.code, damaged.stderr).toBe(0);
    expect(damaged.stderr).toBe('');
    expect(damaged.stdout).toBe(want);

    rmSync(join(pkg, 'dist/chunks/api-command.cjs.v8cache'));
    rmSync(join(pkg, 'dist/chunks/rolldown-runtime.cjs.v8cache'));
    expect((await cacheState(pkg))['chunks/api-command.cjs']).toEqual({ cached: false, rejected: false });
    const missing = await statuses(pkg);
    expect(missing.code, missing.stderr).toBe(0);
    expect(missing.stdout).toBe(want);
  });

  it('a cache made under other V8 flags is rejected, not used', async () => {
    const pkg = install();
    // The launcher compiles under --liftoff-only; a cache made without it does not fit.
    const src = join(pkg, 'dist/chunks/api-command.cjs');
    const make = `const vm = require('node:vm'); const fs = require('node:fs'); const Module = require('node:module');
const s = new vm.Script(Module.wrap(fs.readFileSync(${JSON.stringify(src)}, 'utf8')), { filename: ${JSON.stringify(src)} });
fs.writeFileSync(${JSON.stringify(`${src}.v8cache`)}, s.createCachedData());`;
    expect((await node(['--no-lazy-feedback-allocation', '-e', make], env())).code).toBe(0);
    expect((await cacheState(pkg))['chunks/api-command.cjs']).toEqual({ cached: true, rejected: true });
    const r = await statuses(pkg);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ id: 1, status: 'PLACED' });
  });

  it('a read-only install runs and nothing in it is written', async () => {
    const pkg = install();
    const before = listing(pkg);
    const walk = (dir: string, mode: number) => {
      for (const f of readdirSync(dir, { withFileTypes: true })) {
        if (f.isDirectory()) walk(join(dir, f.name), mode);
        chmodSync(join(dir, f.name), f.isDirectory() ? mode | 0o111 : mode);
      }
    };
    walk(pkg, 0o444);
    chmodSync(pkg, 0o555);
    try {
      const r = await statuses(pkg);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout).length).toBeGreaterThan(0);
      expect(listing(pkg)).toEqual(before);
    } finally {
      chmodSync(pkg, 0o755);
      walk(pkg, 0o644);
    }
  });
});

describe('what an API command loads', { timeout: BUSY_TIMEOUT }, () => {
  it('not node:child_process (commander needs it only for executable subcommands) nor node:fs/promises (@file input only)', async () => {
    const r = await tracedStatuses(
      "process.on('exit', () => process._rawDebug('[loaded] ' + process.moduleLoadList.filter((m) => /^NativeModule (child_process|http|fs\\/promises)$/.test(m)).join(',')));\n",
    );
    expect(r.code, r.stderr).toBe(0);
    // node:http is listed: the trace sees what was loaded at all.
    expect(r.stderr).toMatch(/^\[loaded\] NativeModule http$/m);
  });

  it('not wrap-ansi and its tables: help at a terminal loads them from a lazy chunk', () => {
    const map = JSON.parse(readFileSync(join(root, 'dist/chunks/api-command.cjs.map'), 'utf8')) as {
      sources: string[];
    };
    const packages = new Set(
      map.sources.flatMap((s) => /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(s)?.[1] ?? []),
    );
    // commander is there: the check sees bundled packages at all.
    expect(packages).toContain('commander');
    for (const p of ['wrap-ansi', 'string-width', 'ansi-styles', 'get-east-asian-width'])
      expect(packages).not.toContain(p);
  });

  it('hot chunks in ASCII only (one other character makes the whole source a two-byte string)', () => {
    for (const f of ['api-command', 'rolldown-runtime']) {
      const source = readFileSync(join(root, `dist/chunks/${f}.cjs`), 'utf8');
      expect(source.length).toBeGreaterThan(0);
      expect(source.match(/[^\x00-\x7f]/g) ?? [], f).toEqual([]);
    }
  });

  it('no Intl.Segmenter (wrap-ansi and string-width make theirs on first use: ~16 ms each at load)', async () => {
    // Counts the segmenters made, whoever makes them; one made here shows the count works.
    const r = await tracedStatuses(
      [
        'const Real = Intl.Segmenter; let made = 0;',
        'Intl.Segmenter = class extends Real { constructor(...a) { super(...a); made++; } };',
        "new Intl.Segmenter(); process.on('exit', () => process._rawDebug('[segmenters] ' + made));",
        '',
      ].join('\n'),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^\[segmenters\] 1$/m);
  });
});
