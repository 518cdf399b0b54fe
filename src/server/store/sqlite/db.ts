import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database, { type Statement } from 'better-sqlite3';
import type { Query } from '../sql/query.js';
import { migrate } from './migrations.js';

export type Db = Database.Database;

/** The query's statement on `db`, prepared once and kept on the query (one connection per process). */
export function prepared(db: Db, query: Query): Statement {
  if (query.cachedOn !== db) {
    query.cached = db.prepare(query.sqlite);
    query.cachedOn = db;
  }
  return query.cached as Statement;
}

interface OpenOptions {
  /** `normal`: survives a process kill (WAL + synchronous=NORMAL); `full`: also power loss. */
  durability?: 'normal' | 'full';
}

export function openDb(file: string, opts: OpenOptions = {}): Db {
  // Secret hashes, sealed signing keys and customers' phone numbers live here: owner-only. SQLite
  // gives the -wal and -shm files the main file's mode.
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${opts.durability === 'full' ? 'FULL' : 'NORMAL'}`);
  // A checkpoint copies the WAL into the file and syncs both: with the default of every 1,000
  // pages it ran every few hundred group commits under load and was most of their time (the
  // sync, mostly waiting). Every 10,000 pages (~40 MB) syncs ten times less often and copies a
  // page written many times over once; the WAL file is cut back to 16 MB after each.
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma(`journal_size_limit = ${16 * 1024 * 1024}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}
