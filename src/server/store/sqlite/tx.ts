import type { Statement } from 'better-sqlite3';
import type { BranchPageCache } from '../sql/brands-repo.js';
import { type Query, q } from '../sql/query.js';
import { SqlUnit } from '../sql/unit.js';
import { type Db, prepared } from './db.js';
import type { Unit } from './unit-of-work.js';

const PART = {
  savepoint: q('SAVEPOINT part'),
  rollbackTo: q('ROLLBACK TO part'),
  release: q('RELEASE part'),
};

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
    branchPages: BranchPageCache,
  ) {
    super();
    this.branchPages = branchPages;
  }

  get readsCommittedOnly(): boolean {
    return this.unit.readsCommittedOnly;
  }

  get writing(): boolean {
    return this.unit.mode === 'write';
  }

  private statement(query: Query, write: boolean): Statement {
    this.unit.check(write);
    if (write) {
      this.unit.wrote = true;
      if (!query.quiet) this.unit.wakes = true;
    }
    return prepared(this.db, query);
  }

  /** The query's first column only: a statement of its own (pluck() is a mode of it), kept likewise. */
  private plucked(query: Query): Statement {
    this.unit.check(false);
    const q = query as Query & { pluckedOn?: Db; plucked?: Statement };
    if (q.pluckedOn === this.db) return q.plucked!;
    q.plucked = this.db.prepare(query.sqlite).pluck();
    q.pluckedOn = this.db;
    return q.plucked;
  }

  // The Sql seam (store/sql/query.ts). better-sqlite3 is synchronous: each answer is a settled
  // promise, and an error a rejected one (async functions), as on PostgreSQL.
  async all<T>(query: Query, args: readonly unknown[] = []): Promise<T[]> {
    return this.statement(query, false).all(...args) as T[];
  }

  async get<T>(query: Query, args: readonly unknown[] = []): Promise<T | undefined> {
    return this.statement(query, false).get(...args) as T | undefined;
  }

  async column<T>(query: Query, args: readonly unknown[] = []): Promise<T[]> {
    return this.plucked(query).all(...args) as T[];
  }

  async value<T>(query: Query, args: readonly unknown[] = []): Promise<T | undefined> {
    return this.plucked(query).get(...args) as T | undefined;
  }

  async run(query: Query, args: readonly unknown[] = []): Promise<number> {
    return this.statement(query, true).run(...args).changes;
  }

  async write<T>(query: Query, args: readonly unknown[] = []): Promise<T[]> {
    return this.statement(query, true).all(...args) as T[];
  }

  list(values: readonly (number | string)[]): string {
    return JSON.stringify(values);
  }

  async attempt<T>(fn: () => Promise<T>): Promise<T> {
    if (this.unit.mode === 'read') return fn();
    this.unit.check(true);
    prepared(this.db, PART.savepoint).run();
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      // A unit ended meanwhile has been rolled back whole already.
      if (this.unit.state === 'running') {
        prepared(this.db, PART.rollbackTo).run();
        prepared(this.db, PART.release).run();
      }
      throw err;
    }
    this.unit.check(true);
    prepared(this.db, PART.release).run();
    return value;
  }
}
