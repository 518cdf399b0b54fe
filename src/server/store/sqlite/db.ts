import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export interface OpenOptions {
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
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

export function migrate(db: Db): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `database schema v${current} is newer than this partner (v${MIGRATIONS.length}); upgrade partner`,
    );
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    // An empty entry is a slot reserved for work in progress: stop there so the slot can
    // still be filled in without leaving databases that skipped it.
    if (!MIGRATIONS[v]!.trim()) return v;
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return MIGRATIONS.length;
}
