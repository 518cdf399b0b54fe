import type { Statement } from 'better-sqlite3';
import { BranchPageCache } from '../sql/brands-repo.js';
import type { Query } from '../sql/query.js';
import { SqlUnit } from '../sql/unit.js';
import type { Db } from './db.js';
import { sql } from './statements.js';
import type { Unit } from './unit-of-work.js';

/** What every unit of one store shares: caches only this process can keep true. */
export class SqliteShared {
  readonly branchPages = new BranchPageCache();

  /** A group rolled back: anything cached from what it had written is gone with it. */
  clear(): void {
    this.branchPages.clear();
  }
}

/**
 * One unit's handle on the connection. Repositories reach SQL only through the Sql seam below,
 * which checks that this unit is the one running (and may write): a handle kept past its unit,
 * or a write from a read unit, fails instead of touching someone else's transaction.
 */
export class SqliteTx extends SqlUnit {
  readonly dialect = 'sqlite';

  constructor(
    readonly db: Db,
    readonly unit: Unit,
    shared: SqliteShared,
  ) {
    super();
    this.branchPages = shared.branchPages;
  }

  get readsCommittedOnly(): boolean {
    return this.unit.readsCommittedOnly;
  }

  get writing(): boolean {
    return this.unit.mode === 'write';
  }

  /** The query's statement on this connection, kept on the query (one connection per process). */
  private prepared(query: Query, write: boolean): Statement {
    this.unit.check(write);
    if (write) {
      this.unit.wrote = true;
      if (!query.quiet) this.unit.wakes = true;
    }
    if (query.cachedOn === this.db) return query.cached as Statement;
    const s = sql(this.db, query.sqlite);
    query.cached = s;
    query.cachedOn = this.db;
    return s;
  }

  /** The same, returning only the first column (a statement of its own: pluck() is a mode of it). */
  private plucked(query: Query): Statement {
    this.unit.check(false);
    const q = query as Query & { pluckedOn?: Db; plucked?: Statement };
    if (q.pluckedOn === this.db) return q.plucked!;
    q.plucked = this.db.prepare(query.sqlite).pluck();
    q.pluckedOn = this.db;
    return q.plucked;
  }

  // The Sql seam (store/sql/query.ts). better-sqlite3 is synchronous: each answer is a settled
  // promise, and an error a rejected one, as on PostgreSQL.
  all<T>(query: Query, args: readonly unknown[] = []): Promise<T[]> {
    try {
      return Promise.resolve(this.prepared(query, false).all(...args) as T[]);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  get<T>(query: Query, args: readonly unknown[] = []): Promise<T | undefined> {
    try {
      return Promise.resolve(this.prepared(query, false).get(...args) as T | undefined);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  column<T>(query: Query, args: readonly unknown[] = []): Promise<T[]> {
    try {
      return Promise.resolve(this.plucked(query).all(...args) as T[]);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  value<T>(query: Query, args: readonly unknown[] = []): Promise<T | undefined> {
    try {
      return Promise.resolve(this.plucked(query).get(...args) as T | undefined);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  run(query: Query, args: readonly unknown[] = []): Promise<number> {
    try {
      return Promise.resolve(this.prepared(query, true).run(...args).changes);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  write<T>(query: Query, args: readonly unknown[] = []): Promise<T[]> {
    try {
      return Promise.resolve(this.prepared(query, true).all(...args) as T[]);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  list(values: readonly (number | string)[]): string {
    return JSON.stringify(values);
  }

  async attempt<T>(fn: () => Promise<T>): Promise<T> {
    if (this.unit.mode === 'read') return fn();
    this.unit.check(true);
    sql(this.db, 'SAVEPOINT part').run();
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      // A unit ended meanwhile has been rolled back whole already.
      if (this.unit.state === 'running') {
        sql(this.db, 'ROLLBACK TO part').run();
        sql(this.db, 'RELEASE part').run();
      }
      throw err;
    }
    this.unit.check(true);
    sql(this.db, 'RELEASE part').run();
    return value;
  }
}
