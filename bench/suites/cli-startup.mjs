// CLI start-up (issue 3 item 6, tightened by issue 14): medians of `node -e 0`, `partner --version`
// and `partner orders statuses --json` against a real local server, runs interleaved so machine
// noise hits all three alike. Targets: --version ≤ 1.1× and orders statuses ≤ 1.6× `node -e 0`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const title = 'CLI start-up';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/partner.js');
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 30);

function time(args, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/**
 * CPU time (all threads) of one run by `perf stat`, or undefined where perf is missing or not
 * allowed. Unlike wall time it hardly moves when other work shares the cores, so it is shown
 * beside the wall-time ratio on a loaded machine.
 */
function cpuTime(args, env) {
  const r = spawnSync('perf', ['stat', '-x,', '-e', 'task-clock', process.execPath, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  const m = r.status === 0 ? /^([\d.]+),msec,task-clock/m.exec(String(r.stderr)) : null;
  return m ? Number(m[1]) : undefined;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function startServer(dir, env, log) {
  const child = spawn(
    process.execPath,
    [bin, 'local', 'start', '--seed', 'demo', '--port', '0', '--data', join(dir, 'data')],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const deadline = Date.now() + 20_000;
  while (!/listening on/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`local server did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  log(out.split('\n')[0]);
  return child;
}

export async function run({ log }) {
  if (!existsSync(join(root, 'dist/cli.js'))) throw new Error('run `npm run build` first');
  const dir = mkdtempSync(join(tmpdir(), 'partner-bench-cli-'));
  const env = {
    ...process.env,
    PARTNER_CONFIG_DIR: join(dir, 'config'),
    PARTNER_DATA_DIR: join(dir, 'data'),
    NO_COLOR: '1',
  };
  for (const k of ['PARTNER_PROFILE', 'PARTNER_BASE_URL', 'PARTNER_KEY', 'PARTNER_SECRET']) delete env[k];
  const server = await startServer(dir, env, log);
  try {
    const cases = {
      'node -e 0': ['-e', '0'],
      'partner --version': [bin, '--version'],
      'partner orders statuses --json': [bin, 'orders', 'statuses', '--json'],
    };
    // Warm the page cache and the server's credential cache.
    for (const args of Object.values(cases)) time(args, env);
    const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    const cpu = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    const withCpu = cpuTime(['-e', '0'], env) !== undefined;
    const load = [os.loadavg()[0]];
    for (let i = 0; i < RUNS; i++)
      for (const [k, args] of Object.entries(cases)) {
        samples[k].push(time(args, env));
        if (withCpu) cpu[k].push(cpuTime(args, env));
      }
    load.push(os.loadavg()[0]);
    const base = median(samples['node -e 0']);
    const cpuBase = withCpu ? median(cpu['node -e 0']) : 0;
    const targets = { 'partner --version': 1.1, 'partner orders statuses --json': 1.6 };
    const lines = [
      `Medians of ${RUNS} interleaved runs each (spawned processes; the server is \`partner local start --seed demo\` on 127.0.0.1); 1-minute load average ${load.map((l) => l.toFixed(1)).join(' → ')} on ${os.cpus().length} cores during the runs.${withCpu ? ' CPU ms: the same commands under `perf stat -e task-clock` (all threads), in separate interleaved runs.' : ''}`,
      '',
      `| command | median ms | × \`node -e 0\` | target | |${withCpu ? ' CPU ms | CPU × | |' : ''}`,
      `|---|---:|---:|---:|---|${withCpu ? '---:|---:|---|' : ''}`,
    ];
    for (const [k, xs] of Object.entries(samples)) {
      const m = median(xs);
      const ratio = m / base;
      const target = targets[k];
      const ok = target === undefined ? '' : ratio <= target ? 'ok' : '**over**';
      const c = withCpu ? median(cpu[k]) : 0;
      // The target judged on CPU time too: on a shared machine it is the figure that holds still.
      const cpuOk = target === undefined ? '' : c / cpuBase <= target ? 'ok' : '**over**';
      const cpuCols = withCpu ? ` ${c.toFixed(1)} | ${(c / cpuBase).toFixed(2)} | ${cpuOk} |` : '';
      lines.push(
        `| \`${k}\` | ${m.toFixed(1)} | ${ratio.toFixed(2)} | ${target ? `≤ ${target}` : ''} | ${ok} |${cpuCols}`,
      );
      log(
        `${k}: median ${m.toFixed(1)} ms (${ratio.toFixed(2)}×)${withCpu ? `, CPU ${c.toFixed(1)} ms (${(c / cpuBase).toFixed(2)}×)` : ''}`,
      );
    }
    const status = JSON.parse(readFileSync(join(dir, 'data', 'local.json'), 'utf8'));
    log(`server ${status.base_url}`);
    return lines;
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => {
      const t = setTimeout(() => {
        server.kill('SIGKILL');
        r();
      }, 5_000);
      server.once('exit', () => {
        clearTimeout(t);
        r();
      });
    });
    rmSync(dir, { recursive: true, force: true });
  }
}
