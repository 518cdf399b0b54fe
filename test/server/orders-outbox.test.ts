// The transactional outbox: an order change and its event are written together or not at all,
// an idempotent replay writes nothing, and updated_at strictly increases.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OrderEventType } from '../../src/contract/schemas/orders.js';
import { seqOfEventId } from '../../src/server/domain/events.js';
import type { OutboxEvent } from '../../src/server/store/outbox-repo.js';
import { call, type TestServer, startTestServer } from '../helpers/server.js';

let s: TestServer;
let eventsAtStart = -1;
beforeAll(async () => {
  s = await startTestServer();
  eventsAtStart = await count('outbox_events');
});
afterAll(() => s.close());

const count = async (table: string) =>
  (await s.rows<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n;
const snapshot = async () => ({
  orders: await s.rows('SELECT id, status, updated_ms, record FROM orders ORDER BY id'),
  outbox: await count('outbox_events'),
});

/** An event by its id, read from the row its seq names (undefined when the id is not ours). */
async function getEvent(id: string): Promise<OutboxEvent | undefined> {
  const seq = seqOfEventId(id);
  if (seq === undefined) return undefined;
  return (await s.rows<OutboxEvent>('SELECT * FROM outbox_events WHERE seq = ? AND id = ?', seq, id))[0];
}

/** Events of an order (of one type), oldest first. */
function listEvents(f: { orderId: number; type?: OrderEventType }): Promise<OutboxEvent[]> {
  return f.type === undefined
    ? s.rows('SELECT * FROM outbox_events WHERE order_id = ? ORDER BY seq', f.orderId)
    : s.rows('SELECT * FROM outbox_events WHERE order_id = ? AND type = ? ORDER BY seq', f.orderId, f.type);
}

async function newOrder(server = s) {
  const br = (await call(server, 'GET', '/v1/partner/branches')).body.data.results[0];
  const r = await server.operator('POST', '/v1/operator/orders', {
    business_id: server.credential.businessId,
    brand_id: br.brand_ids[0],
    branch_id: br.id,
  });
  expect(r.status).toBe(201);
  return r.body.data;
}

const patch = (server: TestServer, body: Record<string, unknown>, key?: string) =>
  call(server, 'PATCH', '/v1/partner/orders/status', {
    body: { platform: 'enterprise', ...body },
    ...(key ? { key } : {}),
  });

/**
 * Makes the next matching write fail inside the transaction, after the statements before it ran:
 * a trigger that raises (SQLite's RAISE(ABORT), PostgreSQL's RAISE EXCEPTION).
 */
async function failOn(table: string, when = 'true') {
  if (s.backend === 'sqlite') {
    await s.exec(
      `CREATE TEMP TRIGGER fail_${table} BEFORE INSERT ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
  } else {
    await s.exec(`
      CREATE FUNCTION fail_${table}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$;
      CREATE TRIGGER fail_${table} BEFORE INSERT ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION fail_${table}();`);
  }
  // The server logs each resulting 500 with its stack; expected here, so kept off the test output.
  const quiet = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  return async () => {
    quiet.mockRestore();
    await s.exec(
      s.backend === 'sqlite'
        ? `DROP TRIGGER temp.fail_${table}`
        : `DROP TRIGGER fail_${table} ON ${table}; DROP FUNCTION fail_${table}();`,
    );
  };
}

describe('outbox atomicity', () => {
  it('a refused transition writes neither a change nor an event', async () => {
    const o = await newOrder();
    const before = await snapshot();
    const r = await patch(s, { id: o.id, status: 'DELIVERED' });
    expect(r.status).toBe(409);
    expect(await snapshot()).toEqual(before);
  });

  it('a failure after the order update and the event (storing the idempotency record) rolls both back', async () => {
    const o = await newOrder();
    const before = await snapshot();
    const restore = await failOn('idempotency_keys');
    let r: Awaited<ReturnType<typeof patch>>;
    try {
      r = await patch(s, { id: o.id, status: 'ACCEPTED' }, 'atomic-after-1');
    } finally {
      await restore();
    }
    expect(r.status).toBe(500);
    expect(r.body.error?.code).toBe('internal_error');
    expect(await snapshot()).toEqual(before);
    expect((await call(s, 'GET', `/v1/partner/orders/${o.id}`)).body.data).toEqual(o);

    // A 5xx is not stored: the same key now goes through, once.
    const again = await patch(s, { id: o.id, status: 'ACCEPTED' }, 'atomic-after-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect((await snapshot()).outbox).toBe(before.outbox + 1);
  });

  it('a failing event write leaves the order unchanged (no change without its event)', async () => {
    const o = await newOrder();
    const before = await snapshot();
    const restore = await failOn('outbox_events', "NEW.type = 'service.order.status.updated'");
    try {
      const r = await patch(s, { id: o.id, status: 'ACCEPTED' });
      expect(r.status).toBe(500);
      const op = await s.operator('POST', `/v1/operator/orders/${o.id}/status`, { status: 'READY' });
      expect(op.status).toBe(500);
    } finally {
      await restore();
    }
    expect(await snapshot()).toEqual(before);
  });

  it('operator create and cart replace are atomic with their events too', async () => {
    const o = await newOrder();
    const before = await snapshot();
    const restore = await failOn('outbox_events');
    try {
      const br = (await call(s, 'GET', '/v1/partner/branches')).body.data.results[0];
      const c = await s.operator('POST', '/v1/operator/orders', {
        business_id: s.credential.businessId,
        brand_id: br.brand_ids[0],
        branch_id: br.id,
      });
      expect(c.status).toBe(500);
      expect((await s.operator('PUT', `/v1/operator/orders/${o.id}/cart`, { items: 2 })).status).toBe(500);
    } finally {
      await restore();
    }
    expect(await snapshot()).toEqual(before);
  });

  it('every event has a stable id resolvable to its row, and the exact order read as payload', async () => {
    const o = await newOrder();
    await patch(s, { id: o.id, status: 'ACCEPTED' });
    const rows = await listEvents({ orderId: o.id });
    // (The delivery dispatcher may already have settled them: no receiver is registered.)
    expect(rows.map((e) => e.type)).toEqual(['service.order.created.v2', 'service.order.status.updated']);
    const got = (await call(s, 'GET', `/v1/partner/orders/${o.id}`)).text;
    const data = got.slice(got.indexOf('"data":') + 7, -1);
    expect(rows[1]!.payload).toBe(`{"brand_id":${o.brand_id},"branch_id":${o.branch_id},"orders":[${data}]}`);
    expect(rows[1]).toMatchObject({
      business_id: s.credential.businessId,
      brand_id: o.brand_id,
      branch_id: o.branch_id,
      order_id: o.id,
    });
    for (const e of rows) {
      expect(e.id).toMatch(/^evt_[0-9a-z]+_[\w-]{16}$/);
      expect(seqOfEventId(e.id)).toBe(e.seq);
      expect(await getEvent(e.id)).toMatchObject({ seq: e.seq, id: e.id, payload: e.payload });
    }
    expect(await getEvent(rows[1]!.id.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).toBeUndefined();
    expect(await getEvent('evt_nope')).toBeUndefined();
    // Demo seed orders are history, not news: the seed wrote no events.
    expect(eventsAtStart).toBe(0);
    expect(await count('orders')).toBeGreaterThan(10);
  });
});

describe('idempotent replay of a status patch', () => {
  it('replays the stored response byte-identical and writes no second event', async () => {
    const o = await newOrder();
    const body = { id: o.id, status: 'ACCEPTED' };
    const a = await patch(s, body, 'replay-status-1');
    expect(a.status).toBe(200);
    const after = await snapshot();
    const b = await patch(s, body, 'replay-status-1');
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.text.slice(b.text.indexOf('"data":'))).toBe(a.text.slice(a.text.indexOf('"data":')));
    expect(await snapshot()).toEqual(after);
    expect(await listEvents({ orderId: o.id, type: 'service.order.status.updated' })).toHaveLength(1);

    // Even after the order moved on, the key still answers with what it answered first.
    await patch(s, { id: o.id, status: 'READY' });
    const c = await patch(s, body, 'replay-status-1');
    expect(c.body.data.status).toBe(2);
    expect(await listEvents({ orderId: o.id, type: 'service.order.status.updated' })).toHaveLength(2);

    // A refused move is stored too: its replay is the same 409, still without an event.
    const bad = await patch(s, { id: o.id, status: 'ACCEPTED' }, 'replay-status-2');
    const badAgain = await patch(s, { id: o.id, status: 'ACCEPTED' }, 'replay-status-2');
    expect([bad.status, badAgain.status]).toEqual([409, 409]);
    expect(badAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(await listEvents({ orderId: o.id, type: 'service.order.status.updated' })).toHaveLength(2);
  });
});

describe('updated_at', () => {
  it('strictly increases on every change, even with every change in the same millisecond', async () => {
    const frozen = Date.parse('2025-03-01T08:00:00.000Z');
    const t = await startTestServer({ now: () => frozen });
    try {
      const o = await newOrder(t);
      expect(o.updated_at).toBe('2025-03-01T08:00:00.000Z');
      const seen = [o.updated_at];
      const steps: (() => Promise<{ body: { data?: { updated_at: string } } }>)[] = [
        () => patch(t, { id: o.id, status: 'ACCEPTED' }),
        () => call(t, 'PATCH', `/v1/partner/orders/${o.id}/comment`, { body: { comment: 'no onions' } }),
        () => t.operator('PUT', `/v1/operator/orders/${o.id}/cart`, {}),
        () => patch(t, { id: o.id, status: 4 }),
        () => t.operator('POST', `/v1/operator/orders/${o.id}/status`, { status: 'PICKED UP' }),
        () => patch(t, { id: o.id, status: 'DELIVERED' }),
      ];
      for (const step of steps) seen.push((await step()).body.data!.updated_at);
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6].map((ms) => new Date(frozen + ms).toISOString()));
      const final = (await call(t, 'GET', `/v1/partner/orders/${o.id}`)).body.data;
      expect(final.status_history.map((h: { at: string }) => h.at)).toEqual([
        seen[0],
        seen[1],
        seen[4],
        seen[5],
        seen[6],
      ]);
      // Demo orders were seeded relative to the injected clock: the default window shows them.
      expect((await call(t, 'GET', '/v1/partner/orders')).body.data.total).toBeGreaterThan(5);
    } finally {
      await t.close();
    }
  });
});
