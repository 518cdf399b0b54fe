// Issue 23's SQLite row: the store written once over two dialects must cost the embedded server
// no more than 5 % CPU per request. Its figures (39.6 / 113.7 µs) were measured on another day's
// machine, so they are measured again here, in the same run: the server as it was before the
// store's rewrite (BASELINE, taken from git history) and as it is now, alternating, on GET
// /branches (20 rows) and on PATCH /orders/status (real transitions).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedBranches } from '../lib/seed.mjs';
import { startPartnerServer, withCpu } from '../lib/server.mjs';
import { fmt, load, loadNote, median } from '../lib/stats.mjs';
import { patchRequests, templateOrder } from '../lib/status-patches.mjs';
import { cloneOrders } from './orders-patch.mjs';

export const title = 'SQLite CPU per request: the server before the store rewrite and now, same run';

/** The last commit before issue 23's store work was merged (383e3d8 merged the first part). */
const BASELINE = 'c17a37f';
const RUNS = 5;
const DURATION = 3;
const BATCH = 20_000;
const root = new URL('../../', import.meta.url).pathname;

/** The baseline's `src/` and `bench/` in a temp dir beside this checkout's node_modules, or why not. */
function baselineTree() {
  const dir = mkdtempSync(join(tmpdir(), 'partner-bench-baseline-'));
  const archive = spawnSync(
    'git',
    ['-C', root, 'archive', '--format=tar', BASELINE, 'src', 'bench', 'package.json'],
    {
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  if (archive.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { why: `git archive ${BASELINE} failed (a clone without that history?): ${archive.stderr}` };
  }
  const tar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (tar.status !== 0) throw new Error(`unpacking ${BASELINE}: ${tar.stderr}`);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return { dir };
}

const cpuOf = (r) => r.cpuUs;

export async function run({ log }) {
  const tree = baselineTree();
  if (tree.why) return [`Not measured: ${tree.why}.`];
  const then = await import(join(tree.dir, 'bench/lib/server.mjs'));
  const servers = {
    before: await then.startPartnerServer({ core: 0 }),
    now: await startPartnerServer({ core: 0 }),
  };
  const rows = { before: { get: [], patch: [] }, now: { get: [], patch: [] } };
  try {
    const setup = {};
    for (const [k, s] of Object.entries(servers)) {
      const { baseUrl, operatorToken, credential, dataDir } = s.info;
      const page = await seedBranches(baseUrl, credential);
      const template = await templateOrder(baseUrl, operatorToken, credential);
      setup[k] = { page, template, baseUrl, credential, dataDir };
      await load({ url: page.url, headers: page.headers, duration: 1 });
      const warm = cloneOrders(dataDir, template.id, BATCH);
      await load({
        url: baseUrl,
        duration: 1,
        requests: patchRequests(credential, warm, `warm-${k}`, BATCH),
      });
    }
    for (let i = 0; i < RUNS; i++) {
      for (const [k, s] of Object.entries(servers)) {
        const { page, template, baseUrl, credential, dataDir } = setup[k];
        rows[k].get.push(
          await withCpu(s.child.pid, () =>
            load({ url: page.url, headers: page.headers, duration: DURATION }),
          ),
        );
        const first = cloneOrders(dataDir, template.id, BATCH);
        rows[k].patch.push(
          await withCpu(s.child.pid, () =>
            load({
              url: baseUrl,
              duration: DURATION,
              requests: patchRequests(credential, first, `r${i}-${k}`, BATCH),
            }),
          ),
        );
      }
      log(
        `run ${i + 1}: GET before ${fmt(rows.before.get[i].cpuUs, 1)} now ${fmt(rows.now.get[i].cpuUs, 1)} µs · PATCH before ${fmt(rows.before.patch[i].cpuUs, 1)} now ${fmt(rows.now.patch[i].cpuUs, 1)} µs`,
      );
    }
  } finally {
    for (const s of Object.values(servers)) await s.close();
    rmSync(tree.dir, { recursive: true, force: true });
  }
  const bad = Object.values(rows)
    .flatMap((r) => [...r.get, ...r.patch])
    .reduce((n, r) => n + r.non2xx + r.errors, 0);
  if (bad > 0) throw new Error(`store-baseline: ${bad} answers were not 2xx`);
  const line = (label, kind) => {
    const before = median(rows.before[kind].map(cpuOf));
    const now = median(rows.now[kind].map(cpuOf));
    return `| ${label} | ${fmt(before, 1)} | ${fmt(now, 1)} | **${fmt(now / before, 2)}** | ≤ 1.05 | ${now / before <= 1.05 ? 'met' : 'not met'} |`;
  };
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  return [
    `_${loadNote()}._ The server of ${BASELINE} (the last commit before the store's rewrite) and of this checkout (${version}), each with its own demo data dir, measured alternately: ${RUNS} × ${DURATION} s of each row per server, 50 connections, servers pinned to core 0, load on core 1; medians. CPU: user + system time of the server process over the run ÷ requests answered.`,
    '',
    '| row | before, µs/request | now, µs/request | now ÷ before | target | |',
    '|---|---:|---:|---:|---:|---|',
    line('GET /branches, 20 rows', 'get'),
    line('PATCH /orders/status (real transitions)', 'patch'),
  ];
}
