import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { cartDiff, jsonLine, prettyEvent } from '../../src/cli/listen/format.js';
import {
  type ForwardResult,
  type ReceivedEvent,
  type Receiver,
  startReceiver,
} from '../../src/cli/listen/receiver.js';
import { OrderMemory, RecentIds } from '../../src/cli/listen/seen.js';
import { sign } from '../../src/webhooks/signature.js';

const vectors = (
  JSON.parse(readFileSync(new URL('../fixtures/webhook-vectors.json', import.meta.url), 'utf8')) as {
    vectors: { name: string; secret: string; body_base64: string; signature: string }[];
  }
).vectors;

const SECRET = 'whsec_test_listen';
let open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.map((o) => o.close()));
  open = [];
});

async function listen(extra: Partial<Parameters<typeof startReceiver>[0]> = {}) {
  const events: ReceivedEvent[] = [];
  const forwards: ForwardResult[] = [];
  const rejected: string[] = [];
  const r: Receiver = await startReceiver({
    port: 0,
    secret: SECRET,
    onEvent: (e) => events.push(e),
    onForward: (f) => forwards.push(f),
    onRejected: (x) => rejected.push(x.reason),
    ...extra,
  });
  open.push(r);
  return { r, events, forwards, rejected };
}

async function deliver(url: string, body: string | Buffer, h: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...h },
    body,
  });
  return { status: res.status, text: await res.text() };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

const statusEvent = (id: string, orderId: number, status: number, updatedAt: string) => {
  const body = JSON.stringify({
    brand_id: 1,
    branch_id: 2,
    orders: [{ id: orderId, status, total: '10.00', currency: 'THB', updated_at: updatedAt }],
  });
  return {
    body,
    headers: {
      'x-partner-signature': sign(SECRET, body),
      'x-partner-event-id': id,
      'x-partner-event-type': 'service.order.status.updated',
      'x-partner-delivery-attempt': '1',
    },
  };
};

describe('partner listen receiver', () => {
  it('verifies the shared vectors byte for byte', async () => {
    for (const v of vectors) {
      const { r, events } = await listen({ secret: v.secret });
      const raw = Buffer.from(v.body_base64, 'base64');
      const res = await deliver(r.url, raw, {
        'x-partner-signature': v.signature,
        'x-partner-event-id': v.name,
        'x-partner-event-type': 'service.order.created.v2',
      });
      expect(res.status, v.name).toBe(200);
      await until(() => events.length === 1);
      expect(events[0]!.raw.equals(raw)).toBe(true);
      expect(events[0]!.verified).toBe(true);
    }
  });

  it('answers 401 invalid signature to a mismatch, a missing header and a re-serialised body', async () => {
    const { r, events, rejected } = await listen();
    const { body, headers } = statusEvent('evt_1', 1, 4, '2026-11-20T10:00:00Z');
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    for (const [b, h] of [
      [body, { ...headers, 'x-partner-signature': '0'.repeat(64) }],
      [body, { 'x-partner-event-id': 'evt_1' }],
      [pretty, headers],
    ] as const) {
      const res = await deliver(r.url, b, h as Record<string, string>);
      expect(res.status).toBe(401);
      expect(res.text).toContain('invalid signature');
    }
    await new Promise((res) => setTimeout(res, 20));
    expect(events).toHaveLength(0);
    expect(rejected).toHaveLength(3);
  });

  it('answers a repeated event id with 2xx, flagged duplicate and not forwarded twice', async () => {
    const got: Buffer[] = [];
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        got.push(Buffer.concat(chunks));
        res.end('ok');
      });
    });
    await new Promise<void>((ok) => app.listen(0, '127.0.0.1', () => ok()));
    open.push({ close: () => new Promise<void>((ok) => app.close(() => ok())) });
    const port = (app.address() as { port: number }).port;
    const { r, events, forwards } = await listen({ forwardTo: `http://127.0.0.1:${port}/hook` });
    const e = statusEvent('evt_dup', 7, 2, '2026-11-20T10:00:00Z');
    expect((await deliver(r.url, e.body, e.headers)).status).toBe(200);
    expect((await deliver(r.url, e.body, { ...e.headers, 'x-partner-delivery-attempt': '2' })).status).toBe(
      200,
    );
    await until(() => events.length === 2 && forwards.length === 1);
    expect(events.map((x) => x.duplicate)).toEqual([false, true]);
    expect(got).toHaveLength(1);
  });

  it('flags a status update older than the last one seen for that order as stale', async () => {
    const { r, events } = await listen();
    const newer = statusEvent('evt_a', 9, 4, '2026-11-20T10:05:00Z');
    const older = statusEvent('evt_b', 9, 2, '2026-11-20T10:01:00Z');
    await deliver(r.url, newer.body, newer.headers);
    await deliver(r.url, older.body, older.headers);
    await until(() => events.length === 2);
    expect(events.map((x) => x.stale)).toEqual([false, true]);
    expect(prettyEvent(events[1]!, false)).toContain('stale');
    expect(prettyEvent(events[1]!, false)).not.toContain('ACCEPTED');
  });

  it('forwards the exact bytes and x-partner-* headers, and survives a failing app', async () => {
    let received: { body: Buffer; headers: IncomingHttpHeaders } | undefined;
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        received = { body: Buffer.concat(chunks), headers: req.headers };
        res.writeHead(500).end('boom');
      });
    });
    await new Promise<void>((ok) => app.listen(0, '127.0.0.1', () => ok()));
    open.push({ close: () => new Promise<void>((ok) => app.close(() => ok())) });
    const port = (app.address() as { port: number }).port;
    const { r, forwards } = await listen({ forwardTo: `http://127.0.0.1:${port}/hook` });
    // Odd spacing and unicode: a re-serialisation would change these bytes.
    const body = '{"brand_id":1,  "branch_id":2,"orders":[{"id":1,"title":"ต้มยำ"}]}';
    const headers = {
      'x-partner-signature': sign(SECRET, body),
      'x-partner-event-id': 'evt_fwd',
      'x-partner-event-type': 'service.order.created.v2',
      'x-partner-delivery-attempt': '3',
    };
    expect((await deliver(r.url, body, headers)).status).toBe(200);
    await until(() => forwards.length === 1);
    expect(received!.body.equals(Buffer.from(body))).toBe(true);
    for (const [k, v] of Object.entries(headers)) expect(received!.headers[k]).toBe(v);
    expect(forwards[0]!.status).toBe(500);

    // The app goes away: the listener reports it and keeps receiving.
    await new Promise<void>((ok) => app.close(() => ok()));
    open.pop();
    const again = statusEvent('evt_after', 3, 2, '2026-11-20T10:00:00Z');
    expect((await deliver(r.url, again.body, again.headers)).status).toBe(200);
    await until(() => forwards.length === 2);
    expect(forwards[1]!.error).toBeTruthy();
  });

  it('acknowledges before doing work: a throwing printer does not change the answer', async () => {
    const { r } = await listen({
      onEvent: () => {
        throw new Error('printer broke');
      },
    });
    const e = statusEvent('evt_t', 1, 2, '2026-11-20T10:00:00Z');
    expect((await deliver(r.url, e.body, e.headers)).status).toBe(200);
    const e2 = statusEvent('evt_t2', 1, 4, '2026-11-20T10:01:00Z');
    expect((await deliver(r.url, e2.body, e2.headers)).status).toBe(200);
  });

  it('filters event types with --events but still acknowledges them', async () => {
    const { r, events } = await listen({ events: ['service.order.created.v2'] });
    const e = statusEvent('evt_f', 1, 2, '2026-11-20T10:00:00Z');
    expect((await deliver(r.url, e.body, e.headers)).status).toBe(200);
    await new Promise((res) => setTimeout(res, 30));
    expect(events).toHaveLength(0);
  });
});

describe('listen output', () => {
  const event = (over: Partial<ReceivedEvent>): ReceivedEvent => ({
    event_id: 'evt_x',
    event_type: 'service.order.status.updated',
    attempt: 2,
    verified: true,
    duplicate: false,
    stale: false,
    received_at: '2026-11-20T10:00:00.000Z',
    body: {
      brand_id: 1,
      branch_id: 2,
      orders: [{ id: 42, status: 4, total: '125000.00', currency: 'IDR', cart: [] }],
    },
    raw: Buffer.from(''),
    ...over,
  });

  it('shows type, id, attempt, brand/branch and each order with its status name, total and currency', () => {
    const text = prettyEvent(event({}), false);
    expect(text).toMatch(/^--> service\.order\.status\.updated evt_x attempt 2 brand 1\/branch 2\n/);
    expect(text).toContain('order #42 READY (4) · 125000.00 IDR');
  });

  it('prints one JSON object per line with the documented fields', () => {
    const line = jsonLine(event({}));
    expect(line.endsWith('\n')).toBe(true);
    expect(Object.keys(JSON.parse(line))).toEqual([
      'event_id',
      'event_type',
      'attempt',
      'verified',
      'duplicate',
      'stale',
      'received_at',
      'body',
    ]);
  });

  it('shows a cart change as a diff against the previous cart', () => {
    const before = [
      { partner_item_id: 'A', title: 'Nasi Goreng', quantity: 2 },
      { partner_item_id: 'B', title: 'Kopi Susu', quantity: 1 },
    ];
    const after = [
      { partner_item_id: 'B', title: 'Kopi Susu', quantity: 2 },
      { partner_item_id: 'C', title: 'Es Teh', quantity: 1 },
    ];
    expect(cartDiff(before, after)).toEqual(['~ Kopi Susu 1 → 2', '+ 1 × Es Teh', '- 2 × Nasi Goreng']);
    const text = prettyEvent(
      event({
        event_type: 'service.order.cart.updated',
        previousCarts: { '42': before },
        body: { brand_id: 1, branch_id: 2, orders: [{ id: 42, status: 2, cart: after }] },
      }),
      false,
    );
    expect(text).toContain('~ Kopi Susu 1 → 2');
  });

  it('bounded memory: the oldest ids are forgotten first', () => {
    const ids = new RecentIds(3);
    for (const id of ['a', 'b', 'c', 'd']) expect(ids.seen(id)).toBe(false);
    expect(ids.size).toBe(3);
    expect(ids.seen('a')).toBe(false);
    expect(ids.seen('d')).toBe(true);
    const mem = new OrderMemory(2);
    mem.stale({ id: 1, updated_at: '2026-01-01T00:00:02Z' });
    mem.stale({ id: 2, updated_at: '2026-01-01T00:00:02Z' });
    mem.stale({ id: 3, updated_at: '2026-01-01T00:00:02Z' });
    expect(mem.stale({ id: 1, updated_at: '2026-01-01T00:00:01Z' })).toBe(false); // forgotten
  });
});
