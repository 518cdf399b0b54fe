import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tx } from '../store.js';
import { openDb } from './db.js';
import { SqliteStore } from './store.js';
import { UnitOfWorkError } from './unit-of-work.js';

let dir: string;
let store: SqliteStore;
/** A second connection: it sees only what has really been committed to the file. */
let outside: Database.Database;
let stuck: UnitOfWorkError[];
let commits: number;

// Through the store's own API: a business per number, named by it.
const insert = (tx: Tx, n: number) => tx.businesses.create({ title: String(n), address: '', logo: '' }, 0);
const count = async (tx: Tx) => (await tx.businesses.list()).length;
const committedIds = () =>
  (outside.prepare('SELECT title FROM businesses ORDER BY id').pluck().all() as string[]).map(Number);
const turn = () => new Promise((r) => setImmediate(r));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'partner-uow-'));
  const file = join(dir, 'uow.db');
  const db = openDb(file);
  stuck = [];
  store = new SqliteStore(db, { onStuck: (e) => stuck.push(e) });
  commits = 0;
  store.onCommit(() => commits++);
  outside = new Database(file, { readonly: true });
});

afterEach(async () => {
  outside.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite unit of work', () => {
  it("tells a unit whether it can see another unit's uncommitted writes", async () => {
    const seen: [string, boolean | undefined][] = [];
    const look = (name: string) =>
      store.write(async (tx) => {
        seen.push([name, tx.readsCommittedOnly]);
      });
    await Promise.all([
      look('first of its group'),
      store
        .write(async (tx) => {
          await insert(tx, 1);
          throw new Error('rolled back to its savepoint: leaves nothing');
        })
        .catch(() => undefined),
      look('after a unit that left nothing'),
      store.write(async (tx) => {
        await insert(tx, 2);
      }),
      look('after a unit that wrote'),
    ]);
    await look('first of the next group');
    expect(seen).toEqual([
      ['first of its group', true],
      ['after a unit that left nothing', true],
      ['after a unit that wrote', false],
      ['first of the next group', true],
    ]);
  });

  it('a failed unit leaves nothing written while its neighbours in the same group commit', async () => {
    const seen: Record<string, number[]> = {};
    const a = store.write(async (tx) => {
      await insert(tx, 1);
      return 'a';
    });
    const b = store.write(async (tx) => {
      await insert(tx, 2);
      await count(tx);
      throw new Error('b fails after writing');
    });
    const c = store.write(async (tx) => {
      await insert(tx, 3);
      return 'c';
    });
    // What an HTTP answer would be sent on: each outcome is released only after the COMMIT.
    const results = await Promise.allSettled([
      a.then((v) => {
        seen.a = committedIds();
        return v;
      }),
      b,
      c.then((v) => {
        seen.c = committedIds();
        return v;
      }),
    ]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: 'a' });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { message: 'b fails after writing' } });
    expect(results[2]).toEqual({ status: 'fulfilled', value: 'c' });
    expect(committedIds()).toEqual([1, 3]);
    // One group, one COMMIT, and nothing was answered for before it.
    expect(commits).toBe(1);
    expect(seen).toEqual({ a: [1, 3], c: [1, 3] });
  });

  it('a unit that awaits something other than the store is ended loudly and rolled back', async () => {
    let late: unknown;
    const a = store.write(async (tx) => {
      await insert(tx, 1);
    });
    const slow = store.write(async (tx) => {
      await insert(tx, 2);
      await new Promise((r) => setTimeout(r, 20)); // not the store: a bug
      late = await insert(tx, 22).catch((err: unknown) => err);
    });
    const c = store.write(async (tx) => {
      await insert(tx, 3);
    });
    await expect(slow).rejects.toBeInstanceOf(UnitOfWorkError);
    await Promise.all([a, c]);
    expect(committedIds()).toEqual([1, 3]);
    expect(stuck).toHaveLength(1);
    expect(stuck[0]!.message).toMatch(/awaited something other than the store/);
    // When it wakes up, its handle refuses to touch anyone else's transaction.
    await new Promise((r) => setTimeout(r, 40));
    expect(late).toBeInstanceOf(UnitOfWorkError);
    expect(committedIds()).toEqual([1, 3]);
  });

  it('attempt rolls back its own part only; the unit goes on and commits', async () => {
    await store.write(async (tx) => {
      await insert(tx, 1);
      await expect(
        tx.attempt(async () => {
          await insert(tx, 2);
          throw new Error('part fails');
        }),
      ).rejects.toThrow('part fails');
      await tx.attempt(async () => {
        await insert(tx, 3);
      });
    });
    expect(committedIds()).toEqual([1, 3]);
  });

  it('a read unit cannot write, and a handle kept past its unit refuses to work', async () => {
    await expect(store.read(async (tx) => insert(tx, 1))).rejects.toThrow(/read unit cannot write/);
    let kept: Tx | undefined;
    await store.write(async (tx) => {
      kept = tx;
    });
    await expect(insert(kept!, 5)).rejects.toThrow(/has ended/);
    expect(committedIds()).toEqual([]);
  });

  it('a read that ran inside an open group resolves only after that group committed', async () => {
    const w = store.write(async (tx) => {
      await insert(tx, 7);
    });
    let readDone = false;
    const r = store.read(count).then((n) => {
      readDone = true;
      return { n, committed: committedIds() };
    });
    await Promise.resolve();
    expect(readDone).toBe(false);
    expect(await r).toEqual({ n: 1, committed: [7] });
    await w;
  });

  it('units asked for in later turns form later groups', async () => {
    await store.write(async (tx) => {
      await insert(tx, 1);
    });
    await turn();
    await store.write(async (tx) => {
      await insert(tx, 2);
    });
    expect(commits).toBe(2);
    expect(committedIds()).toEqual([1, 2]);
  });
});
