import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../src/server/store/postgres/store.js';
import type { PgTx } from '../../src/server/store/postgres/tx.js';
import { MIGRATIONS } from '../../src/server/store/postgres/migrations.js';
import { changeStatus, patchStatus, setComment } from '../../src/server/services/orders.js';
import { createTestDatabase, type TestDatabase, withDatabase } from '../helpers/pg-databases.js';
import { inject } from 'vitest';

// The PostgreSQL unit of work and the shared rules, below HTTP: two stores on one database stand
// for two instances.

let db: TestDatabase;
let a: PgStore;
let b: PgStore;

beforeAll(async () => {
  db = await createTestDatabase();
  a = await PgStore.open(db.url);
  b = await PgStore.open(db.url);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

async function business(store: PgStore, title: string): Promise<number> {
  return (await store.write((tx) => tx.businesses.create({ title, address: '', logo: '' }, Date.now()))).id;
}

/** A business with a registration receiving all its events (an event nobody receives is settled at write). */
async function receivingBusiness(store: PgStore, title: string): Promise<number> {
  const id = await business(store, title);
  await store.write((tx) =>
    tx.webhooks.insert(
      { business_id: id, brand_id: null, branch_id: null, event: 'all', url: 'http://127.0.0.1:9/hook' },
      Date.now(),
    ),
  );
  return id;
}

/** One status event of the business, fanned out by hand into `n` pending deliveries to `url`. */
async function pendingDeliveries(store: PgStore, bizId: number, url: string, n: number, now: number) {
  await store.write(async (tx) => {
    const eventId = await tx.tenant(bizId).outbox.enqueue({
      type: 'service.order.status.updated',
      brandId: 1,
      branchId: 1,
      orders: ['{}'],
      now,
    });
    const [ev] = await tx.outbox.unfanned(1000).then((r) => r.filter((e) => e.id === eventId));
    for (let i = 0; i < n; i++)
      await tx.deliveries.insert(
        {
          event_seq: ev!.seq,
          event_id: eventId,
          event_type: ev!.type,
          business_id: bizId,
          webhook_id: 1,
          url,
          payload: '{}',
          batched_event_ids: [],
        },
        now,
      );
    await tx.outbox.markFanned(ev!.seq, null, now);
  });
}

describe('PostgreSQL unit of work', () => {
  it('commits a write and shows it to another instance; a thrown unit leaves nothing', async () => {
    const id = await business(a, 'Committed');
    expect(await b.read((tx) => tx.businesses.get(id))).toMatchObject({ id, title: 'Committed' });
    await expect(
      a.write(async (tx) => {
        await tx.businesses.create({ title: 'Rolled back', address: '', logo: '' }, Date.now());
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    const titles = (await b.read((tx) => tx.businesses.list())).map((x) => x.title);
    expect(titles).toContain('Committed');
    expect(titles).not.toContain('Rolled back');
  });

  it("tells a unit it sees only committed data: another unit's uncommitted write is invisible to it", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let written: () => void = () => undefined;
    const wrote = new Promise<void>((r) => {
      written = r;
    });
    const title = `Uncommitted ${Date.now()}`;
    const writer = a.write(async (tx) => {
      await tx.businesses.create({ title, address: '', logo: '' }, Date.now());
      written();
      await held;
    });
    await wrote;
    const seen = await b.write(async (tx) => ({
      flag: tx.readsCommittedOnly,
      rows: (await tx.businesses.list()).filter((x) => x.title === title).length,
    }));
    release();
    await writer;
    expect(seen).toEqual({ flag: true, rows: 0 });
    expect(
      await b.read(async (tx) => (await tx.businesses.list()).filter((x) => x.title === title).length),
    ).toBe(1);
  });

  it('rolls back only the failed attempt() (a savepoint) and commits the rest', async () => {
    await a.write(async (tx) => {
      await tx.businesses.create({ title: 'Kept', address: '', logo: '' }, Date.now());
      await expect(
        tx.attempt(async () => {
          await tx.businesses.create({ title: 'Attempted', address: '', logo: '' }, Date.now());
          throw new Error('part fails');
        }),
      ).rejects.toThrow('part fails');
    });
    const titles = (await a.read((tx) => tx.businesses.list())).map((x) => x.title);
    expect(titles).toContain('Kept');
    expect(titles).not.toContain('Attempted');
  });

  it('runs a one-statement read unit as that statement alone, and a longer one in one snapshot', async () => {
    const id = await business(a, 'Snapshot 0');
    let before = a.stats.roundTrips;
    expect(await a.read((tx) => tx.businesses.get(id))).toMatchObject({ title: 'Snapshot 0' });
    expect(a.stats.roundTrips - before).toBe(1);

    // Another instance commits between the unit's two statements: both still see one snapshot.
    let runs = 0;
    const restarts = a.stats.restarts;
    const seen = await a.read(async (tx) => {
      const first = await tx.businesses.get(id);
      runs++;
      await b.write((w) =>
        (w as PgTx).exec('UPDATE businesses SET title = $1 WHERE id = $2', [`Snapshot ${runs}`, id]),
      );
      const second = await tx.businesses.get(id);
      return [first?.title, second?.title];
    });
    expect(seen[0]).toBe(seen[1]);
    expect(runs).toBe(2);
    expect(a.stats.restarts - restarts).toBe(1);
    // Learnt: the next unit starting with that statement begins at once (BEGIN, 2 statements, COMMIT).
    before = a.stats.roundTrips;
    await a.read(async (tx) => [await tx.businesses.get(id), await tx.businesses.get(id)]);
    expect(a.stats.roundTrips - before).toBe(4);
    expect(a.stats.restarts - restarts).toBe(1);
  });

  it('takes no savepoint for an attempt that succeeds or fails before writing', async () => {
    const before = a.stats.roundTrips;
    await a.write(async (tx) => {
      await tx.attempt(() =>
        tx.businesses.create({ title: 'No savepoint', address: '', logo: '' }, Date.now()),
      );
      await expect(
        tx.attempt(async () => {
          await tx.businesses.any();
          throw new Error('refused before writing');
        }),
      ).rejects.toThrow('refused before writing');
    });
    // BEGIN, INSERT, SELECT, COMMIT.
    expect(a.stats.roundTrips - before).toBe(4);
    expect((await a.read((tx) => tx.businesses.list())).map((x) => x.title)).toContain('No savepoint');
  });

  it('never commits a run that had to restart, even when the unit swallows the restart', async () => {
    let runs = 0;
    await a.write(async (tx) => {
      runs++;
      await tx.businesses.create({ title: `Swallowed ${runs}`, address: '', logo: '' }, Date.now());
      await tx
        .attempt(async () => {
          await tx.businesses.create({ title: `Swallowed part ${runs}`, address: '', logo: '' }, Date.now());
          throw new Error('part fails');
        })
        .catch(() => undefined);
    });
    // Run 1: the one-statement path, left at the first write that hands its row back (create);
    // run 2: the full path without savepoints, left when the attempt failed after writing;
    // run 3: with savepoints. Only the last commits.
    expect(runs).toBe(3);
    const titles = (await a.read((tx) => tx.businesses.list())).map((x) => x.title);
    expect(titles.filter((t) => t.startsWith('Swallowed'))).toEqual(['Swallowed 3']);
  });

  it('refuses a handle used after its unit, and a write from a read unit', async () => {
    let kept: Parameters<Parameters<PgStore['read']>[0]>[0] | undefined;
    await a.read(async (tx) => {
      kept = tx;
    });
    await expect(kept!.businesses.list()).rejects.toThrow(/has ended/);
    await expect(
      a.read((tx) => tx.businesses.create({ title: 'x', address: '', logo: '' }, Date.now())),
    ).rejects.toThrow(/read unit cannot write/);
  });

  it('peeks with one statement outside a transaction, and refuses a second one or a write', async () => {
    const id = await business(a, 'Peeked');
    expect(await b.peek((tx) => tx.businesses.get(id))).toMatchObject({ id, title: 'Peeked' });
    await expect(
      b.peek(async (tx) => {
        await tx.businesses.get(id);
        return tx.businesses.list();
      }),
    ).rejects.toThrow(/one statement/);
    await expect(
      b.peek((tx) => tx.businesses.create({ title: 'x', address: '', logo: '' }, Date.now())),
    ).rejects.toThrow(/cannot write/);
    // The connection went back to the pool clean: a unit after it works.
    expect(await b.read((tx) => tx.businesses.get(id))).toMatchObject({ id });
  });

  it('never hands an id out twice, even after a rollback', async () => {
    const first = await business(a, 'one');
    await a
      .write(async (tx) => {
        await tx.businesses.create({ title: 'lost', address: '', logo: '' }, Date.now());
        throw new Error('roll back');
      })
      .catch(() => undefined);
    const second = await business(b, 'two');
    expect(second).toBeGreaterThan(first + 1);
  });

  it('wakes every instance on an outbox event (NOTIFY at commit), not on a rolled-back one nor on one nobody receives', async () => {
    const quiet = await business(a, 'No receiver');
    const bizId = await receivingBusiness(a, 'Events');
    let woken = 0;
    const off = b.onCommit(() => woken++);
    try {
      // Settled as it is written: no instance has anything to do for it.
      await a.write((tx) =>
        tx.tenant(quiet).outbox.enqueue({
          type: 'service.order.status.updated',
          brandId: 1,
          branchId: 1,
          orders: ['{}'],
          now: Date.now(),
        }),
      );
      await a
        .write(async (tx) => {
          await tx.tenant(bizId).outbox.enqueue({
            type: 'service.order.status.updated',
            brandId: 1,
            branchId: 1,
            orders: ['{}'],
            now: Date.now(),
          });
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      expect(woken).toBe(0);
      await a.write((tx) =>
        tx.tenant(bizId).outbox.enqueue({
          type: 'service.order.status.updated',
          brandId: 1,
          branchId: 1,
          orders: ['{}'],
          now: Date.now(),
        }),
      );
      for (let i = 0; i < 100 && woken === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(woken).toBeGreaterThan(0);
    } finally {
      off();
    }
  });

  it('keeps json payloads byte for byte and shows timestamps as ISO text', async () => {
    const bizId = await business(a, 'Bytes');
    const order = '{"b":1,  "a":[2, 3],"z":"é"}';
    const id = await a.write((tx) =>
      tx.tenant(bizId).outbox.enqueue({
        type: 'service.order.status.updated',
        brandId: 1,
        branchId: 2,
        orders: [order],
        now: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      }),
    );
    const event = await b.read((tx) => tx.outbox.get(id));
    expect(event!.payload).toBe(`{"brand_id":1,"branch_id":2,"orders":[${order}]}`);
    expect(event!.created_at).toBe('2026-01-02T03:04:05.678Z');
    const biz = await b.read((tx) => tx.businesses.get(bizId));
    expect(biz!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe('PostgreSQL migrations', () => {
  it('migrates an empty database once when several instances start at the same moment', async () => {
    const name = `partner_t_${process.pid}_mig${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
      const url = withDatabase(inject('pgAdminUrl'), name);
      const stores = await Promise.all([1, 2, 3, 4].map(() => PgStore.open(url)));
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const { rows } = await c.query('SELECT version FROM schema_migrations ORDER BY version');
        expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
      } finally {
        await c.end();
      }
      await Promise.all(stores.map((st) => st.close()));
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  it('refuses a database migrated by a newer partner', async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query('INSERT INTO schema_migrations (version) VALUES ($1)', [MIGRATIONS.length + 1]);
      await expect(PgStore.open(db.url)).rejects.toThrow(/newer than this partner/);
    } finally {
      await c.query('DELETE FROM schema_migrations WHERE version = $1', [MIGRATIONS.length + 1]);
      await c.end();
    }
  });

  it('records the applied version, and a second start has nothing to do', async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    } finally {
      await c.end();
    }
  });
});

describe('shared rules across instances', () => {
  it('spends one exact rate budget per credential across instances (limit, then refill)', async () => {
    const key = `k-${Math.random()}`;
    const t0 = 1_000_000;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).rateLimits.take(key, 10, t0)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(results.filter((r) => !r.allowed).every((r) => r.retryAfter >= 1)).toBe(true);
    // 10 per minute: one token back after 6 s, on whichever instance asks.
    expect((await a.rateLimits.take(key, 10, t0 + 5_999)).allowed).toBe(false);
    const back = await b.rateLimits.take(key, 10, t0 + 6_000);
    expect(back).toMatchObject({ allowed: true, remaining: 0 });
    await a.rateLimits.reset(key);
    expect(await b.rateLimits.take(key, 10, t0 + 6_000)).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('lets one instance hold an Idempotency-Key claim; a lapsed claim is taken over', async () => {
    const now = 2_000_000;
    expect(await a.claims.begin('cred', 'key-1', now)).toEqual({ kind: 'claimed', recheck: true });
    expect(await b.claims.begin('cred', 'key-1', now)).toEqual({ kind: 'in_flight' });
    await a.claims.release('cred', 'key-1');
    expect(await b.claims.begin('cred', 'key-1', now)).toEqual({ kind: 'claimed', recheck: true });
    // b dies holding it: after the lease anyone may claim again; b's late release frees nothing.
    expect(await a.claims.begin('cred', 'key-1', now + 60_001)).toEqual({ kind: 'claimed', recheck: true });
    await b.claims.release('cred', 'key-1');
    expect(await b.claims.begin('cred', 'key-1', now + 60_002)).toEqual({ kind: 'in_flight' });
  });

  it('a release that cannot reach the database does not throw: the claim lapses with its lease', async () => {
    const c = await PgStore.open(db.url);
    expect(await c.claims.begin('cred', 'key-3', 4_000_000)).toEqual({ kind: 'claimed', recheck: true });
    await c.close();
    await expect(c.claims.release('cred', 'key-3')).resolves.toBeUndefined();
    expect(await a.claims.begin('cred', 'key-3', 4_000_000)).toEqual({ kind: 'in_flight' });
    expect(await a.claims.begin('cred', 'key-3', 4_060_001)).toEqual({ kind: 'claimed', recheck: true });
  });

  it('refuses to commit a second execution of one key (a fresh stored answer wins)', async () => {
    const answer = {
      fingerprint: 'f',
      status: 201,
      isError: false,
      payload: '{"x":1}',
      createdAt: 3_000_000,
    };
    await a.write((tx) => tx.idempotency.put('cred', 'key-2', answer));
    await expect(
      b.write((tx) => tx.idempotency.put('cred', 'key-2', { ...answer, payload: '{"x":2}' })),
    ).rejects.toThrow(/answered by another execution/);
    expect(await b.claims.begin('cred', 'key-2', 3_000_001)).toEqual({ kind: 'stored', answer });
  });

  it('claims a key whose fresh answer names an event that is gone, once: the key counts as unused', async () => {
    const now = 5_000_000;
    await rowsOf(
      `INSERT INTO idempotency_keys (credential_key, idem_key, fingerprint, status, is_error, payload, created_ms, event_seq)
       VALUES ('cred', 'key-4', 'f', 200, false, NULL, $1, 987654321)`,
      [now],
    );
    expect(await a.claims.begin('cred', 'key-4', now + 1)).toEqual({ kind: 'claimed', recheck: true });
    expect(await b.claims.begin('cred', 'key-4', now + 2)).toEqual({ kind: 'in_flight' });
    await a.claims.release('cred', 'key-4');
    expect(await b.claims.begin('cred', 'key-4', now + 3)).toEqual({ kind: 'claimed', recheck: true });
  });

  async function rowsOf(text: string, values: unknown[] = []): Promise<unknown[]> {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query(text, values)).rows;
    } finally {
      await c.end();
    }
  }

  /** A PLACED order of the business, written straight through the repository. */
  async function placedOrder(bizId: number, now: number): Promise<number> {
    const [brand] = (await rowsOf(
      "INSERT INTO brands (business_id, title, created_at, updated_at) VALUES ($1, 'B', now(), now()) RETURNING id",
      [bizId],
    )) as { id: number }[];
    const [branch] = (await rowsOf(
      "INSERT INTO branches (business_id, fields, record, created_at, updated_at) VALUES ($1, '{}', '{}', now(), now()) RETURNING id",
      [bizId],
    )) as { id: number }[];
    return a.write(async (tx) => {
      const t = tx.tenant(bizId);
      const id = await t.orders.nextId();
      const record = {
        id,
        status: 1,
        updated_at: new Date(now).toISOString(),
        comment: null,
        status_history: [],
      };
      await t.orders.insert({
        id,
        brand_id: brand!.id,
        branch_id: branch!.id,
        status: 1,
        created_ms: now,
        updated_ms: now,
        record: JSON.stringify(record),
      });
      return id;
    });
  }

  it('a status transition is three round trips in one unit: the order, the event seq, then every write as ONE statement that also stores the answer and gives the claim back', async () => {
    const bizId = await business(a, 'Transitions');
    const now = 7_000_000;
    const id = await placedOrder(bizId, now);
    expect(await a.claims.begin('cred-t', 'key-t', now)).toEqual({ kind: 'claimed', recheck: true });
    const [trips, restarts] = [a.stats.roundTrips, a.stats.restarts];
    const out = await a.write(async (tx) => {
      // Left to the answer's write on this path (it refuses to overwrite a fresh answer).
      expect(await tx.idempotency.get('cred-t', 'key-t')).toBeUndefined();
      const r = await patchStatus(tx.tenant(bizId), { id, status: 'ACCEPTED' }, now);
      await tx.idempotency.put('cred-t', 'key-t', {
        fingerprint: 'f',
        status: 200,
        isError: false,
        payload: r.record,
        createdAt: now,
        event: r.event,
      });
      return r;
    });
    expect(a.stats.roundTrips - trips).toBe(3);
    expect(a.stats.restarts - restarts).toBe(0);
    // All of it committed: the order, its event, the answer (a reference to the event), and the
    // claim is gone with it, so the other instance finds the answer and no claim in the way.
    const order = await a.read((tx) => tx.tenant(bizId).orders.get(id));
    expect(order).toMatchObject({ status: 2, record: out.record });
    expect((await a.read((tx) => tx.outbox.get(out.event)))?.payload).toContain(out.record);
    expect(
      await rowsOf(
        "SELECT payload, event_seq FROM idempotency_keys WHERE credential_key = 'cred-t' AND idem_key = 'key-t'",
      ),
    ).toEqual([{ payload: null, event_seq: expect.anything() }]);
    expect(
      await rowsOf("SELECT count(*)::int AS n FROM idempotency_claims WHERE credential_key = 'cred-t'"),
    ).toEqual([{ n: 0 }]);
    expect(await b.claims.begin('cred-t', 'key-t', now + 1)).toMatchObject({
      kind: 'stored',
      answer: { payload: out.record, event: out.event },
    });
  });

  it('a transition whose key another execution answered meanwhile commits nothing, and runs again to find that answer', async () => {
    const bizId = await business(a, 'Answered meanwhile');
    const now = 9_000_000;
    const id = await placedOrder(bizId, now);
    expect(await a.claims.begin('cred-m', 'key-m', now)).toMatchObject({ kind: 'claimed' });
    const first = {
      fingerprint: 'f',
      status: 200,
      isError: false,
      payload: '{"first":true}',
      createdAt: now,
    };
    let runs = 0;
    const seen: unknown[] = [];
    const out = await a.write(async (tx) => {
      runs++;
      const found = await tx.idempotency.get('cred-m', 'key-m');
      seen.push(found?.payload);
      if (found) return 'replayed';
      // Another execution of the key (its claim lapsed) commits its answer now.
      if (runs === 1) await b.write((w) => w.idempotency.put('cred-m', 'key-m', first));
      const r = await patchStatus(tx.tenant(bizId), { id, status: 'ACCEPTED' }, now);
      await tx.idempotency.put('cred-m', 'key-m', { ...first, payload: r.record, event: r.event });
      return 'executed';
    });
    expect([out, runs, seen]).toEqual(['replayed', 2, [undefined, '{"first":true}']]);
    expect(await a.read((tx) => tx.tenant(bizId).orders.get(id))).toMatchObject({ status: 1 });
    expect(await rowsOf('SELECT count(*)::int AS n FROM outbox_events WHERE order_id = $1', [id])).toEqual([
      { n: 0 },
    ]);
  });

  it('a transition whose order another instance changed after it was read runs again under the row lock: no lost update', async () => {
    const bizId = await business(a, 'Lost updates');
    const now = 8_000_000;
    const id = await placedOrder(bizId, now);
    let runs = 0;
    const restarts = a.stats.restarts;
    const out = await a.write(async (tx) => {
      runs++;
      const t = tx.tenant(bizId);
      const row = await t.orders.get(id);
      // Another instance comments on the order between this unit's read and its write.
      if (runs === 1) await b.write((w) => setComment(w.tenant(bizId), id, 'meanwhile', now + 1));
      return changeStatus(t, row!, 'ACCEPTED', 'partner', now + 2);
    });
    expect(runs).toBe(2);
    expect(a.stats.restarts - restarts).toBe(1);
    const record = JSON.parse(out.record);
    expect(record).toMatchObject({ status: 2, comment: 'meanwhile' });
    const stored = await a.read((tx) => tx.tenant(bizId).orders.get(id));
    expect(stored?.record).toBe(out.record);
    // The first run's event never committed: one status event for the order.
    expect(await rowsOf('SELECT count(*)::int AS n FROM outbox_events WHERE order_id = $1', [id])).toEqual([
      { n: 1 },
    ]);
  });

  it('claims each delivery on one instance only, within the per-URL bound across instances', async () => {
    const bizId = await receivingBusiness(a, 'Deliveries');
    const now = 5_000_000;
    await pendingDeliveries(a, bizId, 'http://127.0.0.1:9/slow', 10, now);
    // Both instances look at once, each wanting as many as it can get.
    const look = (s: PgStore, owner: string) =>
      s.write(async (tx) => {
        const due = await tx.deliveries.due(now, 100);
        const got = [];
        for (const d of due) {
          const c = await tx.deliveries.claim(d.id, owner, now + 30_000, now);
          if (c) got.push(c.id);
        }
        return got;
      });
    const [x, y] = await Promise.all([look(a, '1:a'), look(b, '2:b')]);
    const all = [...x, ...y];
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(4);
    // A dead instance's leases are taken over once they run out, still within the bound.
    const later = await look(b, '2:b').then(() =>
      b.write(async (tx) => {
        const due = await tx.deliveries.due(now + 30_001, 100);
        const got = [];
        for (const d of due)
          if (await tx.deliveries.claim(d.id, '2:b', now + 60_000, now + 30_001)) got.push(d.id);
        return got;
      }),
    );
    expect(later).toHaveLength(4);
  });

  it("holds a claimant's wider window for a URL across instances: every instance's leases count against it", async () => {
    const bizId = await receivingBusiness(a, 'Window');
    const now = 7_000_000;
    const url = 'http://127.0.0.1:9/fast';
    await pendingDeliveries(a, bizId, url, 20, now);
    const look = (s: PgStore, owner: string, slots?: number) =>
      s.write(async (tx) => {
        const due = (await tx.deliveries.due(now, 100, 32)).filter((d) => d.url === url);
        const got = [];
        for (const d of due) {
          const c = await tx.deliveries.claim(d.id, owner, now + 30_000, now, slots);
          if (c) got.push(c.id);
        }
        return got;
      });
    const [x, y] = await Promise.all([look(a, '1:a', 8), look(b, '2:b', 8)]);
    const all = [...x, ...y];
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(8);
    // Eight in flight: an instance whose window is narrower (or the store's own 4) takes none.
    expect(await look(b, '2:b', 4)).toEqual([]);
    expect(await look(a, '1:a')).toEqual([]);
    // A wider window takes only what the live leases leave of it.
    expect(await look(a, '1:a', 10)).toHaveLength(2);
  });
});
