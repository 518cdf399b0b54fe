// Issue 14: the server's resident memory after 2,000 bad requests and after the GET /branches
// load, each run twice: RSS before, after the first and after the second identical run. Target:
// ≤ 150 MB, and no growth from the first run to the second.
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { seedBranches } from '../lib/seed.mjs';
import { basic, rssMb, startPartnerServer, withCpu } from '../lib/server.mjs';
import { fmt, load, loadNote } from '../lib/stats.mjs';

export const title = 'Server memory: RSS after 2,000 bad requests and after the GET /branches load';

const BAD = 2000;
const CONCURRENCY = 16;
const LIMIT_MB = 150;

/** The bad requests, one of each kind in turn: what a fuzzer or a broken client sends. */
function badRequests(credential) {
  const auth = basic(credential);
  const json = { 'content-type': 'application/json' };
  const write = (k) => ({ authorization: auth, ...json, 'idempotency-key': `bad-${k}` });
  const big = `{"title":"${'x'.repeat(900 * 1024)}"}`;
  const tooBig = `{"title":"${'x'.repeat(1100 * 1024)}"}`;
  const bomb = gzipSync(
    Buffer.concat([Buffer.from('{"title":"'), Buffer.alloc(8 << 20, 0x20), Buffer.from('"}')]),
  );
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  return [
    () => ({ method: 'GET', path: '/v1/partner/branches', headers: {} }), // no credential
    (k) => ({
      method: 'GET',
      path: '/v1/partner/branches',
      headers: { authorization: basic({ key: credential.key, secret: `wrong-${k}` }) },
    }),
    (k) => ({
      method: 'GET',
      path: '/v1/partner/branches',
      headers: { authorization: basic({ key: `pk_unknown_${k}`, secret: 'nope' }) },
    }),
    (k) => ({ method: 'POST', path: '/v1/partner/brands', headers: write(k), body: '{"title": "trunc' }),
    (k) => ({ method: 'POST', path: '/v1/partner/brands', headers: write(k), body: big }), // a huge field
    (k) => ({ method: 'POST', path: '/v1/partner/brands', headers: write(k), body: tooBig }), // 413
    (k) => ({
      method: 'POST',
      path: '/v1/partner/brands',
      headers: { ...write(k), 'content-encoding': 'gzip' },
      body: bomb,
    }),
    (k) => ({ method: 'POST', path: '/v1/partner/brands', headers: write(k), body: deep }),
    (k) => ({
      method: 'POST',
      path: '/v1/partner/brands',
      headers: { ...write(k), 'content-type': 'text/plain' },
      body: 'title',
    }),
    () => ({
      method: 'POST',
      path: '/v1/partner/brands',
      headers: { authorization: auth, ...json },
      body: '{}',
    }),
    (k) => ({ method: 'PATCH', path: '/v1/partner/orders/status', headers: write(k), body: '{"id":"x"}' }),
    (k) => ({ method: 'GET', path: `/v1/partner/nowhere/${k}`, headers: { authorization: auth } }),
    (k) => ({
      method: 'POST',
      path: '/v1/partner/brands',
      headers: write(k),
      body: Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    }),
  ];
}

async function sendBad(baseUrl, credential, round) {
  const kinds = badRequests(credential);
  const dispatcher = new Agent({ connections: CONCURRENCY });
  const statuses = new Map();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < BAD) {
        const k = next++;
        const r = kinds[k % kinds.length](`${round}-${k}`);
        try {
          const res = await request(baseUrl + r.path, {
            method: r.method,
            headers: r.headers,
            body: r.body,
            dispatcher,
          });
          await res.body.dump();
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        } catch (err) {
          // The server may close a connection on a body it refuses before reading it all.
          statuses.set(err.code ?? 'error', (statuses.get(err.code ?? 'error') ?? 0) + 1);
        }
      }
    }),
  );
  await dispatcher.close();
  return statuses;
}

const settle = () => new Promise((r) => setTimeout(r, 1000));

/**
 * The low-memory settings docs/deploy.md gives (environment of the server process): glibc keeps
 * at most two malloc arenas and serves blocks over 128 KiB with mmap, so freed request bodies and
 * scrypt buffers go back to the system; a heap limit V8 sizes its growth by (the default is a
 * quarter of the machine's memory), and a smaller young generation.
 */
export const LOW_MEMORY = {
  env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
  nodeArgs: ['--max-old-space-size=1024', '--max-semi-space-size=8'],
};

/** RSS of one server through two runs of bad requests, then two of the GET load. */
async function measure(log, label, settings) {
  const partner = await startPartnerServer({ core: 0, ...settings });
  const { baseUrl, credential } = partner.info;
  const pid = partner.child.pid;
  const bad = [];
  const get = [];
  const cpuPerGet = [];
  let statuses;
  let bad2xx = 0;
  try {
    const { url, headers } = await seedBranches(baseUrl, credential);
    await settle();
    bad.push(rssMb(pid));
    for (let round = 1; round <= 2; round++) {
      statuses = await sendBad(baseUrl, credential, round);
      bad2xx += [...statuses].filter(([s]) => s >= 200 && s < 300).reduce((n, [, c]) => n + c, 0);
      await settle();
      bad.push(rssMb(pid));
      log(
        `${label}: bad requests, run ${round}: RSS ${fmt(bad[round], 1)} MB · ${JSON.stringify([...statuses])}`,
      );
    }
    get.push(rssMb(pid));
    for (let round = 1; round <= 2; round++) {
      const r = await withCpu(pid, () => load({ url, headers }));
      const cpu = r.cpuUs;
      cpuPerGet.push(cpu);
      await settle();
      get.push(rssMb(pid));
      log(
        `${label}: GET load, run ${round}: ${fmt(r.rps)} req/s, ${fmt(cpu, 1)} µs CPU/req · RSS ${fmt(get[round], 1)} MB`,
      );
    }
  } finally {
    await partner.close();
  }
  const worst = Math.max(...bad, ...get);
  const grew = (xs) => xs[2] - xs[1];
  const ok = worst <= LIMIT_MB && grew(bad) <= 2 && grew(get) <= 2;
  return [
    `| ${label}: 2,000 bad requests | ${fmt(bad[0], 1)} MB | ${fmt(bad[1], 1)} MB | ${fmt(bad[2], 1)} MB |`,
    `| ${label}: GET /branches load | ${fmt(get[0], 1)} MB | ${fmt(get[1], 1)} MB | ${fmt(get[2], 1)} MB |`,
    `**${label}: peak ${fmt(worst, 1)} MB** (target ≤ ${LIMIT_MB}) · growth from the 1st to the 2nd run: ${fmt(grew(bad), 1)} MB (bad requests), ${fmt(grew(get), 1)} MB (GET) · ${ok ? 'met' : '**not met**'} · last run's answers: ${[...statuses].map(([s, n]) => `${s} × ${n}`).join(', ')}; 2xx among the bad: ${bad2xx} · server CPU per GET ${cpuPerGet.map((c) => fmt(c, 1)).join(', ')} µs`,
  ];
}

export async function run({ log }) {
  const plain = await measure(log, 'default', {});
  const low = await measure(log, 'low-memory settings', LOW_MEMORY);
  const kinds = badRequests({ key: 'k', secret: 's' }).length;
  return [
    `_${loadNote()}._ ` +
      `${fmt(BAD)} bad requests per run, ${CONCURRENCY} at a time, ${kinds} kinds in turn (no or wrong credential, truncated, 900 KiB and 1.1 MiB bodies, a gzip bomb, 200,000 levels of nesting, wrong content type, no Idempotency-Key, wrong types, unknown path, bad UTF-8); then the branches suite's GET load (50 connections, 5 s) twice. RSS of the server process (demo seed + 20 branches) read from /proc 1 s after each run. Two servers, one after the other: started as \`partner local start\` starts by default, and with the low-memory settings of docs/deploy.md (\`MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072\`, \`NODE_OPTIONS="${LOW_MEMORY.nodeArgs.join(' ')}"\`).`,
    '',
    '| | before | after 1st run | after 2nd run |',
    '|---|---:|---:|---:|',
    plain[0],
    plain[1],
    low[0],
    low[1],
    '',
    plain[2],
    '',
    low[2],
  ];
}
