import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// `partner local start` as the built binary in real processes: what an operator runs on each
// machine of a service. Every process started here is killed by killAll() (afterAll), even when
// a test failed half-way.

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const bin = join(root, 'bin/partner.js');

const children = new Set<ChildProcess>();

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Builds dist/ once when it is missing (CI builds before vitest). */
export function ensureBuilt(): void {
  if (existsSync(join(root, 'dist/cli.js'))) return;
  const b = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
}

export function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: tempDir('partner-home-'),
    PARTNER_CONFIG_DIR: tempDir('partner-cfg-'),
    ...extra,
  };
}

export interface Instance {
  child: ChildProcess;
  url: string;
  data: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnCli(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      r({ code, signal });
    }),
  );
  return { child, exited, out: () => out, err: () => err };
}

/** `local start --port 0 --data DIR ARGS…`; resolves once it prints its URL (at most 20 s). */
export function startInstance(
  args: string[],
  env: NodeJS.ProcessEnv,
  data = tempDir('partner-data-'),
): Promise<Instance> {
  const p = spawnCli(['local', 'start', '--port', '0', '--data', data, ...args], env);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 20 s:\n${p.out()}\n${p.err()}`)), 20_000);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(p.out());
      if (!m) return;
      clearTimeout(timer);
      resolve({ child: p.child, url: m[1]!, data, stdout: p.out, stderr: p.err, exited: p.exited });
    };
    p.child.stdout!.on('data', check);
    void p.exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${e.code} before listening:\n${p.out()}\n${p.err()}`));
    });
  });
}

/** Runs the CLI to its end (at most `ms`). */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  ms = 20_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawnCli(args, env);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), ms);
  const e = await p.exited;
  clearTimeout(timer);
  if (e.signal === 'SIGKILL') throw new Error(`${args.join(' ')} did not exit within ${ms} ms`);
  return { code: e.code, stdout: p.out(), stderr: p.err() };
}

/** SIGTERM, then SIGKILL after 5 s; resolves when it is gone. */
export async function stopInstance(i: Instance): Promise<void> {
  if (i.child.exitCode !== null || i.child.signalCode !== null) return;
  i.child.kill('SIGTERM');
  const t = setTimeout(() => i.child.kill('SIGKILL'), 5_000);
  await i.exited;
  clearTimeout(t);
}

export function killAll(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
}
