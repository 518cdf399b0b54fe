// Issue 13: PostgreSQL mode, PATCH /v1/partner/orders/status with a unique Idempotency-Key per
// request (each a real transition: order updated, outbox event with its NOTIFY, idempotency
// answer and claim release, committed by one statement) against the floor: raw node:http running one
// INSERT of the same client (`pg`) per request on the same database. Target: ratio ≥ 0.4.
import os from 'node:os';
import pg from 'pg';
import { startCluster, startPgFloor, startPgPartner } from '../lib/pg.mjs';
import { floorRequests, patchRequests, templateOrder } from '../lib/status-patches.mjs';
import { fmt, load, median } from '../lib/stats.mjs';

export const title =
  'PostgreSQL: PATCH /v1/partner/orders/status (unique keys) vs raw node:http + one pg INSERT';

const RUNS = 5;
const DURATION = 3;
/** Fresh PLACED orders per run (status-patches.mjs: patchRequests). */
export const BATCH = 20_000;

/** Clones a PLACED template order `n` times straight into the database (ids in the records rewritten). */
export async function cloneOrders(database, templateId, n) {
  const c = new pg.Client({ connectionString: database });
  await c.connect();
  try {
    await c.query('BEGIN');
    const { rows } = await c.query(
      `INSERT INTO orders (business_id, brand_id, branch_id, status, created_ms, updated_ms, record)
       SELECT business_id, brand_id, branch_id, status, created_ms, updated_ms, record
       FROM orders, generate_series(1, $1) WHERE id = $2
       RETURNING id`,
      [n, templateId],
    );
    const first = Math.min(...rows.map((r) => Number(r.id)));
    // The record's first "id" is the order's own: rewrite it as text, so the rest keeps its bytes.
    await c.query(
      `UPDATE orders SET record = regexp_replace(record::text, '"id":[0-9]+', '"id":' || id)::json WHERE id >= $1`,
      [first],
    );
    await c.query('COMMIT');
    return first;
  } finally {
    await c.end();
  }
}

export async function run({ log }) {
  const loadBefore = os.loadavg()[0];
  const cluster = await startCluster({ core: 0 });
  const database = await cluster.database('bench_patch');
  const partner = await startPgPartner({ database, core: 0, seed: true });
  const { baseUrl, operatorToken, credential } = partner.info;
  let floor;
  const rawRuns = [];
  const partnerRuns = [];
  let recordBytes = 0;
  let events = 0;
  try {
    const template = await templateOrder(baseUrl, operatorToken, credential);
    recordBytes = Buffer.byteLength(JSON.stringify(template));
    floor = await startPgFloor({
      database,
      core: 0,
      setup:
        'CREATE TABLE floor_rows (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, idem_key text NOT NULL, body json NOT NULL, created_ms bigint NOT NULL)',
      sql: 'INSERT INTO floor_rows (idem_key, body, created_ms) VALUES ($1, $2, $3) RETURNING id',
      params: `(b, req) => [req.headers['idempotency-key'], JSON.stringify(b), Date.now()]`,
      answer: `(rows, b) => JSON.stringify({ request_id: 'raw', data: { id: Number(rows[0].id), status: b.status } })`,
    });
    const warm = await cloneOrders(database, template.id, BATCH);
    await load({ url: floor.info.url, duration: 1, requests: floorRequests('warm') });
    await load({ url: baseUrl, duration: 1, requests: patchRequests(credential, warm, 'warm', BATCH) });
    for (let i = 0; i < RUNS; i++) {
      const first = await cloneOrders(database, template.id, BATCH);
      rawRuns.push(
        await load({ url: floor.info.url, duration: DURATION, requests: floorRequests(`raw${i}`) }),
      );
      partnerRuns.push(
        await load({
          url: baseUrl,
          duration: DURATION,
          requests: patchRequests(credential, first, `run${i}`, BATCH),
        }),
      );
      log(
        `run ${i + 1}: floor ${fmt(rawRuns[i].rps)} req/s p99 ${rawRuns[i].p99} ms · partner ${fmt(partnerRuns[i].rps)} req/s p99 ${partnerRuns[i].p99} ms (non-2xx ${partnerRuns[i].non2xx})`,
      );
    }
    // Every 2xx was a real transition with its event: check the outbox has them.
    const c = new pg.Client({ connectionString: database });
    await c.connect();
    events = Number(
      (await c.query("SELECT count(*) AS n FROM outbox_events WHERE type = 'service.order.status.updated'"))
        .rows[0].n,
    );
    await c.end();
    log(`status events in the outbox after the runs: ${fmt(events)}`);
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
    `${cluster.version}, a throw-away cluster with default durability (fsync, synchronous_commit on). Each partner request is a real transition (PLACED → ACCEPTED on a fresh order): four round trips: the credential row read, the rate-limit take and the Idempotency-Key look and claim (one statement), then the unit: the order read, the event seq (both on the server's two pipelined connections), and one statement on a pooled connection that commits the order's versioned update, the outbox event (its NOTIFY when someone receives it), the stored answer and the claim's release (no transaction: each statement commits by itself); the webhook dispatcher runs in the same process (no receiver registered, so no look is woken); order record ${fmt(recordBytes)} bytes; ${fmt(events)} status events in the outbox afterwards. The floor parses the same JSON body and INSERTs one row on a \`pg\` pool of the same size (10). 50 connections, ${RUNS} × ${DURATION} s each; servers and PostgreSQL pinned to core 0, load on core 1; medians.`,
    '',
    '| | req/s | p99 ms |',
    '|---|---:|---:|',
    `| raw node:http + one pg INSERT (floor) | ${fmt(rawRps)} | ${median(rawRuns.map((r) => r.p99))} |`,
    `| partner PATCH /orders/status on PostgreSQL | ${fmt(rps)} | ${median(partnerRuns.map((r) => r.p99))} |`,
    '',
    `**ratio ${fmt(ratio, 2)}** (target ≥ 0.4) · non-2xx/errors: ${bad}`,
    '',
    `Per-run ratios (floor and partner back to back): ${rawRuns.map((r, i) => fmt(partnerRuns[i].rps / r.rps, 2)).join(', ')}.`,
    '',
    `Machine load (1-min load average, other work on the machine included): ${fmt(loadBefore, 2)} before, ${fmt(os.loadavg()[0], 2)} after.`,
  ];
}
