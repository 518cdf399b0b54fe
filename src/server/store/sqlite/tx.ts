import type { Statement } from 'better-sqlite3';
import type { BusinessRow } from '../credentials-repo.js';
import type { TenantTx, Tx } from '../store.js';
import type { Db } from './db.js';
import { SqlDeliveries } from '../sql/deliveries-repo.js';
import { BranchPageCache, SqlBranches, SqlBrands } from '../sql/brands-repo.js';
import { SqlPriceGroups } from '../sql/catalog-repo.js';
import { SqlBusinesses, SqlCredentials } from '../sql/credentials-repo.js';
import { SqlAnyOrders, SqlOrders } from '../sql/orders-repo.js';
import { SqlIdempotencyAnswers } from '../sql/idempotency-repo.js';
import { SqlMenuLinks } from '../sql/menus/links-repo.js';
import { SqlMenuCatalogue } from '../sql/menus/catalogue-repo.js';
import { SqlMenuLayers } from '../sql/menus/layers-repo.js';
import { SqlStock } from '../sql/stock-repo.js';
import { SqlOutbox, SqlTenantOutbox } from '../sql/outbox-repo.js';
import type { Query, Sql } from '../sql/query.js';
import { SqlTenantWebhooks, SqlWebhookSecrets, SqlWebhooks } from '../sql/webhooks-repo.js';
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
export class SqliteTx implements Tx, Sql {
  readonly dialect = 'sqlite';
  // Repositories are made on first use and kept for the unit (the hot read path makes two objects).
  private lastTenant?: SqliteTenantTx;
  private _idempotency?: SqlIdempotencyAnswers;
  private _businesses?: SqlBusinesses;
  private _credentials?: SqlCredentials;
  private _orders?: SqlAnyOrders;
  private _outbox?: SqlOutbox;
  private _webhooks?: SqlWebhooks;
  private _webhookSecrets?: SqlWebhookSecrets;
  private _deliveries?: SqlDeliveries;
  /** Outbox events this unit wrote (Sql.unitEvents). */
  readonly unitEvents = new Map<string, { seq: number; payload: string }>();

  constructor(
    readonly db: Db,
    readonly unit: Unit,
    readonly shared: SqliteShared,
  ) {}

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

  tenant(businessId: number): SqliteTenantTx {
    const last = this.lastTenant;
    if (last?.businessId === businessId) return last;
    this.lastTenant = new SqliteTenantTx(this, businessId);
    return this.lastTenant;
  }

  get idempotency(): SqlIdempotencyAnswers {
    this._idempotency ??= new SqlIdempotencyAnswers(this);
    return this._idempotency;
  }

  get businesses(): SqlBusinesses {
    this._businesses ??= new SqlBusinesses(this);
    return this._businesses;
  }

  get credentials(): SqlCredentials {
    this._credentials ??= new SqlCredentials(this);
    return this._credentials;
  }

  get orders(): SqlAnyOrders {
    this._orders ??= new SqlAnyOrders(this);
    return this._orders;
  }

  get outbox(): SqlOutbox {
    this._outbox ??= new SqlOutbox(this);
    return this._outbox;
  }

  get webhooks(): SqlWebhooks {
    this._webhooks ??= new SqlWebhooks(this);
    return this._webhooks;
  }

  get webhookSecrets(): SqlWebhookSecrets {
    this._webhookSecrets ??= new SqlWebhookSecrets(this);
    return this._webhookSecrets;
  }

  get deliveries(): SqlDeliveries {
    this._deliveries ??= new SqlDeliveries(this);
    return this._deliveries;
  }
}

/** One business's view of a unit: every repository here is built around its business id. */
class SqliteTenantTx implements TenantTx {
  private _brands?: SqlBrands;
  private _branches?: SqlBranches;
  private _priceGroups?: SqlPriceGroups;
  private _orders?: SqlOrders;
  private _outbox?: SqlTenantOutbox;
  private _menus?: SqlMenuCatalogue;
  private _links?: SqlMenuLinks;
  private _layers?: SqlMenuLayers;
  private _stock?: SqlStock;
  private _webhooks?: SqlTenantWebhooks;

  constructor(
    readonly tx: SqliteTx,
    readonly businessId: number,
  ) {}

  async business(): Promise<BusinessRow> {
    const b = await this.tx.businesses.get(this.businessId);
    if (!b) throw new Error(`business ${this.businessId} does not exist`);
    return b;
  }

  get brands(): SqlBrands {
    this._brands ??= new SqlBrands(this.tx, this.businessId);
    return this._brands;
  }

  get branches(): SqlBranches {
    this._branches ??= new SqlBranches(this.tx, this.businessId, this.tx.shared.branchPages);
    return this._branches;
  }

  get priceGroups(): SqlPriceGroups {
    this._priceGroups ??= new SqlPriceGroups(this.tx, this.businessId);
    return this._priceGroups;
  }

  get orders(): SqlOrders {
    this._orders ??= new SqlOrders(this.tx, this.businessId);
    return this._orders;
  }

  get outbox(): SqlTenantOutbox {
    this._outbox ??= new SqlTenantOutbox(this.tx, this.businessId);
    return this._outbox;
  }

  get menus(): SqlMenuCatalogue {
    this._menus ??= new SqlMenuCatalogue(this.tx, this.businessId);
    return this._menus;
  }

  get links(): SqlMenuLinks {
    this._links ??= new SqlMenuLinks(this.tx, this.businessId);
    return this._links;
  }

  get layers(): SqlMenuLayers {
    this._layers ??= new SqlMenuLayers(this.tx, this.businessId);
    return this._layers;
  }

  get stock(): SqlStock {
    this._stock ??= new SqlStock(this.tx, this.businessId);
    return this._stock;
  }

  get webhooks(): SqlTenantWebhooks {
    this._webhooks ??= new SqlTenantWebhooks(this.tx, this.businessId);
    return this._webhooks;
  }
}
