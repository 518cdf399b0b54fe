import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../helpers/build.js';
import { tempDir } from '../helpers/temp-dir.js';

export { ensureBuilt, root } from '../helpers/build.js';
export { tempDir } from '../helpers/temp-dir.js';

// The built binary as a user's shell runs it: `node bin/partner.js …` in a child process with a
// clean environment (no NODE_OPTIONS from the test runner: V8 flags decide whether the code cache
// fits), private config, data and home dirs, no keyring, no terminal.

export interface Run {
  args: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Child processes at once, whatever the caller asks: the machine may have 2 busy cores. */
const CONCURRENCY = 4;
/** Generous: a --help takes a fraction of a second; this only bounds a hang. */
const TIMEOUT_MS = 60_000;
/**
 * A test of a few child processes one after another: each start of node costs ~0.1 s of CPU
 * alone and several seconds on a machine at load 15, so the project's 20 s default is too tight.
 */
export const BUSY_TIMEOUT = 120_000;
let running = 0;
const waiting: (() => void)[] = [];

async function slot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= CONCURRENCY) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

export interface RunOptions {
  /** The package dir whose bin/partner.js runs (default: this checkout). */
  pkg?: string;
  env?: Record<string, string>;
  /** Text written to stdin, then closed; without it stdin is closed at once. */
  stdin?: string | Buffer;
  cwd?: string;
  /** Bound on a hang (default 60 s): the run is killed and the test fails past it. */
  timeoutMs?: number;
}

/** The environment every run starts from; `extra` is laid over it. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: tempDir('partner-home-'),
    PARTNER_CONFIG_DIR: tempDir('partner-config-'),
    PARTNER_DATA_DIR: tempDir('partner-data-'),
    PARTNER_KEYRING: 'off',
    NO_COLOR: '1',
    ...extra,
  };
}

/** Runs `partner ARGS` through the launcher; at most CONCURRENCY at once, each bounded in time. */
export function partner(args: string[], o: RunOptions = {}): Promise<Run> {
  const env = o.env ?? cleanEnv();
  return slot(
    () =>
      new Promise<Run>((resolve, reject) => {
        const timeoutMs = o.timeoutMs ?? TIMEOUT_MS;
        const child = spawn(process.execPath, [join(o.pkg ?? root, 'bin/partner.js'), ...args], {
          env,
          cwd: o.cwd ?? env.HOME,
          stdio: [o.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (d) => {
          stdout += d;
        });
        child.stderr!.on('data', (d) => {
          stderr += d;
        });
        if (o.stdin !== undefined) child.stdin!.end(o.stdin);
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`partner ${args.join(' ')} did not end within ${timeoutMs} ms (killed)`));
        }, timeoutMs);
        child.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          resolve({ args, code, signal, stdout, stderr });
        });
      }),
  );
}

/** What a run must never print on stderr: a stack trace, Node's warnings, an unexpected error. */
export function expectNoNoise(r: Run): string[] {
  const problems: string[] = [];
  const where = `partner ${r.args.join(' ')}`;
  if (/\n\s+at .+:\d+:\d+\)?$/m.test(r.stderr)) problems.push(`${where}: a stack trace on stderr`);
  if (/Warning:|\(node:\d+\)/.test(r.stderr)) problems.push(`${where}: a Node warning on stderr`);
  if (/unexpected error|ERR_[A-Z_]+/.test(r.stderr)) problems.push(`${where}: an internal error on stderr`);
  return problems;
}

export type CacheMode = 'present' | 'absent' | 'damaged';
export const CACHE_MODES: CacheMode[] = ['present', 'absent', 'damaged'];

/**
 * The package as installed (bin/, dist/, package.json, node_modules linked for the dependencies
 * the bundle leaves external unless `linkModules: false`) in a temp dir of its own, with the V8 code caches of the hot chunks
 * as the build made them, removed, or overwritten with garbage. A copy: other test files use the
 * real dist/ at the same time.
 */
export function install(mode: CacheMode, o: { linkModules?: boolean } = {}): string {
  const dir = tempDir(`partner-install-${mode}-`);
  cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  if (o.linkModules !== false) symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const caches = readdirSync(join(dir, 'dist/chunks')).filter((f) => f.endsWith('.v8cache'));
  if (caches.length === 0) throw new Error('the build made no .v8cache: nothing to test');
  for (const f of caches) {
    const file = join(dir, 'dist/chunks', f);
    if (mode === 'absent') rmSync(file);
    // Not a cache V8 could mistake for one (wrong magic number): rejected, and compiled anew.
    if (mode === 'damaged') writeFileSync(file, Buffer.alloc(8192, 0xa5));
  }
  return dir;
}

/**
 * How the launcher of `pkg` loads each hot chunk in a fresh process: whether a cache file was
 * found and whether V8 rejected it. Proves that a mode is what it says.
 */
export async function cacheState(
  pkg: string,
): Promise<Record<string, { cached: boolean; rejected: boolean }>> {
  const script = `const b = require(${JSON.stringify(join(pkg, 'bin/partner.js'))});
process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
const out = {};
for (const f of b.HOT) { const l = b.loadCached(require('node:path').resolve(b.dist, f), true); out[f] = { cached: l.cached, rejected: l.rejected }; }
process.stdout.write(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['-e', script], {
    env: cleanEnv(),
    encoding: 'utf8',
    timeout: TIMEOUT_MS,
  });
  if (r.status !== 0) throw new Error(`cache state of ${pkg}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Runs many at once (bounded by `partner` itself) and keeps their order. */
export function all<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  return Promise.all(items.map(fn));
}

/** The commands a help page lists, in order (commander's own `help [command]` aside). */
export function subcommands(help: string): string[] {
  const at = help.search(/^Commands:$/m);
  if (at < 0) return [];
  const names: string[] = [];
  for (const line of help.slice(at).split('\n').slice(1)) {
    if (line === '') break;
    // A command's line starts two spaces in; its wrapped description is indented further.
    const m = /^ {2}(\S+)/.exec(line);
    if (m && m[1] !== 'help') names.push(m[1]!);
  }
  return names;
}

export interface Foreground {
  /** Resolves with the first match of `re` in what the command printed (stdout, then stderr). */
  waitFor(re: RegExp): Promise<RegExpMatchArray>;
  output(): { stdout: string; stderr: string };
  /** Sends `signal` (Ctrl-C's SIGINT by default) and resolves once the process has ended. */
  stop(signal?: NodeJS.Signals): Promise<Run>;
}

/**
 * A command that runs until stopped (`local start`, `listen`, `inspect`), outside the concurrency
 * bound. Every wait is on its output or its exit, and bounded by TIMEOUT_MS.
 */
export function foreground(args: string[], o: RunOptions = {}): Foreground {
  const env = o.env ?? cleanEnv();
  const child = spawn(process.execPath, [join(o.pkg ?? root, 'bin/partner.js'), ...args], {
    env,
    cwd: o.cwd ?? env.HOME,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const l of [...listeners]) l();
  };
  child.stdout!.on('data', (d) => {
    stdout += d;
    changed();
  });
  child.stderr!.on('data', (d) => {
    stderr += d;
    changed();
  });
  const ended = new Promise<Run>((resolve) => {
    child.on('close', (code, signal) => {
      resolve({ args, code, signal, stdout, stderr });
      changed();
    });
  });
  let done = false;
  void ended.then(() => {
    done = true;
  });
  return {
    output: () => ({ stdout, stderr }),
    waitFor: (re) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`partner ${args.join(' ')}: no ${re} within ${TIMEOUT_MS} ms`)),
          TIMEOUT_MS,
        );
        const check = () => {
          const m = re.exec(stdout) ?? re.exec(stderr);
          if (m) finish(undefined, m);
          else if (done)
            finish(new Error(`partner ${args.join(' ')} ended before ${re}: ${stdout}${stderr}`));
        };
        const finish = (err?: Error, m?: RegExpMatchArray) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (err) reject(err);
          else resolve(m!);
        };
        listeners.add(check);
        check();
      }),
    stop: async (signal = 'SIGINT') => {
      if (!done) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
      const r = await ended;
      clearTimeout(timer);
      return r;
    },
  };
}
