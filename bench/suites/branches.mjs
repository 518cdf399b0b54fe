// Issues 2 and 14: authenticated GET /v1/partner/branches (20 rows) against raw node:http serving
// the same bytes, in the same run. Target (issue 14): ratio ≥ 0.85, p99 ≤ 1.3 × the floor's p99,
// at 50 connections. CPU µs per request of both servers beside, steady under other load.
import { seedBranches } from '../lib/seed.mjs';
import { basic, spawnNode, startPartnerServer, withCpu } from '../lib/server.mjs';
import { fmt, load, median, loadNote } from '../lib/stats.mjs';

export const title = 'GET /v1/partner/branches (demo page and 20 rows) vs raw node:http';

const RUNS = 3;
/**
 * Seconds of load before the runs, for each server: a fresh partner server reaches its steady
 * state (V8's optimising tiers, the young generation grown to its size) only after a few seconds
 * of load; with 1 s its first run measured that warm-up (74 µs per request against 59 in the next).
 */
const WARM_S = 5;

export async function run({ log }) {
  const partner = await startPartnerServer({ core: 0 });
  const { baseUrl, credential } = partner.info;
  // Issue 24: the demo seed's own page (a few rows, ~6 KB), measured before the 20 branches are
  // added (after, the same URL answers a full page), then a full page of 20.
  const demoUrl = `${baseUrl}/v1/partner/branches`;
  const demoHeaders = { authorization: basic(credential) };
  const demoSample = await (await fetch(demoUrl, { headers: demoHeaders })).text();
  const out = [];
  try {
    const pages = [
      async () => ['demo seed page', demoUrl, demoHeaders, demoSample],
      async () => {
        const full = await seedBranches(baseUrl, credential);
        return ['20-row page', full.url, full.headers, full.sample];
      },
    ];
    for (const page of pages) {
      const [label, url, headers, sample] = await page();
      out.push(...(await compare({ log, label, url, headers, sample, partner })), '');
    }
  } finally {
    await partner.close();
  }
  return out;
}

async function compare({ log, label, url, headers, sample, partner }) {
  const raw = await spawnNode(
    `import http from 'node:http';
     const body = ${JSON.stringify(sample)};
     const s = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }); res.end(body); });
     s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + s.address().port + '/' })));
     process.on('SIGTERM', () => process.exit(0));`,
    { core: 0 },
  );

  // Both servers must answer the bytes compared (the partner's differ only in the request id).
  const sizes = await Promise.all([
    fetch(raw.info.url).then((r) => r.arrayBuffer()),
    fetch(url, { headers }).then((r) => r.arrayBuffer()),
  ]);
  if (sizes.some((b) => b.byteLength !== Buffer.byteLength(sample)))
    throw new Error(
      `${label}: answers of ${sizes.map((b) => b.byteLength).join(' and ')} bytes, sample ${Buffer.byteLength(sample)}`,
    );

  const rawRuns = [];
  const partnerRuns = [];
  try {
    await load({ url: raw.info.url, duration: WARM_S });
    await load({ url, headers, duration: WARM_S });
    for (let i = 0; i < RUNS; i++) {
      rawRuns.push(await withCpu(raw.child.pid, () => load({ url: raw.info.url })));
      partnerRuns.push(await withCpu(partner.child.pid, () => load({ url, headers })));
      log(
        `${label} run ${i + 1}: raw ${fmt(rawRuns[i].rps)} req/s p99 ${rawRuns[i].p99} ms ${fmt(rawRuns[i].cpuUs, 1)} µs CPU/req · partner ${fmt(partnerRuns[i].rps)} req/s p99 ${partnerRuns[i].p99} ms ${fmt(partnerRuns[i].cpuUs, 1)} µs CPU/req (non-2xx ${partnerRuns[i].non2xx})`,
      );
    }
  } finally {
    await raw.close();
  }
  const rawRps = median(rawRuns.map((r) => r.rps));
  const rawP99 = median(rawRuns.map((r) => r.p99));
  const rawCpu = median(rawRuns.map((r) => r.cpuUs));
  const cpu = median(partnerRuns.map((r) => r.cpuUs));
  const rps = median(partnerRuns.map((r) => r.rps));
  const p99 = median(partnerRuns.map((r) => r.p99));
  const ratio = rps / rawRps;
  const bad = partnerRuns.reduce((n, r) => n + r.non2xx + r.errors, 0);
  return [
    `**${label}** (${fmt(Buffer.byteLength(sample))} bytes) · _${loadNote()}._ ` +
      `50 connections, ${RUNS} × 5 s each, floor and partner back to back, servers pinned to core 0, load on core 1; medians. CPU: user + system time of the server process over the run ÷ requests answered.`,
    '',
    '| | req/s | p99 ms | CPU µs/request |',
    '|---|---:|---:|---:|',
    `| raw node:http (floor) | ${fmt(rawRps)} | ${rawP99} | ${fmt(rawCpu, 1)} |`,
    `| partner GET /branches | ${fmt(rps)} | ${p99} | ${fmt(cpu, 1)} |`,
    '',
    `**ratio ${fmt(ratio, 2)}** (target ≥ 0.85) · **p99 ${p99} ms = ${fmt(p99 / rawP99, 2)} × the floor's** (target ≤ 1.3 ×) · CPU ratio (floor ÷ partner) ${fmt(rawCpu / cpu, 2)} · non-2xx/errors: ${bad}`,
    '',
    `Per-run ratios: ${rawRuns.map((r, i) => fmt(partnerRuns[i].rps / r.rps, 2)).join(', ')}.`,
  ];
}
