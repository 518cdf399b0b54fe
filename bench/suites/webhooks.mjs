// Issues 6 and 14: latency from a status patch's response to the receiver's receipt (p50, p99),
// and deliveries per second to a fast receiver during a burst of status changes. Floor in the
// same run: a plain undici POST to the same receiver. Targets (issue 14): p50 ≤ 0.5 ms,
// p99 ≤ 3 ms; ≥ 4,000 deliveries/s with the backlog draining as fast as the writes arrive.
import { createServer } from 'node:http';
import { request } from 'undici';
import { basic, cpuMs, startPartnerServer } from '../lib/server.mjs';
import { fmt, median, loadNote } from '../lib/stats.mjs';

export const title = 'Webhook delivery: status patch → receiver latency, deliveries/s';

const SAMPLES = 300;
const BURST = 5000;
const WRITERS = 16;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

export async function run({ log }) {
  const waiters = new Map();
  let received = 0;
  let held;
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      // While `held` is set the receiver answers nothing: the dispatcher's few slots for it stay
      // busy and the events written meanwhile wait as a backlog.
      if (held) held.push(res);
      else res.end('ok');
      received++;
      const type = req.headers['x-partner-event-type'];
      if (type === 'service.order.status.updated') {
        const id = JSON.parse(Buffer.concat(chunks).toString()).orders[0].id;
        waiters.get(id)?.(performance.now());
      }
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${receiver.address().port}/`;

  // Held answers must not time out while the backlog builds.
  const partner = await startPartnerServer({ core: 0, options: { deliveryTimeoutMs: 120_000 } });
  const { baseUrl, operatorToken, credential } = partner.info;
  const op = async (method, path, body) => {
    const r = await request(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    const j = await r.body.json();
    if (r.statusCode >= 300) throw new Error(`${method} ${path}: ${r.statusCode} ${JSON.stringify(j)}`);
    return j.data;
  };
  try {
    const branch = (
      await (
        await fetch(`${baseUrl}/v1/partner/branches`, { headers: { authorization: basic(credential) } })
      ).json()
    ).data.results[0];
    await op('POST', '/v1/operator/webhooks', {
      business_id: credential.business_id,
      url,
      event: 'service.order.status.updated',
    });
    const orders = [];
    for (let i = 0; i < SAMPLES; i++) {
      orders.push(
        (
          await op('POST', '/v1/operator/orders', {
            business_id: credential.business_id,
            brand_id: branch.brand_ids[0],
            branch_id: branch.id,
            items: 1,
          })
        ).id,
      );
    }

    // Floor: the same receiver, one plain POST at a time.
    const floor = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t = performance.now();
      const r = await request(url, {
        method: 'POST',
        body: '{"orders":[{"id":-1}]}',
        headers: { 'content-type': 'application/json' },
      });
      await r.body.dump();
      floor.push(performance.now() - t);
    }

    const lat = [];
    let k = 0;
    for (const id of orders) {
      const arrived = new Promise((r) => waiters.set(id, r));
      const r = await request(`${baseUrl}/v1/partner/orders/status`, {
        method: 'PATCH',
        headers: {
          authorization: basic(credential),
          'content-type': 'application/json',
          'idempotency-key': `bench-wh-${id}-${k++}`,
        },
        body: JSON.stringify({ id, status: 'ACCEPTED', platform: 'enterprise' }),
      });
      await r.body.dump();
      const answered = performance.now();
      if (r.statusCode !== 200) throw new Error(`patch ${id}: ${r.statusCode}`);
      const got = await Promise.race([arrived, new Promise((r2) => setTimeout(() => r2(undefined), 5_000))]);
      if (got === undefined) throw new Error(`no delivery for order ${id} within 5 s`);
      lat.push(Math.max(0, got - answered));
      waiters.delete(id);
    }

    // Throughput: a burst of operator status changes; deliveries counted from the first write
    // until the last of them arrived.
    const before = received;
    const cpu0 = cpuMs(partner.child.pid);
    const t0 = performance.now();
    const statuses = ['READY', 'DELIVERED', 'ACCEPTED', 'READY'];
    let backlogAtLastWrite = 0;
    let writesDone = 0;
    let tWrites = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = w; i < BURST; i += WRITERS) {
          await op('POST', `/v1/operator/orders/${orders[i % orders.length]}/status`, {
            status: statuses[Math.floor(i / orders.length) % statuses.length],
          });
          if (++writesDone === BURST) {
            tWrites = performance.now();
            backlogAtLastWrite = BURST - (received - before);
          }
        }
      }),
    );
    let tLast = performance.now();
    const deadline = performance.now() + 60_000;
    while (received - before < BURST && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2));
      tLast = performance.now();
    }
    const delivered = received - before;
    // What the server spent per status change, its delivery included: steady under other load.
    const cpuPerEvent = ((cpuMs(partner.child.pid) - cpu0) * 1000) / BURST;
    const seconds = (tLast - t0) / 1000;
    const writeSeconds = (tWrites - t0) / 1000;
    const perSecond = delivered / seconds;
    const drainMs = tLast - tWrites;
    // Drain: the same burst written while the receiver holds its answers (a backlog builds up
    // behind the few deliveries it holds), then released: deliveries/s with nothing else to do.
    held = [];
    const beforeDrain = received;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = w; i < BURST; i += WRITERS) {
          await op('POST', `/v1/operator/orders/${orders[i % orders.length]}/status`, {
            status: statuses[Math.floor(i / orders.length) % statuses.length],
          });
        }
      }),
    );
    const heldCount = held.length;
    const backlog = BURST - (received - beforeDrain);
    const cpuRelease = cpuMs(partner.child.pid);
    const tRelease = performance.now();
    for (const res of held) res.end('ok');
    held = undefined;
    let tDrained = performance.now();
    const drainDeadline = tRelease + 60_000;
    while (received - beforeDrain < BURST && performance.now() < drainDeadline) {
      await new Promise((r) => setTimeout(r, 2));
      tDrained = performance.now();
    }
    const drained = received - beforeDrain - heldCount;
    const cpuPerDelivery = ((cpuMs(partner.child.pid) - cpuRelease) * 1000) / drained;
    const drainRate = drained / ((tDrained - tRelease) / 1000);
    log(
      `latency p50 ${fmt(pct(lat, 50), 2)} ms p99 ${fmt(pct(lat, 99), 2)} ms · floor p50 ${fmt(pct(floor, 50), 2)} ms · writes ${fmt(BURST / writeSeconds)}/s · ${fmt(perSecond)} deliveries/s · backlog at the last write ${backlogAtLastWrite}, drained ${fmt(drainMs, 1)} ms later · server CPU ${fmt(cpuPerEvent)} µs per change + delivery · drain of a ${fmt(backlog)}-event backlog: ${fmt(drainRate)} deliveries/s, ${fmt(cpuPerDelivery)} µs CPU each`,
    );
    return [
      `_${loadNote()}._ ` +
        `${SAMPLES} status patches, one at a time; server pinned to core 0, receiver and client on core 1.`,
      '',
      '| | p50 ms | p99 ms |',
      '|---|---:|---:|',
      `| plain POST to the receiver (floor) | ${fmt(pct(floor, 50), 2)} | ${fmt(pct(floor, 99), 2)} |`,
      `| patch answered → receiver got the event | ${fmt(pct(lat, 50), 2)} | ${fmt(pct(lat, 99), 2)} |`,
      '',
      `**p50 ${fmt(pct(lat, 50), 2)} ms** (target ≤ 0.5) · **p99 ${fmt(pct(lat, 99), 2)} ms** (target ≤ 3) · median ${fmt(median(lat), 2)} ms`,
      '',
      `Burst of ${fmt(BURST)} operator status changes (${WRITERS} concurrent writers, one receiver registered for status events): written in ${fmt(writeSeconds, 2)} s (${fmt(BURST / writeSeconds)} writes/s); ${fmt(delivered)} deliveries in ${fmt(seconds, 2)} s from the first write to the last receipt = **${fmt(perSecond)} deliveries/s** (target ≥ 4,000). Backlog when the last write was answered: ${fmt(backlogAtLastWrite)} events, received ${fmt(drainMs, 1)} ms later. Server CPU per status change, its delivery included: ${fmt(cpuPerEvent)} µs (one core's worth: ${fmt(1e6 / cpuPerEvent)} changes + deliveries/s).`,
      '',
      `Drain: the same burst written while the receiver held its answers (${heldCount} deliveries held, ${fmt(backlog)} events waiting), then released: ${fmt(drained)} deliveries in ${fmt((tDrained - tRelease) / 1000, 2)} s = **${fmt(drainRate)} deliveries/s** with no writes competing (the dispatcher's own rate to a fast receiver); server CPU ${fmt(cpuPerDelivery)} µs per delivery (one core's worth: ${fmt(1e6 / cpuPerDelivery)}/s).`,
    ];
  } finally {
    await partner.close();
    await new Promise((r) => receiver.close(r));
  }
}
