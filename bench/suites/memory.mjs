// Issues 14 and 24: the resident memory of a plain `partner local start` through two identical
// rounds of 2,000 bad requests and 20,000 GETs. Target: peak ≤ 150 MB, growth from the first
// round to the second ≤ 10 MB, with no environment tuning.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { seedBranches } from '../lib/seed.mjs';
import { basic, hasTaskset, rssMb, withCpu } from '../lib/server.mjs';
import { fmt, load, loadNote } from '../lib/stats.mjs';

export const title =
  'Server memory: plain `partner local start`, two rounds of 2,000 bad requests + 20,000 GETs';

const BAD = 2000;
const CONCURRENCY = 16;
const LIMIT_MB = 150;
const GROWTH_MB = 10;

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
const GETS = 20_000;

/**
 * `partner local start --seed demo` exactly as a user starts it (the built launcher, no
 * environment tuning), in a child pinned to core 0; resolves once it prints its URL, with the
 * demo credential it printed and its operator token (local.json).
 */
async function startLocal() {
  const dir = mkdtempSync(join(tmpdir(), 'partner-bench-local-'));
  const bin = new URL('../../bin/partner.js', import.meta.url).pathname;
  const args = [bin, 'local', 'start', '--data', join(dir, 'data'), '--port', '0', '--seed', 'demo'];
  const env = { ...process.env, PARTNER_CONFIG_DIR: join(dir, 'config'), PARTNER_KEYRING: 'off' };
  // The bench's own environment must not tune the server it measures.
  for (const k of ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'NODE_OPTIONS']) delete env[k];
  const child = hasTaskset
    ? spawn('taskset', ['-c', '0', process.execPath, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const info = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('partner local start did not start within 60 s')),
      60_000,
    );
    child.stdout.on('data', (d) => {
      out += d;
      const url = /listening on (\S+)/.exec(out);
      const cred = /business 1: (pk_[^:\s]+):(\S+)/.exec(out);
      if (url && cred) {
        clearTimeout(timer);
        resolve({ baseUrl: url[1], credential: { key: cred[1], secret: cred[2] } });
      }
    });
    child.once('exit', (code) => reject(new Error(`partner local start exited with ${code}: ${out}`)));
  });
  const { operator_token: token } = JSON.parse(readFileSync(join(dir, 'data', 'local.json'), 'utf8'));
  // The bench measures the server, not the limiter's 429s.
  await fetch(`${info.baseUrl}/v1/operator/credentials/${info.credential.key}/rate-limit`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ rate_limit: 1_000_000 }),
  });
  return {
    ...info,
    pid: child.pid,
    async close() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Samples a process's RSS every 50 ms while `fn` runs; resolves with fn's result and the peak. */
async function peakDuring(pid, fn) {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 50);
  try {
    const r = await fn();
    return { r, peak: Math.max(peak, rssMb(pid)) };
  } finally {
    clearInterval(timer);
  }
}

export async function run({ log }) {
  const partner = await startLocal();
  const { baseUrl, credential, pid } = partner;
  const after = [];
  const peaks = [];
  const cpuPerGet = [];
  let statuses;
  let bad2xx = 0;
  try {
    const { url, headers } = await seedBranches(baseUrl, credential);
    await settle();
    after.push(rssMb(pid));
    peaks.push(after[0]);
    for (let round = 1; round <= 2; round++) {
      const { r, peak } = await peakDuring(pid, async () => {
        const st = await sendBad(baseUrl, credential, round);
        const g = await withCpu(pid, () => load({ url, headers, amount: GETS, duration: 600 }));
        return { st, g };
      });
      statuses = r.st;
      bad2xx += [...statuses].filter(([s]) => s >= 200 && s < 300).reduce((n, [, c]) => n + c, 0);
      cpuPerGet.push(r.g.cpuUs);
      await settle();
      after.push(rssMb(pid));
      peaks.push(peak);
      log(
        `round ${round}: ${fmt(BAD)} bad ${JSON.stringify([...statuses])} + ${fmt(r.g.count)} GETs (${fmt(r.g.rps)} req/s, non-2xx ${r.g.non2xx}): peak ${fmt(peak, 1)} MB, RSS after ${fmt(after[round], 1)} MB`,
      );
    }
  } finally {
    await partner.close();
  }
  const worst = Math.max(...peaks);
  const growth = after[2] - after[1];
  const ok = worst <= LIMIT_MB && growth <= GROWTH_MB;
  const kinds = badRequests({ key: 'k', secret: 's' }).length;
  return [
    `_${loadNote()}._ ` +
      `A plain \`partner local start --seed demo\` (the built launcher, no environment tuning: no MALLOC_* variables, no NODE_OPTIONS), 20 branches added. A round is ${fmt(BAD)} bad requests, ${CONCURRENCY} at a time, ${kinds} kinds in turn (no or wrong credential, truncated, 900 KiB and 1.1 MiB bodies, a gzip bomb, 200,000 levels of nesting, wrong content type, no Idempotency-Key, wrong types, unknown path, bad UTF-8), then ${fmt(GETS)} GET /branches (20 rows) over 50 connections; two rounds. RSS of the server process from /proc: sampled every 50 ms during each round (peak) and 1 s after it.`,
    '',
    '| | RSS after | peak during |',
    '|---|---:|---:|',
    `| started, seeded | ${fmt(after[0], 1)} MB | |`,
    `| round 1 | ${fmt(after[1], 1)} MB | ${fmt(peaks[1], 1)} MB |`,
    `| round 2 | ${fmt(after[2], 1)} MB | ${fmt(peaks[2], 1)} MB |`,
    '',
    `**peak ${fmt(worst, 1)} MB** (target ≤ ${LIMIT_MB}) · **growth from round 1 to round 2: ${fmt(growth, 1)} MB** (target ≤ ${GROWTH_MB}) · ${ok ? 'met' : '**not met**'} · last round's answers to the bad requests: ${[...statuses].map(([s, n]) => `${s} × ${n}`).join(', ')}; 2xx among the bad: ${bad2xx} · server CPU per GET ${cpuPerGet.map((c) => fmt(c, 1)).join(', ')} µs`,
  ];
}
