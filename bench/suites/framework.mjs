// Issue 24: Fastify or node:http + find-my-way? The cost of the framework alone, measured on the
// GET row's shape: each server answers GET /v1/partner/branches with the same bytes (the demo
// seed's small page, 6.4 KB, and a 20-row page, 33 KB), routed among ~40 routes of the API's shape,
// no stage at all. If Fastify alone is far from the floor, no stage work can reach 0.85 on it.
// A fourth server does the least any design must do for an authenticated read, on node:http +
// find-my-way with no framework: what GET /branches could cost at best.
import { modulePath, spawnNode, withCpu } from '../lib/server.mjs';
import { fmt, load, loadNote, median } from '../lib/stats.mjs';

export const title =
  'Framework floor: the same bytes from raw node:http, node:http + find-my-way (bare, and with the least work of an authenticated read), Fastify';

const RUNS = 3;
const DURATION = 3;
/** The Basic header every request carries (the servers that do not authenticate ignore it). */
const AUTH = `Basic ${Buffer.from('pk_bench:sk_bench_secret_of_forty_three_characters_x').toString('base64')}`;
const nm = (p) => JSON.stringify(modulePath(p));

const ROUTES = `
  const paths = ['/v1/partner/brands', '/v1/partner/brands/:id', '/v1/partner/brands/:id/visibility',
    '/v1/partner/branches', '/v1/partner/branches/:id', '/v1/partner/branches/:id/visibility',
    '/v1/partner/menus', '/v1/partner/menus/:id', '/v1/partner/menus/:id/items', '/v1/partner/menus/:id/publish',
    '/v1/partner/orders', '/v1/partner/orders/:id', '/v1/partner/orders/status', '/v1/partner/stock',
    '/v1/partner/webhooks', '/v1/partner/webhooks/:id', '/v1/partner/webhooks/:id/deliveries',
    '/v1/operator/credentials', '/v1/operator/credentials/:key/rotate', '/v1/operator/credentials/:key/revoke',
    '/v1/operator/requests', '/v1/operator/requests/:id', '/v1/operator/businesses', '/healthz'];`;

function servers(body) {
  const b = JSON.stringify(body);
  const head = `import http from 'node:http'; const body = Buffer.from(${b}); ${ROUTES}
    const send = (res) => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length, 'x-request-id': 'req_x' }); res.end(body); };
    const up = (s) => s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + s.address().port + '/v1/partner/branches?page=1&size=20' })));
    process.on('SIGTERM', () => process.exit(0));`;
  return {
    'raw node:http': `${head} up(http.createServer((req, res) => send(res)));`,
    'node:http + find-my-way': `${head}
      const { default: FMW } = await import(${nm('find-my-way/index.js')});
      const router = FMW({ ignoreTrailingSlash: true, defaultRoute: (req, res) => { res.statusCode = 404; res.end(); } });
      for (const p of paths) for (const m of ['GET', 'POST', 'PATCH']) router.on(m, p, (req, res) => send(res));
      up(http.createServer((req, res) => router.lookup(req, res)));`,
    'node:http + find-my-way + least work of a read': `${head}
      const { createHash, hash } = await import('node:crypto');
      const { default: FMW } = await import(${nm('find-my-way/index.js')});
      // The credential check from a cache keyed by a digest of the header (never the secret
      // itself), one take of its token bucket, a request id, the envelope around a cached page.
      const digest = (h) => (hash ? hash('sha256', h, 'base64') : createHash('sha256').update(h).digest('base64'));
      const creds = new Map([[digest(${JSON.stringify(AUTH)}), { key: 'pk_bench', limit: 1e6 }]]);
      const buckets = new Map();
      const page = body.subarray(body.indexOf('"data":') + 7);
      let n = 0;
      const read = (req, res) => {
        const cred = creds.get(digest(req.headers.authorization ?? ''));
        if (!cred) { res.statusCode = 401; res.end(); return; }
        const now = Date.now();
        const b = buckets.get(cred.key) ?? { tokens: cred.limit, at: now };
        b.tokens = Math.min(cred.limit, b.tokens + ((now - b.at) * cred.limit) / 60000) - 1;
        b.at = now;
        buckets.set(cred.key, b);
        const id = 'req_' + (++n).toString(36).padStart(8, '0');
        const open = '{"request_id":"' + id + '","data":';
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': open.length + page.length, 'x-request-id': id,
          'ratelimit-limit': cred.limit, 'ratelimit-remaining': Math.floor(b.tokens), 'ratelimit-reset': 0 });
        res.write(open);
        res.end(page);
      };
      const router = FMW({ ignoreTrailingSlash: true, defaultRoute: (req, res) => { res.statusCode = 404; res.end(); } });
      for (const p of paths) for (const m of ['GET', 'POST', 'PATCH']) router.on(m, p, p === '/v1/partner/branches' && m === 'GET' ? read : (req, res) => send(res));
      up(http.createServer((req, res) => router.lookup(req, res)));`,
    Fastify: `${head}
      const { default: Fastify } = await import(${nm('fastify/fastify.js')});
      const app = Fastify({ logger: false, serverFactory: (h) => http.createServer(h) });
      for (const p of paths) for (const m of ['GET', 'POST', 'PATCH']) app.route({ method: m, url: p, handler: (req, reply) => { reply.header('x-request-id', req.id).type('application/json; charset=utf-8').send(body); } });
      await app.ready(); up(app.server);`,
  };
}

export async function run({ log }) {
  const sizes = [
    ['small page (6.4 KB)', 6_400],
    ['20-row page (33 KB)', 33_000],
  ];
  const out = [
    `_${loadNote()}._ 50 connections, ${RUNS} × ${DURATION} s per server, back to back, servers pinned to core 0; medians. Ratio: req/s ÷ raw node:http's in the same run.`,
    '',
    '| body | server | req/s | p99 ms | CPU µs/request | ratio |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const [label, n] of sizes) {
    const body = JSON.stringify({ request_id: 'req_x', data: { results: 'x'.repeat(n - 60) } });
    const started = {};
    for (const [name, script] of Object.entries(servers(body)))
      started[name] = await spawnNode(script, { core: 0 });
    const runs = Object.fromEntries(Object.keys(started).map((k) => [k, []]));
    try {
      for (const s of Object.values(started))
        await load({ url: s.info.url, headers: { authorization: AUTH }, duration: 1 });
      for (let i = 0; i < RUNS; i++) {
        for (const [name, s] of Object.entries(started)) {
          runs[name].push(
            await withCpu(s.child.pid, () =>
              load({ url: s.info.url, headers: { authorization: AUTH }, duration: DURATION }),
            ),
          );
        }
        log(
          `${label} run ${i + 1}: ${Object.keys(started)
            .map((k) => `${k} ${fmt(runs[k][i].rps)}`)
            .join(' · ')}`,
        );
      }
    } finally {
      for (const s of Object.values(started)) await s.close();
    }
    const refused = Object.values(runs)
      .flat()
      .reduce((k, r) => k + r.non2xx + r.errors, 0);
    if (refused > 0) throw new Error(`framework bench: ${refused} answers were not 2xx`);
    const floor = median(runs['raw node:http'].map((r) => r.rps));
    for (const [name, rs] of Object.entries(runs)) {
      const rps = median(rs.map((r) => r.rps));
      out.push(
        `| ${label} | ${name} | ${fmt(rps)} | ${median(rs.map((r) => r.p99))} | ${fmt(median(rs.map((r) => r.cpuUs)), 1)} | ${fmt(rps / floor, 2)} |`,
      );
    }
  }
  return out;
}
