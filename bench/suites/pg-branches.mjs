// Issue 13: PostgreSQL mode, authenticated GET /v1/partner/branches (20 rows) on one instance
// against the floor: raw node:http running one query of the same client (`pg`) on the same
// database per request (the page of branches), answering the same bytes. Target (issue 23): ratio ≥ 0.6.
import http from 'node:http';
import os from 'node:os';
import { basic } from '../lib/server.mjs';
import { startCluster, startPgFloor, startPgPartner } from '../lib/pg.mjs';
import { seedBranches } from '../lib/seed.mjs';
import { fmt, load, median } from '../lib/stats.mjs';

export const title = 'PostgreSQL: GET /v1/partner/branches (20 rows) vs raw node:http + one pg query';

const RUNS = 5;
const DURATION = 3;
const ONE_BY_ONE = 2_000;

/** Median time of `n` requests sent one after the other on one kept-alive connection, in µs. */
async function oneByOne(url, headers, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  try {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await new Promise((resolve, reject) => {
        http
          .get(url, { agent, headers }, (res) => {
            if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
            res.resume().on('end', resolve);
          })
          .on('error', reject);
      });
      times.push((performance.now() - t0) * 1000);
    }
  } finally {
    agent.destroy();
  }
  return median(times);
}

export async function run({ log }) {
  const loadBefore = os.loadavg()[0];
  const cluster = await startCluster({ core: 0 });
  const database = await cluster.database('bench_branches');
  const partner = await startPgPartner({ database, core: 0, seed: true });
  const { baseUrl, credential } = partner.info;
  let floor;
  const rawRuns = [];
  const partnerRuns = [];
  let sample;
  let alone;
  try {
    await seedBranches(baseUrl, credential);
    const url = `${baseUrl}/v1/partner/branches?page=1&size=20`;
    const headers = { authorization: basic(credential) };
    sample = await (await fetch(url, { headers })).text();
    if (JSON.parse(sample).data.results.length !== 20) throw new Error('expected 20 branches');
    floor = await startPgFloor({
      database,
      core: 0,
      sql: 'SELECT id, record FROM branches WHERE business_id = $1 AND deleted_at IS NULL ORDER BY id LIMIT 20',
      params: `() => [${credential.business_id}]`,
      answer: `(rows) => { if (rows.length !== 20) throw new Error('rows'); return ${JSON.stringify(sample)}; }`,
    });
    await load({ url: floor.info.url, duration: 1 }); // warm-up
    await load({ url, headers, duration: 1 });
    // One client alone: the time of a request is then its round trips to PostgreSQL.
    alone = {
      floor: await oneByOne(floor.info.url, {}, ONE_BY_ONE),
      partner: await oneByOne(url, headers, ONE_BY_ONE),
    };
    log(`one by one: floor ${fmt(alone.floor)} µs, partner ${fmt(alone.partner)} µs`);
    for (let i = 0; i < RUNS; i++) {
      rawRuns.push(await load({ url: floor.info.url, duration: DURATION }));
      partnerRuns.push(await load({ url, headers, duration: DURATION }));
      log(
        `run ${i + 1}: floor ${fmt(rawRuns[i].rps)} req/s p99 ${rawRuns[i].p99} ms · partner ${fmt(partnerRuns[i].rps)} req/s p99 ${partnerRuns[i].p99} ms (non-2xx ${partnerRuns[i].non2xx})`,
      );
    }
  } finally {
    await floor?.close();
    await partner.close();
    cluster.stop();
  }
  const rawRps = median(rawRuns.map((r) => r.rps));
  const rps = median(partnerRuns.map((r) => r.rps));
  const ratio = rps / rawRps;
  const bad =
    partnerRuns.reduce((n, r) => n + r.non2xx + r.errors, 0) +
    rawRuns.reduce((n, r) => n + r.non2xx + r.errors, 0);
  return [
    `${cluster.version}, a throw-away cluster with default durability. Per partner request one round trip: the credential row read from PostgreSQL (so revocation holds on every instance) with the take from the shared rate-limit bucket in one statement, and the page read (one statement, no transaction around it) sent with it as the credential this instance verified before, its answer held until the first agrees (the request's stages: docs/development.md), on the server's two pipelined connections (node-postgres pipeline mode: the statements of concurrent requests go out back to back); the floor runs one query (the same page of branches) on a \`pg\` pool of the same size (10) and answers the same ${fmt(Buffer.byteLength(sample))} bytes. 50 connections, ${RUNS} × ${DURATION} s each; servers and PostgreSQL pinned to core 0, load on core 1; medians.`,
    '',
    '| | req/s | p99 ms |',
    '|---|---:|---:|',
    `| raw node:http + one pg query (floor) | ${fmt(rawRps)} | ${median(rawRuns.map((r) => r.p99))} |`,
    `| partner GET /branches on PostgreSQL | ${fmt(rps)} | ${median(partnerRuns.map((r) => r.p99))} |`,
    '',
    `**ratio ${fmt(ratio, 2)}** (target ≥ 0.6) · non-2xx/errors: ${bad}`,
    '',
    `Per-run ratios (floor and partner back to back): ${rawRuns.map((r, i) => fmt(partnerRuns[i].rps / r.rps, 2)).join(', ')}.`,
    '',
    `One client alone, ${fmt(ONE_BY_ONE)} requests one after the other on one connection (median time of a request): floor ${fmt(alone.floor)} µs, partner ${fmt(alone.partner)} µs.`,
    '',
    `Machine load (1-min load average, other work on the machine included): ${fmt(loadBefore, 2)} before, ${fmt(os.loadavg()[0], 2)} after.`,
  ];
}
