import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb } from './db.js';
import { SqliteStore } from './store.js';

let dir: string;
let store: SqliteStore;
let errors: Error[];

// Enough to pass the small limit below with a few units: each business row carries 20 KB.
const write = (n: number) =>
  store.write((tx) => tx.businesses.create({ title: `b${n}`, address: 'x'.repeat(20_000), logo: '' }, 0));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'partner-ckpt-'));
  errors = [];
  // Made (its schema written) and closed first: closing checkpoints, so the store starts on an empty WAL.
  openDb(join(dir, 'partner.db')).close();
  store = new SqliteStore(openDb(join(dir, 'partner.db')), {
    checkpointBytes: 256 * 1024,
    onCheckpointError: (e) => errors.push(e),
  });
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('WAL checkpoints', () => {
  it('the server connection never checkpoints itself', () => {
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
  });

  it('reads and small writes start nothing; the commit that passes the limit starts a checkpoint in a worker', async () => {
    await store.read((tx) => tx.businesses.list());
    await store.write((tx) => tx.businesses.create({ title: 'small', address: '', logo: '' }, 0));
    expect(store.checkpointer.running).toBe(false);
    for (let i = 0; i < 20; i++) await write(i);
    expect(store.checkpointer.running).toBe(true);
    // Join the checkpoint that commit asked for (or run one) and wait for it.
    await store.checkpointer.checkpoint();
    const r = store.checkpointer.last;
    expect(errors).toEqual([]);
    expect(r?.threadId).toBeGreaterThan(0); // not the main thread's 0
    expect(r?.log).toBeGreaterThan(0);
    expect(r?.checkpointed).toBe(r?.log);
    // Every frame is in the file: a write starts the WAL over and cuts the file back.
    await write(99);
    expect(statSync(join(dir, 'partner.db-wal')).size).toBeLessThan(256 * 1024);
    expect(store.db.prepare('SELECT count(*) FROM businesses').pluck().get()).toBe(22);
  });

  it('frames written while the worker copied are copied by the connection after, and the WAL starts over', async () => {
    for (let i = 0; i < 20; i++) await write(i);
    await store.checkpointer.checkpoint();
    // A reader on an older snapshot: the worker's next copy must stop short of the frames after it,
    // which is what frames written during a copy leave behind.
    const reader = new Database(join(dir, 'partner.db'));
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM businesses').get();
    for (let i = 20; i < 40; i++) await write(i);
    await store.checkpointer.checkpoint();
    const byWorker = store.checkpointer.last!;
    expect(byWorker.threadId).toBeGreaterThan(0);
    expect(byWorker.checkpointed).toBeLessThan(byWorker.log);
    reader.exec('COMMIT');
    reader.close();
    // The next commit copies the rest on the server's connection, between groups...
    await write(40);
    const tail = store.checkpointer.last!;
    expect(tail.threadId).toBe(0);
    expect(tail.checkpointed).toBe(tail.log);
    // ...so the write after it starts the WAL over, and the file is cut back below the limit.
    await write(41);
    expect(statSync(join(dir, 'partner.db-wal')).size).toBeLessThan(256 * 1024);
  });

  it('a worker that cannot run hands checkpoints back to the connection, and says so', async () => {
    const broken = new SqliteStore(openDb(join(dir, 'broken.db')), {
      checkpointBytes: 1,
      onCheckpointError: (e) => errors.push(e),
    });
    // The worker's connection needs the file: take it away under it.
    rmSync(join(dir, 'broken.db'));
    await broken.write((tx) => tx.businesses.create({ title: 'a', address: '', logo: '' }, 0));
    await broken.checkpointer.checkpoint();
    expect(errors.map((e) => e.message).join()).toMatch(/checkpoint/);
    expect(broken.db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    await broken.close();
  });
});
