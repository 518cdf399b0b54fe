import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_ID, type StatusCode } from '../../src/contract/order-statuses.js';
import { PARTNER_TRANSITIONS } from '../../src/server/domain/orders.js';
import { startRecorder } from '../helpers/receiver.js';
import { call, type CallResult, startTestServer, type TestServer } from '../helpers/server.js';
import { mode, rng, SEED, scale } from './config.js';

// Suite 5, concurrency: 50 concurrent requests with one Idempotency-Key run once; concurrent
// status patches on one order make only legal transitions, one answer, one history entry and one
// event per change.

// biome-ignore lint/suspicious/noExplicitAny: payloads of every shape
type Any = any;

const KEY_ROUNDS = scale(4, 60);
const ORDERS = scale(8, 200);
const PATCHERS = 12;

let s: TestServer;
let rec: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  s = await startTestServer({ rateLimit: 1_000_000, retrySchedule: [100] });
  rec = await startRecorder();
  await s.operator('POST', '/v1/operator/webhooks', {
    business_id: s.credential.businessId,
    url: rec.url,
    event: 'service.order.status.updated',
  });
});
afterAll(async () => {
  await s.close();
  await rec.close();
});

async function placedOrder(): Promise<Any> {
  const br = (await call(s, 'GET', '/v1/partner/branches?size=1')).body.data.results[0];
  const r = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    brand_id: br.brand_ids[0],
    branch_id: br.id,
  });
  expect(r.status).toBe(201);
  return r.body.data;
}

const codes = (rs: CallResult[]) => {
  const m: Record<string, number> = {};
  for (const r of rs) {
    const k = r.headers.get('idempotent-replayed')
      ? `${r.status} replayed`
      : r.body.error
        ? `${r.status} ${(r.body.error.details as Any)?.reason ?? r.body.error.code}`
        : String(r.status);
    m[k] = (m[k] ?? 0) + 1;
  }
  return m;
};

describe(`one Idempotency-Key, 50 at once (${mode()})`, () => {
  it('a create runs once: one brand, every 2xx the same answer, the rest 409 in_flight', async () => {
    const seen: Record<string, number> = {};
    for (let round = 0; round < KEY_ROUNDS; round++) {
      const title = `Concurrent brand ${SEED}-${round}`;
      const key = `same-key-create-${SEED}-${round}`;
      const rs = await Promise.all(
        Array.from({ length: 50 }, () => call(s, 'POST', '/v1/partner/brands', { body: { title }, key })),
      );
      const created = rs.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((r) => JSON.stringify(r.body.data))).size).toBe(1);
      for (const r of rs) expect([201, 409]).toContain(r.status);
      for (const r of rs.filter((x) => x.status === 409))
        expect(r.body.error?.details).toEqual({ reason: 'in_flight' });
      // Once it has finished, the key replays the stored answer, byte for byte.
      const later = await Promise.all(
        Array.from({ length: 10 }, () => call(s, 'POST', '/v1/partner/brands', { body: { title }, key })),
      );
      for (const r of later) {
        expect(r.status).toBe(201);
        expect(r.headers.get('idempotent-replayed')).toBe('true');
        expect(JSON.stringify(r.body.data)).toBe(JSON.stringify(created[0]!.body.data));
      }
      rs.push(...later);
      const brands = (await call(s, 'GET', '/v1/partner/brands')).body.data[0].brands;
      expect(brands.filter((b: Any) => b.title === title)).toHaveLength(1);
      for (const [k, v] of Object.entries(codes(rs))) seen[k] = (seen[k] ?? 0) + v;
    }
    console.log(`same key × 50, create (${KEY_ROUNDS} rounds): ${JSON.stringify(seen)}`);
  });

  it('a status patch runs once: one change, one history entry, one event', async () => {
    const seen: Record<string, number> = {};
    for (let round = 0; round < KEY_ROUNDS; round++) {
      const order = await placedOrder();
      const key = `same-key-patch-${SEED}-${round}`;
      const body = { id: order.id, status: 'ACCEPTED', platform: 'enterprise' };
      const rs = await Promise.all(
        Array.from({ length: 50 }, () => call(s, 'PATCH', '/v1/partner/orders/status', { body, key })),
      );
      for (const r of rs) expect([200, 409]).toContain(r.status);
      const after = (await call(s, 'GET', `/v1/partner/orders/${order.id}`)).body.data;
      expect(after.status_history.filter((h: Any) => h.by === 'partner')).toHaveLength(1);
      const events = await eventsFor(order.id, 1);
      expect(events).toHaveLength(1);
      for (const [k, v] of Object.entries(codes(rs))) seen[k] = (seen[k] ?? 0) + v;
    }
    console.log(`same key × 50, status patch (${KEY_ROUNDS} rounds): ${JSON.stringify(seen)}`);
  });
});

/** The status events received for an order once `n` of them are in (bounded wait). */
async function eventsFor(orderId: number, n: number, timeoutMs = 5_000): Promise<Any[]> {
  const end = Date.now() + timeoutMs;
  const find = () =>
    rec.got
      .map((g) => ({ id: g.headers['x-partner-event-id'], body: JSON.parse(g.body.toString()) }))
      .filter((e) => e.body.orders.some((o: Any) => o.id === orderId));
  while (find().length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  // A little longer, to see an extra one if there were any.
  await new Promise((r) => setTimeout(r, 50));
  const byId = new Map(find().map((e) => [e.id, e]));
  return [...byId.values()];
}

describe(`concurrent patches on one order (${mode()})`, () => {
  it(
    `${PATCHERS} patchers with random targets: only legal transitions, history and events consistent`,
    async () => {
      const random = rng(SEED);
      const targets: StatusCode[] = ['ACCEPTED', 'READY', 'DELIVERED', 'CANCELLED'];
      let changes = 0;
      let refused = 0;
      for (let i = 0; i < ORDERS; i++) {
        const order = await placedOrder();
        const rs = await Promise.all(
          Array.from({ length: PATCHERS }, () => {
            const to = targets[Math.floor(random() * targets.length)]!;
            return call(s, 'PATCH', '/v1/partner/orders/status', {
              body: {
                id: order.id,
                status: to,
                platform: 'enterprise',
                ...(to === 'CANCELLED' ? { cancellation_reason: 'out of stock' } : {}),
              },
            });
          }),
        );
        const ok = rs.filter((r) => r.status === 200);
        for (const r of rs) {
          expect([200, 409]).toContain(r.status);
          if (r.status === 409) expect(r.body.error?.code).toBe('state_invalid_transition');
        }
        const after = (await call(s, 'GET', `/v1/partner/orders/${order.id}`)).body.data;
        const partner = after.status_history.filter((h: Any) => h.by === 'partner');
        // One history entry per 200, and each step legal from the one before it.
        expect(partner).toHaveLength(ok.length);
        const ids = after.status_history.map((h: Any) => h.status as number);
        for (let k = 1; k < ids.length; k++) {
          if (after.status_history[k].by !== 'partner') continue;
          const from = Object.entries(STATUS_ID).find(([, v]) => v === ids[k - 1])![0] as StatusCode;
          const to = Object.entries(STATUS_ID).find(
            ([, v]) => v === ids[k],
          )![0] as keyof typeof PARTNER_TRANSITIONS;
          expect((PARTNER_TRANSITIONS[to] as readonly string[]).includes(from), `${from} → ${to}`).toBe(true);
        }
        expect(after.status).toBe(ids[ids.length - 1]);
        // The 200 answers saw the changes in history order.
        expect(ok.map((r) => r.body.data.status).sort()).toEqual(partner.map((h: Any) => h.status).sort());
        // One event per change, each carrying its status.
        const events = await eventsFor(order.id, ok.length);
        expect(events).toHaveLength(ok.length);
        expect(events.map((e) => e.body.orders[0].status).sort()).toEqual(
          partner.map((h: Any) => h.status).sort(),
        );
        changes += ok.length;
        refused += rs.length - ok.length;
      }
      console.log(
        `concurrent patches: ${ORDERS} orders × ${PATCHERS} patchers: ${changes} changes (all legal, one event each), ${refused} refused with 409`,
      );
    },
    scale(60_000, 600_000),
  );
});
