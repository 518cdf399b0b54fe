import type { Statement } from 'better-sqlite3';
import type { TenantTx, Tx } from '../store.js';
import type { Db } from './db.js';
import { SqliteBusinesses, SqliteCredentials } from './credentials-repo.js';
import { SqliteIdempotencyAnswers } from './idempotency-repo.js';
import { sql } from './statements.js';
import type { Unit } from './unit-of-work.js';

/**
 * One unit's handle on the connection. Repositories reach SQL only through `select` and `change`,
 * which check that this unit is the one running (and may write): a handle kept past its unit,
 * or a write from a read unit, fails instead of touching someone else's transaction.
 */
export class SqliteTx implements Tx {
  private answers?: SqliteIdempotencyAnswers;
  private businessesRepo?: SqliteBusinesses;
  private credentialsRepo?: SqliteCredentials;

  constructor(
    readonly db: Db,
    readonly unit: Unit,
  ) {}

  /** A cached statement that reads. */
  select(text: string): Statement {
    this.unit.check(false);
    return sql(this.db, text);
  }

  /** A cached statement that writes (only in a write unit). */
  change(text: string): Statement {
    this.unit.check(true);
    return sql(this.db, text);
  }

  async attempt<T>(fn: () => Promise<T>): Promise<T> {
    if (this.unit.mode === 'read') return fn();
    this.unit.check(true);
    this.db.exec('SAVEPOINT part');
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      // A unit ended meanwhile has been rolled back whole already.
      if (this.unit.state === 'running') this.db.exec('ROLLBACK TO part; RELEASE part');
      throw err;
    }
    this.unit.check(true);
    this.db.exec('RELEASE part');
    return value;
  }

  tenant(businessId: number): TenantTx {
    return new SqliteTenantTx(this, businessId);
  }

  get idempotency(): SqliteIdempotencyAnswers {
    this.answers ??= new SqliteIdempotencyAnswers(this);
    return this.answers;
  }

  get businesses(): SqliteBusinesses {
    this.businessesRepo ??= new SqliteBusinesses(this);
    return this.businessesRepo;
  }

  get credentials(): SqliteCredentials {
    this.credentialsRepo ??= new SqliteCredentials(this);
    return this.credentialsRepo;
  }
}

export class SqliteTenantTx implements TenantTx {
  constructor(
    readonly tx: SqliteTx,
    readonly businessId: number,
  ) {}
}
