import type { Store, UnitFn } from '../store.js';
import type { Db } from './db.js';
import { MemoryClaims } from './idempotency-repo.js';
import { MemoryRateLimits } from './rate-limits-repo.js';
import { BranchPageCache } from '../sql/brands-repo.js';
import { SqliteTx } from './tx.js';
import { UnitQueue, type UnitQueueOptions } from './unit-of-work.js';

/** The embedded backend: one better-sqlite3 connection, units queued on it, group commit per turn. */
export class SqliteStore implements Store {
  readonly claims: MemoryClaims;
  readonly rateLimits = new MemoryRateLimits();
  readonly units: UnitQueue;
  private readonly branchPages = new BranchPageCache();

  constructor(
    /** The connection itself, for tests and tools only: the server goes through units. */
    readonly db: Db,
    opts: UnitQueueOptions = {},
  ) {
    this.claims = new MemoryClaims(db);
    this.units = new UnitQueue(db, opts);
    // A group rolled back: anything cached from what it had written is gone with it.
    this.units.onRollback(() => this.branchPages.clear());
  }

  read<T>(fn: UnitFn<T>): Promise<T> {
    return this.units.run('read', (unit) => fn(new SqliteTx(this.db, unit, this.branchPages)));
  }

  write<T>(fn: UnitFn<T>): Promise<T> {
    return this.units.run('write', (unit) => fn(new SqliteTx(this.db, unit, this.branchPages)));
  }

  onCommit(fn: () => void): () => void {
    return this.units.onCommit(fn);
  }

  async close(): Promise<void> {
    await this.units.close();
    this.db.close();
  }
}
