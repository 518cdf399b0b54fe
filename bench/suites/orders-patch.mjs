// Issues 4 and 14: PATCH /v1/partner/orders/status with a unique Idempotency-Key per request (each
// one a real transition: order update + outbox event + idempotency record, in one transaction)
// against raw node:http + better-sqlite3 doing one INSERT per request, same run, same pragmas
// (WAL, synchronous=NORMAL). Target (issue 14): ratio ≥ 0.55. CPU µs per request of both beside.
// A third server does the least work of a transition (leastWork, below): how near the floor any
// design that keeps the guarantees could come.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { basic, modulePath, spawnNode, startPartnerServer, withCpu } from '../lib/server.mjs';
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
     import Database from ${JSON.stringify(modulePath('better-sqlite3/lib/index.js'))};
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

  // The least any design must do for this request, with no framework and no layer: a copy of the
  // partner's database (its schema, indexes and template order), the same statements a transition
  // needs under the same group commit. What the real server could cost at best.
  const leastDir = mkdtempSync(join(tmpdir(), 'partner-bench-least-'));
  const leastDb = join(leastDir, 'partner.db');
  const copy = new Database(join(dataDir, 'partner.db'), { readonly: true });
  copy.exec(`VACUUM INTO '${leastDb}'`);
  copy.close();
  const least = await spawnNode(leastWork(leastDb, basic(credential), credential.business_id), { core: 0 });

  const rawRuns = [];
  const partnerRuns = [];
  const leastRuns = [];
  try {
    const warm = cloneOrders(dataDir, template.id, BATCH);
    await load({ url: raw.info.url, duration: 1, requests: floorRequests('warm') });
    await load({ url: baseUrl, duration: 1, requests: patchRequests(credential, warm, 'warm', BATCH) });
    const leastWarm = cloneOrders(leastDir, template.id, BATCH);
    await load({
      url: least.info.url,
      duration: 1,
      requests: patchRequests(credential, leastWarm, 'warm', BATCH),
    });
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
      const leastFirst = cloneOrders(leastDir, template.id, BATCH);
      leastRuns.push(
        await withCpu(least.child.pid, () =>
          load({
            url: least.info.url,
            duration: DURATION,
            requests: patchRequests(credential, leastFirst, `run${i}`, BATCH),
          }),
        ),
      );
      log(
        `run ${i + 1}: least work ${fmt(leastRuns[i].rps)} req/s ${fmt(leastRuns[i].cpuUs, 1)} µs CPU/req (non-2xx ${leastRuns[i].non2xx})`,
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
    await least.close();
    rmSync(rawDir, { recursive: true, force: true });
    rmSync(leastDir, { recursive: true, force: true });
  }
  const rawRps = median(rawRuns.map((r) => r.rps));
  const rps = median(partnerRuns.map((r) => r.rps));
  const p99 = median(partnerRuns.map((r) => r.p99));
  const rawCpu = median(rawRuns.map((r) => r.cpuUs));
  const cpu = median(partnerRuns.map((r) => r.cpuUs));
  const ratio = rps / rawRps;
  const leastRps = median(leastRuns.map((r) => r.rps));
  const leastCpu = median(leastRuns.map((r) => r.cpuUs));
  const bad = partnerRuns.reduce((n, r) => n + r.non2xx + r.errors, 0);
  return [
    `_${loadNote()}._ ` +
      `Each partner request is a real transition (PLACED → ACCEPTED on a fresh order): auth, rate limit, idempotency record, order update (status history included) and outbox event in one savepoint of the event-loop turn's group commit (answered only after the COMMIT), with the webhook dispatcher running in the same process (no receiver registered); order record ${fmt(recordBytes)} bytes. The floor parses the same JSON body and INSERTs one row. 50 connections, ${RUNS} × ${DURATION} s each, servers pinned to core 0, load on core 1; medians. WAL, synchronous=NORMAL on both. CPU: user + system time of the server process over the run ÷ requests answered.`,
    '',
    '| | req/s | p99 ms | CPU µs/request |',
    '|---|---:|---:|---:|',
    `| raw node:http + better-sqlite3 INSERT (floor) | ${fmt(rawRps)} | ${median(rawRuns.map((r) => r.p99))} | ${fmt(rawCpu, 1)} |`,
    `| partner PATCH /orders/status | ${fmt(rps)} | ${p99} | ${fmt(cpu, 1)} |`,
    `| least work of a transition (node:http + better-sqlite3, no framework) | ${fmt(leastRps)} | ${median(leastRuns.map((r) => r.p99))} | ${fmt(leastCpu, 1)} |`,
    '',
    `**ratio ${fmt(ratio, 2)}** (target ≥ 0.55) · CPU ratio (floor ÷ partner) ${fmt(rawCpu / cpu, 2)} · non-2xx/errors: ${bad}`,
    '',
    `The least work of a transition reaches **${fmt(leastRps / rawRps, 2)}** of the floor (CPU ratio ${fmt(rawCpu / leastCpu, 2)}): what any design keeping the guarantees could reach on this machine. It reads the body, checks the credential from a cache keyed by a digest of the header, takes a token, claims the key in memory and looks for its stored answer, then in one savepoint of the turn's group commit reads the order, checks the move, rewrites the record, takes the event seq, inserts the event and the stored answer (by reference to the event, as the partner does); answered after the COMMIT. Non-2xx: ${leastRuns.reduce((n, r) => n + r.non2xx + r.errors, 0)}.`,
    '',
    // Each run measures the floor and the partner back to back; their ratios show how much of the
    // spread is the machine drifting between runs rather than either server.
    `Per-run ratios (floor and partner measured back to back): ${rawRuns.map((r, i) => fmt(partnerRuns[i].rps / r.rps, 2)).join(', ')}.`,
  ];
}

/** The least-work transition server (see run): an ES module body for spawnNode. */
function leastWork(file, authorization, businessId) {
  return `import http from 'node:http';
    import { createHash, hash } from 'node:crypto';
    import Database from ${JSON.stringify(modulePath('better-sqlite3/lib/index.js'))};
    const db = new Database(${JSON.stringify(file)});
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('wal_autocheckpoint = 10000');
    db.pragma('foreign_keys = ON');
    const S = (sql) => db.prepare(sql);
    const begin = S('BEGIN IMMEDIATE'), commit = S('COMMIT'), sp = S('SAVEPOINT u'), rel = S('RELEASE u'), back = S('ROLLBACK TO u');
    const answer = S('SELECT fingerprint, status, payload, event_seq FROM idempotency_keys WHERE credential_key = ? AND idem_key = ?');
    const order = S('SELECT id, brand_id, branch_id, status, updated_ms, record FROM orders WHERE id = ? AND business_id = ?');
    // The event's seq, and whether any registration receives it (else it is settled as written).
    const next = S(\`SELECT (SELECT coalesce(max(seq), 0) + 1 FROM outbox_events) AS seq, EXISTS (SELECT 1 FROM webhooks
      WHERE business_id = ? AND deleted_at IS NULL AND (brand_id IS NULL OR brand_id = ?) AND (branch_id IS NULL OR branch_id = ?)
        AND (event = 'all' OR event = 'service.order.status.updated')) AS heard\`);
    const event = S(\`INSERT INTO outbox_events (seq, id, type, business_id, brand_id, branch_id, order_id, payload, next_attempt_ms, created_at, updated_at, fanned_out, status)
      VALUES (?, ?, 'service.order.status.updated', ?, ?, ?, ?, ?, ?, ?, ?, 1, 'delivered')\`);
    const save = S('UPDATE orders SET status = ?, updated_ms = ?, record = ? WHERE id = ? AND business_id = ?');
    const put = S('INSERT INTO idempotency_keys (credential_key, idem_key, fingerprint, status, is_error, payload, created_ms, event_seq) VALUES (?, ?, ?, 200, 0, NULL, ?, ?)');
    const digest = (h) => (hash ? hash('sha256', h, 'base64') : createHash('sha256').update(h).digest('base64'));
    const creds = new Map([[digest(${JSON.stringify(authorization)}), { key: 'pk_bench', business: ${businessId}, limit: 1e9 }]]);
    const bucket = { tokens: 1e9, at: Date.now() };
    const held = new Set();
    // Status ids of the moves the bench makes (PLACED 1 → ACCEPTED 2 → READY 4 → DELIVERED 5; contract/order-statuses.ts).
    const ID = { ACCEPTED: 2, READY: 4, DELIVERED: 5 };
    const FROM = { 2: [1], 4: [2, 3], 5: [4] };
    let n = 0, open = false, waiting = [];
    const send = (res, status, body, id) => { res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-request-id': id }); res.end(body); };
    const flush = () => {
      if (open) { commit.run(); open = false; }
      const w = waiting; waiting = [];
      for (const [res, status, body, id, slot] of w) { held.delete(slot); send(res, status, body, id); }
    };
    const s = http.createServer((req, res) => {
      const id = 'req_' + (++n).toString(36).padStart(8, '0');
      const cred = creds.get(digest(req.headers.authorization ?? ''));
      if (!cred) return send(res, 401, '{}', id);
      const now = Date.now();
      bucket.tokens = Math.min(cred.limit, bucket.tokens + ((now - bucket.at) * cred.limit) / 60000) - 1;
      bucket.at = now;
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (c) => { text += c; });
      req.on('end', () => {
        const b = JSON.parse(text);
        const key = req.headers['idempotency-key'];
        const slot = cred.key + '\\n' + key;
        if (held.has(slot)) return send(res, 409, '{}', id);
        const fingerprint = digest(text);
        if (answer.get(cred.key, key)) return send(res, 200, '{}', id);
        held.add(slot);
        if (waiting.length === 0) setImmediate(flush);
        if (!open) { begin.run(); open = true; }
        sp.run();
        try {
          const row = order.get(b.id, cred.business);
          const to = ID[b.status];
          if (!row || !FROM[to]?.includes(row.status)) { rel.run(); waiting.push([res, 409, '{}', id, slot]); return; }
          const o = JSON.parse(row.record);
          const at = new Date(Math.max(now, row.updated_ms + 1)).toISOString();
          o.status = to; o.updated_at = at; o.cancellation_reason = null;
          o.status_history.push({ status: to, at, by: 'partner' });
          const record = JSON.stringify(o);
          const { seq: q, heard } = next.get(cred.business, row.brand_id, row.branch_id);
          if (heard) throw new Error('the bench registers no webhook');
          const eventId = 'evt_' + q;
          event.run(q, eventId, cred.business, row.brand_id, row.branch_id, row.id,
            '{"brand_id":' + row.brand_id + ',"branch_id":' + row.branch_id + ',"orders":[' + record + ']}', now, at, at);
          save.run(to, Date.parse(at), record, row.id, cred.business);
          put.run(cred.key, key, fingerprint, now, q);
          rel.run();
          waiting.push([res, 200, '{"request_id":"' + id + '","data":' + record + '}', id, slot]);
        } catch (err) {
          back.run(); rel.run();
          waiting.push([res, 500, '{}', id, slot]);
        }
      });
    });
    s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + s.address().port })));
    process.on('SIGTERM', () => { db.close(); process.exit(0); });`;
}
