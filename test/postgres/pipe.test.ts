import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../src/server/store/postgres/store.js';
import type { PgTx } from '../../src/server/store/postgres/tx.js';
import { q } from '../../src/server/store/sql/query.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-databases.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

// The pipe (store/postgres/pipe.ts): work of one statement outside a transaction shares a few
// pipelined connections instead of taking a pooled one each; a lost pipe connection is replaced.

let db: TestDatabase;
let store: PgStore;
let admin: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await PgStore.open(db.url, { max: 10 });
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
});

afterAll(async () => {
  await admin?.end();
  await store?.close();
  await db?.drop();
});

/** Backends of this database other than the admin's own connection and the store's LISTEN one. */
async function backends(): Promise<{ pid: number; query: string }[]> {
  const { rows } = await admin.query<{ pid: number; query: string }>(
    `SELECT pid, query FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%'
       AND query NOT LIKE 'SELECT pg_advisory_lock%'`,
  );
  return rows;
}

describe('PostgreSQL pipe', () => {
  it('carries 50 concurrent one-statement reads on its connections, not on 50 pooled ones', async () => {
    const id = (
      await store.write((tx) => tx.businesses.create({ title: 'Piped', address: '', logo: '' }, Date.now()))
    ).id;
    const pooledBefore = store.pool.totalCount;
    const got = await Promise.all(
      Array.from({ length: 50 }, () => store.read((tx) => tx.businesses.get(id))),
    );
    expect(got.every((b) => b?.title === 'Piped')).toBe(true);
    // No read took a pooled connection (a pool of 10 would have opened up to 10 for them).
    expect(store.pool.totalCount).toBe(pooledBefore);
    // The write above ran on the pipe too (its one-statement path): the pipe's two connections
    // and whatever the pool kept from the migrations.
    expect((await backends()).length).toBeLessThanOrEqual(2 + pooledBefore);
  });

  it('sends the statements queued in one turn of the event loop in one write per connection', async () => {
    const id = (
      await store.write((tx) => tx.businesses.create({ title: 'Corked', address: '', logo: '' }, Date.now()))
    ).id;
    // Both connections open and the statement prepared on each, so only the burst is counted.
    await Promise.all([1, 2, 3, 4].map(() => store.read((tx) => tx.businesses.get(id))));
    const writes = new Map<net.Socket, number>();
    const proto = net.Socket.prototype as unknown as { _writeGeneric: (...a: unknown[]) => unknown };
    const original = proto._writeGeneric;
    proto._writeGeneric = function (this: net.Socket, ...args: unknown[]) {
      writes.set(this, (writes.get(this) ?? 0) + 1);
      return original.apply(this, args);
    };
    try {
      const got = await Promise.all(
        Array.from({ length: 50 }, () => store.read((tx) => tx.businesses.get(id))),
      );
      expect(got.every((b) => b?.title === 'Corked')).toBe(true);
    } finally {
      proto._writeGeneric = original;
    }
    // One write per pipe connection (there are two); each statement written as it is queued
    // would be 50.
    expect([...writes.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2);
  });

  it('commits nothing a 2xx stands on without waiting for the disk: a write goes out on a pooled connection', async () => {
    const SOURCE = q("SELECT source || ':' || setting FROM pg_settings WHERE name = 'synchronous_commit'");
    // The pipe's connections are told not to wait for the WAL to reach the disk (rate takes,
    // claims); a pooled connection keeps the server's setting.
    const piped = await store.read((tx) => (tx as unknown as PgTx).value<string>(SOURCE));
    expect(piped).toBe('client:off');
    const { rows } = await store.pool.query<{ s: string }>(
      "SELECT source || ':' || setting AS s FROM pg_settings WHERE name = 'synchronous_commit'",
    );
    expect(rows[0]!.s).not.toMatch(/^client:/);
    // A write unit on its one-statement path sends its one write on a pooled connection.
    const id = (
      await store.write((tx) => tx.businesses.create({ title: 'Durable', address: '', logo: '' }, Date.now()))
    ).id;
    let acquired = 0;
    const count = () => acquired++;
    store.pool.on('acquire', count);
    try {
      const before = store.stats.restarts;
      await store.write((tx) =>
        (tx as PgTx).exec('UPDATE businesses SET title = $1 WHERE id = $2', ['Durable 2', id]),
      );
      expect(store.stats.restarts).toBe(before); // it stayed on the one-statement path
      expect(acquired).toBe(1);
      acquired = 0;
      expect((await store.read((tx) => tx.businesses.get(id)))?.title).toBe('Durable 2');
      expect(acquired).toBe(0);
    } finally {
      store.pool.off('acquire', count);
    }
  });

  it('a read unit of two statements still runs in one snapshot, on a pooled connection', async () => {
    const id = (
      await store.write((tx) => tx.businesses.create({ title: 'Two', address: '', logo: '' }, Date.now()))
    ).id;
    const pair = await store.read(async (tx) => [await tx.businesses.get(id), await tx.businesses.get(id)]);
    expect(pair.map((b) => b?.title)).toEqual(['Two', 'Two']);
  });

  it('replaces a connection that was cut: a statement on it fails as unavailable, the next ones succeed', async () => {
    const id = (
      await store.write((tx) => tx.businesses.create({ title: 'Cut', address: '', logo: '' }, Date.now()))
    ).id;
    // Both pipe connections exist after a few reads.
    await Promise.all([1, 2, 3, 4].map(() => store.read((tx) => tx.businesses.get(id))));
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%'
         AND query NOT LIKE 'SELECT pg_advisory_lock%'`,
    );
    // The cut is seen by the next statement on each connection (or by its 'error' event first):
    // within a bounded number of tries every read succeeds again.
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await store
        .read((tx) => tx.businesses.get(id))
        .then(
          (b) => `ok:${b?.title}`,
          (err: Error & { code?: string }) => `failed:${err.code ?? err.name}`,
        );
      outcomes.push(r);
      if (outcomes.slice(-4).join() === 'ok:Cut,ok:Cut,ok:Cut,ok:Cut') break;
    }
    expect(outcomes.slice(-4)).toEqual(['ok:Cut', 'ok:Cut', 'ok:Cut', 'ok:Cut']);
    for (const o of outcomes.filter((x) => x.startsWith('failed')))
      expect(o).toBe('failed:downstream_unavailable');
  });
});

describe('a partner write on PostgreSQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('checks the credential, takes from its rate budget and claims its key in one statement', async () => {
    const store = server.server.services.store as PgStore;
    const pipe = (store as unknown as { pipe: { query: (c: { name?: string }) => Promise<unknown> } }).pipe;
    // Verified once: the next request takes the cached path.
    expect((await call(server, 'POST', '/v1/partner/brands', { body: { title: 'First' } })).status).toBe(201);
    const names: string[] = [];
    const query = pipe.query;
    pipe.query = function (this: unknown, config: { name?: string }, ...rest: unknown[]) {
      names.push(config.name ?? '(unnamed)');
      return (query as (...a: unknown[]) => Promise<unknown>).call(this, config, ...rest);
    };
    try {
      const r = await call(server, 'POST', '/v1/partner/brands', {
        key: 'one-statement',
        body: { title: 'Second' },
      });
      expect(r.status).toBe(201);
    } finally {
      pipe.query = query;
    }
    // The admit with the claim went out first, and nothing else of the credential or the key.
    expect(names[0]).toBe('rate-admit-claim');
    expect(names).not.toContain('idem-begin');
    expect(names).not.toContain('rate-admit');
    expect(names.filter((n) => n === 'rate-admit-claim')).toHaveLength(1);
  });
});
