import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDb } from './db.js';
import { SqliteStore } from './store.js';

// A delivery's lease names its host on SQLite as on PostgreSQL: a restarted process judges only
// its own machine's leases by process id (a data directory may be moved or shared between
// machines); a lease taken before leases named their host (NULL) still counts as this machine's.

let dir: string;
let store: SqliteStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'partner-leases-'));
  store = new SqliteStore(openDb(join(dir, 'partner.db'), { durability: 'normal' }));
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it('records the host with every lease; leaseOwners names only this machine’s', async () => {
  const now = Date.now();
  const ids = await store.write(async (tx) => {
    const biz = await tx.businesses.create({ title: 'b', address: '', logo: '' }, now);
    const hook = { business_id: biz.id, brand_id: null, branch_id: null, event: 'all' as const };
    const w = await tx.webhooks.insert({ ...hook, url: 'http://127.0.0.1:9/hook' }, now);
    const eventId = await tx.tenant(biz.id).outbox.enqueue({
      type: 'service.order.status.updated',
      brandId: 1,
      branchId: 1,
      orders: ['{}'],
      now,
    });
    const [ev] = await tx.outbox.unfanned(10);
    for (let i = 0; i < 3; i++)
      await tx.deliveries.insert(
        {
          event_seq: ev!.seq,
          event_id: eventId,
          event_type: ev!.type,
          business_id: biz.id,
          webhook_id: w.id,
          url: w.url,
          payload: '{}',
          batched_event_ids: [],
        },
        now,
      );
    const due = await tx.deliveries.due(now, 10);
    for (const [i, d] of due.entries()) await tx.deliveries.claim(d.id, `${i + 1}:here`, now + 30_000, now);
    return due.map((d) => d.id);
  });
  expect(ids).toHaveLength(3);
  const hosts = () =>
    store.db.prepare('SELECT lease_host FROM webhook_deliveries ORDER BY id').pluck().all() as (
      | string
      | null
    )[];
  expect(hosts()).toEqual([hostname(), hostname(), hostname()]);

  const set = store.db.prepare('UPDATE webhook_deliveries SET lease_host = ? WHERE id = ?');
  set.run('another-machine', ids[1]);
  set.run(null, ids[2]);
  const owners = await store.read((tx) => tx.deliveries.leaseOwners());
  expect(owners.sort()).toEqual(['1:here', '3:here']);
});
