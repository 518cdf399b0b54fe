import { afterEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../src/server/delivery/dispatcher.js';
import { verify } from '../../src/webhooks/signature.js';
import { sleep, startRecorder } from '../helpers/receiver.js';
import { startCountingReceiver } from '../multi-instance/counting-receiver.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function server(retrySchedule = [100, 200], now?: () => number) {
  const s = await startTestServer({ retrySchedule, ...(now ? { now } : {}) });
  cleanup.push(() => s.close());
  return s;
}

async function recorder(respond?: Parameters<typeof startRecorder>[0]) {
  const r = await startRecorder(respond);
  cleanup.push(() => r.close());
  return r;
}

async function secretOf(s: TestServer, businessId = s.credential.businessId) {
  const r = await s.operator('POST', '/v1/operator/webhook-secrets', { business_id: businessId });
  expect(r.status).toBe(200);
  return r.body.data.webhook_secret_key as string;
}

async function register(s: TestServer, url: string, extra: Record<string, unknown> = {}) {
  const r = await s.operator('POST', '/v1/operator/webhooks', {
    business_id: s.credential.businessId,
    url,
    event: 'all',
    ...extra,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

interface LogEntry {
  id: number;
  event_id: string;
  status: string;
  batched_event_ids: string[];
  log: { status_code: number; duration_ms: number; error?: string }[];
}
/**
 * The operator's webhook log for QUERY once PRED holds: the recorder sees an attempt before the
 * dispatcher records its outcome, so wait on the record, not a sleep (bounded: 60 s).
 */
async function logOnce(
  s: TestServer,
  query: string,
  pred: (data: LogEntry[]) => boolean,
): Promise<LogEntry[]> {
  for (let i = 0; ; i++) {
    const data = (await s.operator('GET', `/v1/operator/webhooks/log${query}`)).body.data as LogEntry[];
    if (pred(data) || i >= 3_000) return data;
    await sleep(20);
  }
}

async function storeOf(s: TestServer) {
  const b = (await call(s, 'GET', '/v1/partner/branches')).body.data.results[0];
  return { brand_id: b.brand_ids[0] as number, branch_id: b.id as number };
}

async function newOrder(s: TestServer, store: { brand_id: number; branch_id: number }) {
  const r = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    ...store,
    items: 2,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

describe('webhook delivery', () => {
  it('delivers all three event types, signed over the exact bytes, with the pinned headers', async () => {
    const s = await server();
    const rec = await recorder();
    await register(s, rec.url);
    const secret = await secretOf(s);
    const store = await storeOf(s);
    const order = await newOrder(s, store);
    await rec.waitFor(1);
    const patched = await call(s, 'PATCH', '/v1/partner/orders/status', {
      body: { id: order.id, status: 'ACCEPTED', platform: 'enterprise' },
    });
    expect(patched.status).toBe(200);
    await rec.waitFor(2);
    const cart = await s.operator('PUT', `/v1/operator/orders/${order.id}/cart`, { items: 3 });
    expect(cart.status).toBe(200);
    const got = await rec.waitFor(3);
    expect(got.map((g) => g.headers['x-partner-event-type'])).toEqual([
      'service.order.created.v2',
      'service.order.status.updated',
      'service.order.cart.updated',
    ]);
    for (const g of got) {
      expect(g.headers['content-type']).toBe('application/json');
      expect(g.headers['x-partner-signature']).toMatch(/^[0-9a-f]{64}$/);
      expect(verify(secret, g.body, g.headers['x-partner-signature'] as string)).toBe(true);
      expect(g.headers['x-partner-event-id']).toMatch(/^evt_/);
      expect(g.headers['x-partner-delivery-attempt']).toBe('1');
      const body = JSON.parse(g.body.toString());
      expect(Object.keys(body)).toEqual(['brand_id', 'branch_id', 'orders']);
      expect(body.brand_id).toBe(store.brand_id);
      expect(body.orders[0].id).toBe(order.id);
    }
    const status = JSON.parse(got[1]!.body.toString()).orders[0];
    expect(status.status).toBe(2);
    // The body is the order read.
    const read = await call(s, 'GET', `/v1/partner/orders/${order.id}`);
    expect(JSON.parse(got[2]!.body.toString()).orders[0]).toEqual(read.body.data);
  });

  it('retries a receiver that fails twice, same event id, attempts 1-2-3, and logs every attempt', async () => {
    const s = await server([100, 200, 400]);
    const rec = await recorder((n) => (n <= 2 ? 500 : 200));
    await register(s, rec.url);
    const store = await storeOf(s);
    await newOrder(s, store);
    const got = await rec.waitFor(3);
    const ids = new Set(got.map((g) => g.headers['x-partner-event-id']));
    expect(ids.size).toBe(1);
    expect(got.map((g) => g.headers['x-partner-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(85);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(170);
    const data = await logOnce(s, `?event_id=${[...ids][0]}`, (d) => d[0]?.status === 'delivered');
    expect(data).toHaveLength(1);
    const d = data[0]!;
    expect(d.status).toBe('delivered');
    expect(d.log.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
    for (const a of d.log) expect(typeof a.duration_ms).toBe('number');
  });

  it('marks the event failed after the last attempt, then an operator replay re-sends it with the same id', async () => {
    const s = await server([50, 50]);
    let ok = false;
    const rec = await recorder(() => (ok ? 200 : 503));
    await register(s, rec.url);
    await newOrder(s, await storeOf(s));
    const got = await rec.waitFor(3);
    expect(got).toHaveLength(3);
    const eventId = got[0]!.headers['x-partner-event-id'] as string;
    const failed = await logOnce(s, '?status=failed', (d) => d.some((x) => x.event_id === eventId));
    expect(failed.map((d: { event_id: string }) => d.event_id)).toContain(eventId);
    const outbox = await s.rows<{ status: string }>('SELECT status FROM outbox_events WHERE id = ?', eventId);
    expect(outbox.map((r) => r.status)).toEqual(['failed']);

    ok = true;
    const replay = await s.operator('POST', `/v1/operator/webhooks/replay/${eventId}`);
    expect(replay.status).toBe(200);
    const again = await rec.waitFor(4);
    expect(again[3]!.headers['x-partner-event-id']).toBe(eventId);
    expect(again[3]!.headers['x-partner-delivery-attempt']).toBe('4');
    const log = await logOnce(s, `?event_id=${eventId}`, (d) => d[0]?.status === 'delivered');
    expect(log[0]!.status).toBe('delivered');
    expect((await s.operator('POST', '/v1/operator/webhooks/replay/evt_nope')).status).toBe(404);
  });

  it('removing a registration ends its pending deliveries (logged so); a replay never revives them', async () => {
    // A long retry schedule: after its first failed attempt a delivery stays pending for a minute.
    const s = await server([60_000]);
    const failing = await recorder(() => 503);
    const working = await recorder();
    const gone = await register(s, failing.url);
    const kept = await register(s, working.url);
    const store = await storeOf(s);
    await newOrder(s, store);
    const [first] = await failing.waitFor(1);
    await working.waitFor(1);
    const eventId = first!.headers['x-partner-event-id'] as string;
    type Logged = {
      webhook_id: number;
      status: string;
      log: { attempt: number; status_code: number | null; error: string | null }[];
    };
    const logOf = async () =>
      (await s.operator('GET', `/v1/operator/webhooks/log?event_id=${eventId}`)).body.data as Logged[];
    // The failed attempt recorded (bounded wait): the delivery is pending, its retry a minute away.
    let pending: Logged | undefined;
    for (let i = 0; i < 500 && !pending; i++) {
      pending = (await logOf()).find((d) => d.webhook_id === gone.id && d.log.length === 1);
      if (!pending) await sleep(10);
    }
    expect(pending?.status).toBe('pending');

    expect((await s.operator('DELETE', `/v1/operator/webhooks/${gone.id}`)).status).toBe(200);
    // Ended at once, and the log says why.
    const ended = (await logOf()).find((d) => d.webhook_id === gone.id)!;
    expect(ended.status).toBe('failed');
    expect(ended.log.at(-1)).toMatchObject({ attempt: 2, status_code: null, error: 'registration removed' });
    const stillPending = await s.operator('GET', '/v1/operator/webhooks/log?status=pending');
    expect(stillPending.body.data).toEqual([]);

    // A replay re-sends to the registration still live, not to the removed one.
    const replay = await s.operator('POST', `/v1/operator/webhooks/replay/${eventId}`);
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    const byHook = new Map(
      (replay.body.data.deliveries as Logged[]).map((d) => [d.webhook_id, d.status] as const),
    );
    expect(byHook.get(gone.id)).toBe('failed');
    expect(byHook.get(kept.id)).toBe('pending');
    const again = await working.waitFor(2);
    expect(again[1]!.headers['x-partner-event-id']).toBe(eventId);
    expect(failing.got).toHaveLength(1);

    // An event whose every receiver was removed is refused, saying why.
    expect((await s.operator('DELETE', `/v1/operator/webhooks/${kept.id}`)).status).toBe(200);
    const refused = await s.operator('POST', `/v1/operator/webhooks/replay/${eventId}`);
    expect(refused.status).toBe(404);
    expect(refused.body.error?.code).toBe('resource_not_found');
    expect(refused.body.error?.message).toMatch(/removed/);
    expect(failing.got).toHaveLength(1);
  });

  it('an event nobody is registered for is settled as it is written; a replay offers it to a receiver registered since', async () => {
    const s = await server();
    const store = await storeOf(s);
    const order = await newOrder(s, store);
    // With the dispatcher stopped, only the write itself can have settled the event.
    const dispatcher = s.server.services.dispatcher as Dispatcher;
    await dispatcher.stop();
    const patched = await call(s, 'PATCH', '/v1/partner/orders/status', {
      body: { id: order.id, status: 'ACCEPTED', platform: 'enterprise' },
    });
    expect(patched.status).toBe(200);
    const [row] = await s.rows<{ status: string; fanned_out: number | boolean; attempts: number }>(
      "SELECT status, fanned_out, attempts FROM outbox_events WHERE order_id = ? AND type = 'service.order.status.updated'",
      order.id,
    );
    expect(row).toMatchObject({ status: 'delivered', attempts: 0 });
    expect(Boolean(row!.fanned_out)).toBe(true);

    // Such an event is still offered to a receiver registered later, by a replay.
    const s2 = await server();
    const order2 = await newOrder(s2, await storeOf(s2));
    const patched2 = await call(s2, 'PATCH', '/v1/partner/orders/status', {
      body: { id: order2.id, status: 'ACCEPTED', platform: 'enterprise' },
    });
    const [ev] = await s2.rows<{ id: string }>(
      "SELECT id FROM outbox_events WHERE order_id = ? AND type = 'service.order.status.updated'",
      order2.id,
    );
    const eventId = ev!.id;
    const rec = await recorder();
    await register(s2, rec.url);
    const replay = await s2.operator('POST', `/v1/operator/webhooks/replay/${eventId}`);
    expect(replay.status).toBe(200);
    const got = await rec.waitFor(1);
    expect(got[0]!.headers['x-partner-event-id']).toBe(eventId);
    expect(JSON.parse(got[0]!.body.toString()).orders[0]).toEqual(patched2.body.data);
  });

  it("widens a quick receiver's window past 4 deliveries at once during a burst, never past 128", async () => {
    // What counts as a quick answer (250 ms by default) is raised to a minute, and an attempt's
    // timeout (10 s) to two: the rule under test is the window's growth and its cap, not how fast
    // a busy machine answers.
    const s = await startTestServer({
      retrySchedule: [100, 200],
      deliveryFastMs: 60_000,
      deliveryTimeoutMs: 120_000,
    });
    cleanup.push(() => s.close());
    const rec = await startCountingReceiver(0);
    cleanup.push(() => rec.close());
    await register(s, rec.url, { event: 'service.order.status.updated' });
    const store = await storeOf(s);
    const orders: number[] = [];
    for (let i = 0; i < 160; i++) orders.push((await newOrder(s, store)).id);
    // The receiver holds every answer: what the dispatcher has in flight to it stays there, so
    // the window shows whole. A new URL gets 4; releasing them answers all 4 quickly, and each
    // quick 2xx widens the window by one slot, so more than 4 are then in flight at once.
    rec.pause();
    const patched = await Promise.all(
      orders.map((id) =>
        call(s, 'PATCH', '/v1/partner/orders/status', {
          body: { id, status: 'ACCEPTED', platform: 'enterprise' },
        }),
      ),
    );
    for (const p of patched) expect(p.status).toBe(200);
    await rec.until(
      () => rec.openCount() >= 4,
      60_000,
      () => `4 deliveries in flight (${rec.openCount()})`,
    );
    expect(rec.openCount()).toBe(4);
    rec.releaseHeld();
    await rec.until(
      () => rec.openCount() > 4,
      60_000,
      () => `more than 4 in flight (${rec.openCount()})`,
    );
    rec.resume();
    await rec.until(
      () => orders.every((id) => rec.orderIds().has(id)),
      60_000,
      'every status event delivered',
    );
    expect([...rec.counts().values()].every((n) => n === 1)).toBe(true);
    expect(rec.maxOpen()).toBeLessThanOrEqual(128);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const s = await server([50]);
    const rec = await recorder(() => 302);
    await register(s, rec.url);
    await newOrder(s, await storeOf(s));
    await rec.waitFor(2);
    const log = await logOnce(s, '', (d) => d[0]?.status === 'failed');
    expect(log[0]!.status).toBe('failed');
    expect(log[0]!.log[0]!.error).toContain('redirect 302');
  });

  it('a hanging receiver does not delay deliveries to another receiver', async () => {
    const s = await server([60_000]);
    const slow = await recorder(() => 'hang');
    const fast = await recorder();
    const store = await storeOf(s);
    await register(s, slow.url);
    await register(s, fast.url);
    // More events than the per-receiver concurrency (4): the slow one's slots fill up.
    const orders = [await newOrder(s, store), await newOrder(s, store)];
    for (const st of ['ACCEPTED', 'READY', 'DELIVERED']) {
      for (const o of orders) {
        await call(s, 'PATCH', '/v1/partner/orders/status', {
          body: { id: o.id, status: st, platform: 'enterprise' },
        });
      }
    }
    const statusEvents = () =>
      fast.got.filter((g) => g.headers['x-partner-event-type'] === 'service.order.status.updated').length;
    // The slow receiver never answers and its retry is a minute away: all six reaching the fast
    // one while the slow one still holds at most its 4 slots is the proof, whatever the clock.
    for (let i = 0; i < 6000 && statusEvents() < 6; i++) await sleep(10);
    expect(statusEvents()).toBe(6);
    expect(slow.got.length).toBeLessThanOrEqual(4);
  });

  it('sends nothing for a (brand, branch, event) that is not registered', async () => {
    const s = await server();
    const rec = await recorder();
    const store = await storeOf(s);
    const other = (await call(s, 'GET', '/v1/partner/branches')).body.data.results.find(
      (b: { id: number }) => b.id !== store.branch_id,
    );
    await register(s, rec.url, {
      brand_id: store.brand_id,
      branch_id: store.branch_id,
      event: 'service.order.status.updated',
    });
    await newOrder(s, store); // created: not registered
    const o2 = await newOrder(s, { brand_id: other.brand_ids[0], branch_id: other.id }); // other branch
    await call(s, 'PATCH', '/v1/partner/orders/status', {
      body: { id: o2.id, status: 'ACCEPTED', platform: 'enterprise' },
    });
    const o3 = await newOrder(s, store);
    await call(s, 'PATCH', '/v1/partner/orders/status', {
      body: { id: o3.id, status: 'ACCEPTED', platform: 'enterprise' },
    });
    // The outbox is fanned out in the order it was written: once the registered event's delivery
    // is recorded, the two events before it have been looked at, and whatever they fanned out
    // would be in the log too (an event, not a pause, says "nothing more is coming").
    const hasO3 = () =>
      rec.got.some((g) => JSON.parse(g.body.toString()).orders.some((o: { id: number }) => o.id === o3.id));
    const log = await logOnce(s, '', (d) => hasO3() && d.some((e) => e.status === 'delivered'));
    expect(hasO3()).toBe(true);
    expect(log.map((e) => e.status)).toEqual(['delivered']);
    const got = rec.got;
    expect(got).toHaveLength(1);
    expect(got[0]!.headers['x-partner-event-type']).toBe('service.order.status.updated');
    // The other business's secret does not verify this business's deliveries.
    const theirs = await secretOf(s, s.other.businessId);
    expect(verify(theirs, got[0]!.body, got[0]!.headers['x-partner-signature'] as string)).toBe(false);
  });

  it('batches new orders of one store created within the window into one created.v2 delivery', async () => {
    // The window is measured on the server's clock: standing still, every new order is inside it
    // however slowly the three requests arrive; moved on, the window has closed for all of them.
    let clock = Date.now();
    const s = await server(undefined, () => clock);
    const rec = await recorder();
    await register(s, rec.url, { event: 'service.order.created.v2' });
    const store = await storeOf(s);
    const made = await Promise.all([newOrder(s, store), newOrder(s, store), newOrder(s, store)]);
    expect(rec.got).toHaveLength(0);
    clock += 1_000;
    // Done when the log accounts for all three events (each delivery's own plus those batched
    // into it) and every delivery is recorded: then nothing more is coming.
    const log = await logOnce(
      s,
      '',
      (d) =>
        d.every((e) => e.status === 'delivered') &&
        d.reduce((n, e) => n + 1 + e.batched_event_ids.length, 0) === made.length,
    );
    expect(log.reduce((n, e) => n + 1 + e.batched_event_ids.length, 0)).toBe(made.length);
    expect(rec.got).toHaveLength(log.length);
    const orders = rec.got.flatMap((g) =>
      JSON.parse(g.body.toString()).orders.map((o: { id: number }) => o.id),
    );
    expect(orders.sort()).toEqual(made.map((o) => o.id).sort());
    expect(rec.got).toHaveLength(1);
    expect(log[0]!.batched_event_ids).toHaveLength(2);
    // The log by an event that went out in the batch finds the delivery that carried it.
    const carried = await s.operator(
      'GET',
      `/v1/operator/webhooks/log?event_id=${log[0]!.batched_event_ids[0]}`,
    );
    expect(carried.body.data.map((d: { id: number }) => d.id)).toEqual([log[0]!.id]);
  });

  it('rotating the webhook secret signs later deliveries with the new key; partners can list registrations', async () => {
    const s = await server();
    const rec = await recorder();
    const hook = await register(s, rec.url);
    const old = await secretOf(s);
    const rot = await s.operator('POST', '/v1/operator/webhook-secrets', {
      business_id: s.credential.businessId,
      rotate: true,
    });
    const fresh = rot.body.data.webhook_secret_key as string;
    expect(fresh).not.toBe(old);
    await newOrder(s, await storeOf(s));
    const [g] = await rec.waitFor(1);
    expect(verify(fresh, g!.body, g!.headers['x-partner-signature'] as string)).toBe(true);
    expect(verify(old, g!.body, g!.headers['x-partner-signature'] as string)).toBe(false);
    const list = await call(s, 'GET', '/v1/partner/webhooks');
    expect(list.body.data.map((w: { id: number }) => w.id)).toEqual([hook.id]);
    expect(JSON.stringify(list.body)).not.toContain(fresh);
    expect((await call(s, 'GET', '/v1/partner/webhooks', { cred: s.other })).body.data).toEqual([]);
    // Sealed at rest: the database holds no plaintext signing key.
    const dump = JSON.stringify(await s.rows('SELECT * FROM webhook_secrets'));
    expect(dump).not.toContain(fresh);
    const removed = await s.operator('DELETE', `/v1/operator/webhooks/${hook.id}`);
    expect(removed.body.data).toEqual({ id: hook.id, deleted: true });
  });
});
