// Issues 4 and 14: PATCH /v1/partner/orders/status with a unique Idempotency-Key per request (each
// one a real transition: order update + outbox event + idempotency record, in one transaction)
// against raw node:http + better-sqlite3 doing one INSERT per request, same run, same pragmas
// (WAL, synchronous=NORMAL). Target (issue 14): ratio ≥ 0.55. CPU µs per request of both beside.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { spawnNode, startPartnerServer, withCpu } from '../lib/server.mjs';
import { fmt, load, median, loadNote } from '../lib/stats.mjs';
import { floorRequests, patchRequests, templateOrder } from '../lib/status-patches.mjs';

export const title = 'PATCH /v1/partner/orders/status (unique keys) vs raw node:http + SQLite insert';

const RUNS = 5;
const DURATION = 3;
/** Fresh PLACED orders per run (status-patches.mjs: patchRequests). */
const BATCH = 40_000;

/** Clones a PLACED template order `n` times straight into the store (ids and records rewritten). */
export function cloneOrders(dataDir, templateId, n) {
  const db = new Database(join(dataDir, 'partner.db'));
  db.pragma('busy_timeout = 5000');
  try {
    return db
      .transaction(() => {
        const first = (db.prepare('SELECT max(id) FROM orders').pluck().get() ?? 0) + 1;
        db.prepare(
          `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
         INSERT INTO orders (business_id, brand_id, branch_id, status, created_ms, updated_ms, record)
         SELECT business_id, brand_id, branch_id, status, created_ms, updated_ms, record FROM orders, k WHERE id = ?`,
        ).run(n, templateId);
        db.prepare("UPDATE orders SET record = json_set(record, '$.id', id) WHERE id >= ?").run(first);
        return first;
      })
      .immediate();
  } finally {
    db.close();
  }
}

export async function run({ log }) {
  const partner = await startPartnerServer({ core: 0 });
  const { baseUrl, operatorToken, credential, dataDir } = partner.info;
  const template = await templateOrder(baseUrl, operatorToken, credential);
  const recordBytes = Buffer.byteLength(JSON.stringify(template));

  const rawDir = mkdtempSync(join(tmpdir(), 'partner-bench-raw-'));
  const raw = await spawnNode(
    `import http from 'node:http';
     import Database from ${JSON.stringify(new URL('../../node_modules/better-sqlite3/lib/index.js', import.meta.url).pathname)};
     const db = new Database(${JSON.stringify(join(rawDir, 'raw.db'))});
     db.pragma('journal_mode = WAL');
     db.pragma('synchronous = NORMAL');
     db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, idem_key TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL)');
     const insert = db.prepare('INSERT INTO rows (idem_key, body, created_at) VALUES (?, ?, ?)');
     const s = http.createServer((req, res) => {
       let body = '';
       req.setEncoding('utf8');
       req.on('data', (c) => { body += c; });
       req.on('end', () => {
         const b = JSON.parse(body);
         const id = insert.run(req.headers['idempotency-key'], body, Date.now()).lastInsertRowid;
         const out = JSON.stringify({ request_id: 'raw', data: { id: Number(id), status: b.status } });
         res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(out) });
         res.end(out);
       });
     });
     s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + s.address().port })));
     process.on('SIGTERM', () => { db.close(); process.exit(0); });`,
    { core: 0 },
  );

  const rawRuns = [];
  const partnerRuns = [];
  try {
    const warm = cloneOrders(dataDir, template.id, BATCH);
    await load({ url: raw.info.url, duration: 1, requests: floorRequests('warm') });
    await load({ url: baseUrl, duration: 1, requests: patchRequests(credential, warm, 'warm', BATCH) });
    for (let i = 0; i < RUNS; i++) {
      const first = cloneOrders(dataDir, template.id, BATCH);
      rawRuns.push(
        await withCpu(raw.child.pid, () =>
          load({ url: raw.info.url, duration: DURATION, requests: floorRequests(`raw${i}`) }),
        ),
      );
      partnerRuns.push(
        await withCpu(partner.child.pid, () =>
          load({
            url: baseUrl,
            duration: DURATION,
            requests: patchRequests(credential, first, `run${i}`, BATCH),
          }),
        ),
      );
      log(
        `run ${i + 1}: raw ${fmt(rawRuns[i].rps)} req/s p99 ${rawRuns[i].p99} ms ${fmt(rawRuns[i].cpuUs, 1)} µs CPU/req · partner ${fmt(partnerRuns[i].rps)} req/s p99 ${partnerRuns[i].p99} ms ${fmt(partnerRuns[i].cpuUs, 1)} µs CPU/req (non-2xx ${partnerRuns[i].non2xx})`,
      );
    }
    // Every 2xx was a real transition with its event: check the outbox kept up.
    const db = new Database(join(dataDir, 'partner.db'), { readonly: true });
    const events = db
      .prepare("SELECT count(*) FROM outbox_events WHERE type = 'service.order.status.updated'")
      .pluck()
      .get();
    db.close();
    log(`status events in the outbox after the runs: ${fmt(events)}`);
  } finally {
    await raw.close();
    await partner.close();
    rmSync(rawDir, { recursive: true, force: true });
  }
  const rawRps = median(rawRuns.map((r) => r.rps));
  const rps = median(partnerRuns.map((r) => r.rps));
  const p99 = median(partnerRuns.map((r) => r.p99));
  const rawCpu = median(rawRuns.map((r) => r.cpuUs));
  const cpu = median(partnerRuns.map((r) => r.cpuUs));
  const ratio = rps / rawRps;
  const bad = partnerRuns.reduce((n, r) => n + r.non2xx + r.errors, 0);
  return [
    `_${loadNote()}._ ` +
      `Each partner request is a real transition (PLACED → ACCEPTED on a fresh order): auth, rate limit, idempotency record, order update (status history included) and outbox event in one savepoint of the event-loop turn's group commit (answered only after the COMMIT), with the webhook dispatcher running in the same process (no receiver registered); order record ${fmt(recordBytes)} bytes. The floor parses the same JSON body and INSERTs one row. 50 connections, ${RUNS} × ${DURATION} s each, servers pinned to core 0, load on core 1; medians. WAL, synchronous=NORMAL on both. CPU: user + system time of the server process over the run ÷ requests answered.`,
    '',
    '| | req/s | p99 ms | CPU µs/request |',
    '|---|---:|---:|---:|',
    `| raw node:http + better-sqlite3 INSERT (floor) | ${fmt(rawRps)} | ${median(rawRuns.map((r) => r.p99))} | ${fmt(rawCpu, 1)} |`,
    `| partner PATCH /orders/status | ${fmt(rps)} | ${p99} | ${fmt(cpu, 1)} |`,
    '',
    `**ratio ${fmt(ratio, 2)}** (target ≥ 0.55) · CPU ratio (floor ÷ partner) ${fmt(rawCpu / cpu, 2)} · non-2xx/errors: ${bad}`,
    '',
    // Each run measures the floor and the partner back to back; their ratios show how much of the
    // spread is the machine drifting between runs rather than either server.
    `Per-run ratios (floor and partner measured back to back): ${rawRuns.map((r, i) => fmt(partnerRuns[i].rps / r.rps, 2)).join(', ')}.`,
  ];
}
