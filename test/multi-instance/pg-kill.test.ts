import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../src/server/store/postgres/store.js';
import { startCountingReceiver } from './counting-receiver.js';
import { ensureBuilt, killAll } from './instances.js';
import { type Service, startService } from './service.js';

// `kill -9` of one of three instances under write load: every acknowledged write is there
// afterwards, and every event is delivered — the deliveries the killed instance had leased are
// taken over by the others once their lease (30 s) has run out. Runs in the postgres project only.

let s: Service;
let store: PgStore | undefined;

beforeAll(async () => {
  ensureBuilt();
  s = await startService();
  store = await PgStore.open(s.db.url);
}, 60_000);
afterAll(async () => {
  await store?.close().catch(() => undefined);
  await s?.stop().catch(() => undefined);
  killAll();
});

describe('kill -9 of one instance under write load', () => {
  it('loses no acknowledged write and no event', async () => {
    // Every delivery is held 300 ms: the instances hold leases when one of them dies.
    const receiver = await startCountingReceiver(300);
    try {
      const hook = await s.operator(s.urls[0]!, 'POST', '/v1/operator/webhooks', {
        business_id: s.credential.businessId,
        url: receiver.url,
        event: 'all',
      });
      expect(hook.status).toBe(201);
      const branches = (await s.partner(s.urls[0]!, 'GET', '/v1/partner/branches')).json.data as {
        results: { id: number; brand_ids: number[] }[];
      };
      // Orders across every branch: events of different stores are not batched together.
      const stores = branches.results.map((b) => ({ brand_id: b.brand_ids[0]!, branch_id: b.id }));
      const acknowledged: number[] = [];
      let refused = 0;
      let stop = false;
      // Six writers, round-robin over the three instances, for about 3 s (bounded: 400 writes each).
      const writer = async (w: number) => {
        for (let i = 0; i < 400 && !stop; i++) {
          const url = s.urls[(w + i) % 3]!;
          try {
            const r = await s.operator(url, 'POST', '/v1/operator/orders', {
              business_id: s.credential.businessId,
              ...stores[(w + i) % stores.length]!,
            });
            if (r.status === 201) acknowledged.push((r.json.data as { id: number }).id);
          } catch {
            refused++; // the killed instance: its connection refused or reset, nothing acknowledged
          }
        }
      };
      const writers = Promise.all([0, 1, 2, 3, 4, 5].map(writer));
      await new Promise((r) => setTimeout(r, 1_500));
      // The victim: an instance holding delivery leases at that moment (looked for, bounded).
      let victim: (typeof s.instances)[number] | undefined;
      for (let i = 0; i < 50 && !victim; i++) {
        const owners = await store!.read((tx) => tx.deliveries.leaseOwners());
        victim = s.instances.find((inst) => owners.some((o) => o.startsWith(`${inst.child.pid}:`)));
        if (!victim) await new Promise((r) => setTimeout(r, 50));
      }
      if (!victim) throw new Error('no instance held a delivery lease within 2.5 s of load');
      const before = acknowledged.length;
      victim.child.kill('SIGKILL');
      await victim.exited;
      await new Promise((r) => setTimeout(r, 1_500));
      stop = true;
      await writers;
      console.log(
        `kill -9 under load: ${acknowledged.length} writes acknowledged (${before} before the kill of instance ${s.instances.indexOf(victim) + 1}, which held delivery leases), ${refused} refused by the dead instance`,
      );
      expect(acknowledged.length).toBeGreaterThan(before);

      // Every acknowledged write is there, read through the survivors.
      const survivors = s.instances.filter((i) => i !== victim).map((i) => i.url);
      for (const [i, id] of acknowledged.entries()) {
        const r = await s.partner(survivors[i % 2]!, 'GET', `/v1/partner/orders/${id}`);
        expect(r.status, `order ${id}`).toBe(200);
      }
      // Every acknowledged order's event is delivered: the dead instance's leases run out (30 s)
      // and a survivor sends them, with their original event ids.
      const t0 = Date.now();
      await receiver.until(
        () => acknowledged.every((id) => receiver.orderIds().has(id)),
        60_000,
        () =>
          `every acknowledged order delivered (${acknowledged.filter((id) => !receiver.orderIds().has(id)).length} of ${acknowledged.length} missing; ${receiver.got.length} deliveries received)`,
      );
      const duplicates = [...receiver.counts().values()].filter((n) => n > 1).length;
      console.log(
        `all ${acknowledged.length} orders delivered ${((Date.now() - t0) / 1000).toFixed(1)} s after the load; ${receiver.counts().size} event ids, ${duplicates} delivered twice (sent by the dead instance, then again after its lease: at least once)`,
      );
      // The operator's log agrees: nothing is left pending once the last answers are recorded.
      let pending: unknown[] = [1];
      for (let i = 0; i < 50 && pending.length > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        pending = (await s.operator(survivors[0]!, 'GET', '/v1/operator/webhooks/log?status=pending')).json
          .data as unknown[];
      }
      expect(pending).toEqual([]);
      const failed = await s.operator(survivors[1]!, 'GET', '/v1/operator/webhooks/log?status=failed');
      expect(failed.json.data).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
