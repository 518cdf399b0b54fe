// Issue 24: deliveries during a burst of 5,000 status changes sent as partner PATCHes over 50
// concurrent connections (an integrator's POS fleet), each a real transition of its own order.
// Receiver latency: from the PATCH's answer to the receiver's receipt of that order's event.
// Drain alone: the receiver holds its answers while a second burst is written, then lets go; the
// backlog's deliveries/s from then on. Targets: p50 ≤ 50 ms, p99 ≤ 250 ms; drain ≥ 4,000/s.
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { basic, cpuMs, startPartnerServer } from '../lib/server.mjs';
import { fmt, loadNote } from '../lib/stats.mjs';
import { templateOrder } from '../lib/status-patches.mjs';
import { cloneOrders } from './orders-patch.mjs';

export const title = 'Webhook delivery during 5,000 partner PATCHes over 50 connections; drain alone';

const BURST = Number(process.env.BENCH_BURST ?? 5_000);
const CONNECTIONS = 50;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

export async function run({ log }) {
  /** Receipt time of each order's event in this phase, by order id. */
  let arrived = new Map();
  let held;
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (held) held.push(res);
      else res.end('ok');
      if (req.headers['x-partner-event-type'] !== 'service.order.status.updated') return;
      // Keyed by order: each phase changes every order once (the map is emptied between them).
      const k = String(JSON.parse(Buffer.concat(chunks).toString()).orders[0].id);
      if (!arrived.has(k)) arrived.set(k, performance.now());
    });
  });
  receiver.keepAliveTimeout = 120_000;
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${receiver.address().port}/`;

  const partner = await startPartnerServer({ core: 0, options: { deliveryTimeoutMs: 120_000 } });
  const { baseUrl, operatorToken, credential, dataDir } = partner.info;
  const pool = new Pool(baseUrl, { connections: CONNECTIONS, pipelining: 1 });
  const authorization = basic(credential);
  try {
    const hook = await fetch(`${baseUrl}/v1/operator/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        business_id: credential.business_id,
        url,
        event: 'service.order.status.updated',
      }),
    });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);
    const template = await templateOrder(baseUrl, operatorToken, credential);
    const first = cloneOrders(dataDir, template.id, BURST);

    /** 5,000 PATCHes to `status` over 50 connections; the answer time of each. */
    async function burst(status, prefix) {
      const answered = new Map();
      let next = 0;
      let bad = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (next < BURST) {
            const id = first + next++;
            const r = await pool.request({
              method: 'PATCH',
              path: '/v1/partner/orders/status',
              headers: {
                authorization,
                'content-type': 'application/json',
                'idempotency-key': `${prefix}-${id}`,
              },
              body: JSON.stringify({ id, status, platform: 'enterprise' }),
            });
            await r.body.dump();
            if (r.statusCode !== 200) bad++;
            answered.set(String(id), performance.now());
          }
        }),
      );
      return { answered, bad, writeSeconds: (performance.now() - t0) / 1000, t0 };
    }

    async function allArrived(keys, bound = 120_000) {
      const deadline = performance.now() + bound;
      while (keys.some((k) => !arrived.has(k)) && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 2));
    }

    // 1. Deliveries keeping pace with the writes.
    const cpu0 = cpuMs(partner.child.pid);
    const a = await burst('ACCEPTED', 'burst');
    const keys = [...a.answered.keys()];
    await allArrived(keys);
    const lat = keys
      .filter((k) => arrived.has(k))
      .map((k) => Math.max(0, arrived.get(k) - a.answered.get(k)));
    const lastArrival = Math.max(...keys.filter((k) => arrived.has(k)).map((k) => arrived.get(k)));
    const cpuPerChange = ((cpuMs(partner.child.pid) - cpu0) * 1000) / BURST;
    log(
      `burst: writes ${fmt(BURST / a.writeSeconds)}/s, deliveries ${fmt(lat.length / ((lastArrival - a.t0) / 1000))}/s, latency p50 ${fmt(pct(lat, 50), 1)} ms p99 ${fmt(pct(lat, 99), 1)} ms`,
    );

    // 2. Drain alone: held answers while the second burst is written, then released.
    arrived = new Map();
    held = [];
    const b = await burst('READY', 'drain');
    const bKeys = [...b.answered.keys()];
    const backlog = bKeys.filter((k) => !arrived.has(k)).length;
    const release = performance.now();
    const waiting = held;
    held = undefined;
    for (const res of waiting) res.end('ok');
    await allArrived(bKeys);
    const drainEnd = Math.max(...bKeys.filter((k) => arrived.has(k)).map((k) => arrived.get(k)));
    const drained = bKeys.filter((k) => arrived.has(k) && arrived.get(k) >= release).length;
    const drainRate = drained / ((drainEnd - release) / 1000);
    log(`drain: backlog ${backlog}, ${fmt(drainRate)}/s`);

    const ok = (v, t) => (v <= t ? 'met' : '**over**');
    return [
      `_${loadNote()}._ ${fmt(BURST)} orders cloned PLACED; each PATCHed once to ACCEPTED by 50 concurrent connections (undici Pool), a webhook on a fast local receiver; the server pinned to core 0. Latency: the PATCH's answer → that order's event at the receiver.`,
      '',
      '| | measured | target | |',
      '|---|---:|---:|---|',
      `| writes (partner PATCHes) /s | ${fmt(BURST / a.writeSeconds)} | | non-2xx ${a.bad + b.bad} |`,
      `| deliveries /s during the burst | ${fmt(lat.length / ((lastArrival - a.t0) / 1000))} | keeps pace | |`,
      `| receiver latency p50 | ${fmt(pct(lat, 50), 1)} ms | ≤ 50 ms | ${ok(pct(lat, 50), 50)} |`,
      `| receiver latency p99 | ${fmt(pct(lat, 99), 1)} ms | ≤ 250 ms | ${ok(pct(lat, 99), 250)} |`,
      `| drain alone (backlog ${fmt(backlog)}) /s | ${fmt(drainRate)} | ≥ 4,000 | ${drainRate >= 4000 ? 'met' : '**under**'} |`,
      `| server CPU per status change (delivery included) | ${fmt(cpuPerChange)} µs | | |`,
      '',
      `Events received: ${fmt(lat.length)} of ${fmt(BURST)} (burst), ${fmt(bKeys.filter((k) => arrived.has(k)).length)} of ${fmt(BURST)} (drain).`,
    ];
  } finally {
    await pool.close();
    await partner.close();
    receiver.closeAllConnections?.();
    receiver.close();
  }
}
