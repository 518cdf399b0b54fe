// Starts the real server for a benchmark in a child process (pinned to one core where
// `taskset` exists, so the load generator in this process gets the other one).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('../../', import.meta.url);
let bundled;

/** Bundles src/server/index.ts once per bench process (better-sqlite3 stays external). */
export async function serverBundle() {
  if (bundled) return bundled;
  const dir = mkdtempSync(join(root.pathname, 'node_modules', '.bench-'));
  await build({
    entryPoints: [new URL('src/server/index.ts', root).pathname],
    outfile: join(dir, 'server.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3'],
    // Bundled CommonJS dependencies (undici) call require(): give the ESM bundle one.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'warning',
  });
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  bundled = join(dir, 'server.mjs');
  return bundled;
}

/** The path of `node_modules/<p>` of this checkout, as a script run by spawnNode imports it. */
export const modulePath = (p) => new URL(`node_modules/${p}`, root).pathname;

export const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

/**
 * Runs `script` (an ES module body) in a child node, pinned to `core`, with `env` added and
 * `nodeArgs` (then BENCH_NODE_ARGS) before the script; resolves with its first stdout line as JSON.
 */
export function spawnNode(script, { core = 0, env = {}, nodeArgs = [] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'partner-bench-'));
  const file = join(dir, 'main.mjs');
  writeFileSync(file, script);
  const cmd = hasTaskset ? 'taskset' : process.execPath;
  const extra = [...nodeArgs, ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [])];
  const args = hasTaskset ? ['-c', String(core), process.execPath, ...extra, file] : [...extra, file];
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('bench child did not start within 30 s')), 30_000);
    child.stdout.on('data', (d) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve({
          info: JSON.parse(buf.slice(0, nl)),
          child,
          async close() {
            child.kill('SIGTERM');
            await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
            rmSync(dir, { recursive: true, force: true });
          },
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bench child exited with ${code}`));
    });
  });
}

/**
 * The real partner server (demo seed) in a child process. Resolves with
 * `{ info: {baseUrl, operatorToken, credential}, close }`; the credential's rate limit is raised
 * so the bench measures the server, not the limiter's 429s.
 */
export async function startPartnerServer({
  core = 0,
  rateLimit = 1_000_000,
  options = {},
  env = {},
  nodeArgs = [],
} = {}) {
  const bundle = await serverBundle();
  const data = mkdtempSync(join(tmpdir(), 'partner-bench-data-'));
  const s = await spawnNode(
    `import { startServer } from ${JSON.stringify(bundle)};
     const s = await startServer({ dataDir: ${JSON.stringify(data)}, port: 0, seed: 'demo', logErrors: () => {}, ...${JSON.stringify(options)} });
     const c = s.seeded[0];
     await fetch(s.baseUrl + '/v1/operator/credentials/' + c.key + '/rate-limit', {
       method: 'PUT', headers: { authorization: 'Bearer ' + s.operatorToken, 'content-type': 'application/json' },
       body: JSON.stringify({ rate_limit: ${rateLimit} }) });
     console.log(JSON.stringify({ baseUrl: s.baseUrl, operatorToken: s.operatorToken, credential: c, dataDir: ${JSON.stringify(data)} }));
     process.on('SIGTERM', () => s.close().then(() => process.exit(0)));`,
    { core, env, nodeArgs },
  );
  const close = s.close;
  return {
    ...s,
    async close() {
      await close();
      rmSync(data, { recursive: true, force: true });
    },
  };
}

export function basic(c) {
  return `Basic ${Buffer.from(`${c.key}:${c.secret}`).toString('base64')}`;
}

/** Resident set size of a process in MB (Linux /proc), or NaN where there is none. */
export function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU time (user + system, all threads) a process has used so far, in ms (Linux /proc; 10 ms
 * ticks). Per request over a run it tells what a server costs even when other work on the
 * machine makes its req/s drift.
 */
export function cpuMs(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return ((Number(rest[11]) + Number(rest[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Runs `fn` (a load run resolving with `{ count }`) and adds the CPU µs per request of `pid`. */
export async function withCpu(pid, fn) {
  const before = cpuMs(pid);
  const r = await fn();
  return { ...r, cpuUs: ((cpuMs(pid) - before) * 1000) / Math.max(1, r.count) };
}
