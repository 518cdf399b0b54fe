// Issue 2: authenticated GET /v1/partner/branches (20 rows) against raw node:http serving the
// same bytes, in the same run. Target: ratio ≥ 0.40 with p99 ≤ 6 ms at 50 connections.
import { seedBranches } from '../lib/seed.mjs';
import { spawnNode, startPartnerServer, withCpu } from '../lib/server.mjs';
import { fmt, load, median } from '../lib/stats.mjs';

export const title = 'GET /v1/partner/branches (20 rows) vs raw node:http';

const RUNS = 3;

export async function run({ log }) {
  const partner = await startPartnerServer({ core: 0 });
  const { baseUrl, credential } = partner.info;
  const { url, headers, sample } = await seedBranches(baseUrl, credential);

  const raw = await spawnNode(
    `import http from 'node:http';
     const body = ${JSON.stringify(sample)};
     const s = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }); res.end(body); });
     s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + s.address().port + '/' })));
     process.on('SIGTERM', () => process.exit(0));`,
    { core: 0 },
  );

  const rawRuns = [];
  const partnerRuns = [];
  try {
    await load({ url: raw.info.url, duration: 1 }); // warm-up
    await load({ url, headers, duration: 1 });
    for (let i = 0; i < RUNS; i++) {
      rawRuns.push(await withCpu(raw.child.pid, () => load({ url: raw.info.url })));
      partnerRuns.push(await withCpu(partner.child.pid, () => load({ url, headers })));
      log(
        `run ${i + 1}: raw ${fmt(rawRuns[i].rps)} req/s p99 ${rawRuns[i].p99} ms ${fmt(rawRuns[i].cpuUs, 1)} µs CPU/req · partner ${fmt(partnerRuns[i].rps)} req/s p99 ${partnerRuns[i].p99} ms ${fmt(partnerRuns[i].cpuUs, 1)} µs CPU/req (non-2xx ${partnerRuns[i].non2xx})`,
      );
    }
  } finally {
    await raw.close();
    await partner.close();
  }
  const rawRps = median(rawRuns.map((r) => r.rps));
  const rps = median(partnerRuns.map((r) => r.rps));
  const p99 = median(partnerRuns.map((r) => r.p99));
  const ratio = rps / rawRps;
  const bad = partnerRuns.reduce((n, r) => n + r.non2xx + r.errors, 0);
  return [
    `Payload ${fmt(Buffer.byteLength(sample))} bytes; 50 connections, ${RUNS} × 5 s each, server pinned to core 0, load on core 1; medians.`,
    '',
    '| | req/s | p99 ms |',
    '|---|---:|---:|',
    `| raw node:http (floor) | ${fmt(rawRps)} | ${median(rawRuns.map((r) => r.p99))} |`,
    `| partner GET /branches | ${fmt(rps)} | ${p99} |`,
    '',
    `**ratio ${fmt(ratio, 2)}** (target ≥ 0.40) · **p99 ${p99} ms** (target ≤ 6 ms) · non-2xx/errors: ${bad}`,
  ];
}
