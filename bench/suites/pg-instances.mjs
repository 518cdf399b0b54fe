// Issue 13: one vs two partner instances on one PostgreSQL database, the same load spread across
// them: GET /v1/partner/branches and PATCH /v1/partner/orders/status. What a second instance adds
// on this machine (2 cores shared by PostgreSQL, the instances and the load generator).
import os from 'node:os';
import { basic } from '../lib/server.mjs';
import { startCluster, startPgPartner } from '../lib/pg.mjs';
import { fmt, load, median } from '../lib/stats.mjs';
import { seedBranches } from '../lib/seed.mjs';
import { patchRequests, templateOrder } from '../lib/status-patches.mjs';
import { BATCH, cloneOrders } from './pg-patch.mjs';

export const title = 'PostgreSQL: 1 vs 2 instances on one database';

const RUNS = 3;
const DURATION = 3;
const CONNECTIONS = 50;

/** Runs the load against each base URL at once (the connections split evenly); resolves with the summed req/s and the worst p99. */
async function spread(urls, opts) {
  const each = await Promise.all(
    urls.map((base, i) => {
      const { path = '', ...o } = opts(i);
      return load({ ...o, url: base + path, connections: CONNECTIONS / urls.length, duration: DURATION });
    }),
  );
  return {
    rps: each.reduce((n, r) => n + r.rps, 0),
    p99: Math.max(...each.map((r) => r.p99)),
    bad: each.reduce((n, r) => n + r.non2xx + r.errors, 0),
  };
}

export async function run({ log }) {
  const loadBefore = os.loadavg()[0];
  const cluster = await startCluster({ core: 0 });
  const database = await cluster.database('bench_instances');
  // Unpinned: with two instances each may take a core.
  const first = await startPgPartner({ database, core: '0,1', seed: true });
  const second = await startPgPartner({ database, core: '0,1' });
  const { operatorToken, credential } = first.info;
  const one = [first.info.baseUrl];
  const two = [first.info.baseUrl, second.info.baseUrl];
  const rows = { get: { 1: [], 2: [] }, patch: { 1: [], 2: [] } };
  let bad = 0;
  try {
    await seedBranches(first.info.baseUrl, credential);
    const template = await templateOrder(first.info.baseUrl, operatorToken, credential);
    const headers = { authorization: basic(credential) };
    const get = () => ({ headers, path: '/v1/partner/branches?page=1&size=20' });
    await spread(two, get); // warm-up of both
    for (let i = 0; i < RUNS; i++) {
      for (const n of [1, 2]) {
        const urls = n === 1 ? one : two;
        const g = await spread(urls, get);
        const firstId = await cloneOrders(database, template.id, 20_000);
        // Each instance patches its own half of the fresh orders.
        const p = await spread(urls, (k) => ({
          requests: patchRequests(credential, firstId + k * 10_000, `i${n}r${i}k${k}`, BATCH),
        }));
        rows.get[n].push(g);
        rows.patch[n].push(p);
        bad += g.bad + p.bad;
        log(
          `run ${i + 1}, ${n} instance(s): GET ${fmt(g.rps)} req/s p99 ${g.p99} ms · PATCH ${fmt(p.rps)} req/s p99 ${p.p99} ms`,
        );
      }
    }
  } finally {
    await second.close();
    await first.close();
    cluster.stop();
  }
  const m = (xs, k) => median(xs.map((x) => x[k]));
  const line = (what, key) =>
    `| ${what} | ${fmt(m(rows[key][1], 'rps'))} | ${m(rows[key][1], 'p99')} | ${fmt(m(rows[key][2], 'rps'))} | ${m(rows[key][2], 'p99')} | ${fmt(m(rows[key][2], 'rps') / m(rows[key][1], 'rps'), 2)} |`;
  return [
    `${cluster.version} (default durability). ${CONNECTIONS} connections in all, split evenly across the instances; ${RUNS} × ${DURATION} s each; nothing pinned but PostgreSQL (core 0), so the instances, PostgreSQL and the load generator share the machine's 2 cores; medians. PATCH: each request a real transition on a fresh order (as in the PATCH suite).`,
    '',
    '| | 1 instance req/s | p99 ms | 2 instances req/s | p99 ms | 2 ÷ 1 |',
    '|---|---:|---:|---:|---:|---:|',
    line('GET /branches', 'get'),
    line('PATCH /orders/status', 'patch'),
    '',
    `non-2xx/errors: ${bad}. On 2 cores the second instance competes with PostgreSQL and the load generator for CPU: this shows that instances share one database without contention loss, not how far N instances scale on N machines.`,
    '',
    `Machine load (1-min load average, other work on the machine included): ${fmt(loadBefore, 2)} before, ${fmt(os.loadavg()[0], 2)} after.`,
  ];
}
