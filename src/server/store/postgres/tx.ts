import type { PoolClient, QueryConfig } from 'pg';
import type { BusinessRow } from '../credentials-repo.js';
import { SqlBranches, SqlBrands } from '../sql/brands-repo.js';
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
import type { TenantTx, Tx } from '../store.js';
import { SqlDeliveries } from '../sql/deliveries-repo.js';
import { purgeLapsedClaims } from './idempotency-repo.js';

/** A unit used past its end, or a write from a read unit: a bug in the caller, said loudly. */
export class PgUnitError extends Error {
  override name = 'PgUnitError';
}

/** `peek`: one read statement outside any transaction (PgStore.peek). */
export type PgUnitMode = 'read' | 'write' | 'peek';

/**
 * Thrown by a unit run on the cheap path when it needs what that path skipped (a read unit's
 * second statement, a failed attempt() that wrote without a savepoint): the store runs the unit
 * again from the start, on the full path. A unit awaits nothing but the store, so running it
 * again has no other effect (the same premise as retrying a deadlock).
 */
export class PgRestart extends Error {
  override name = 'PgRestart';
}

/** First statements of read units that went on to run more (see PgTx.query). */
const multiStatement = new Set<string>();

/** What every unit of one store shares (its settings). */
export interface PgShared {
  /** Concurrent deliveries to one URL across every instance. */
  deliveryPerUrl: number;
}

// Statement names per SQL text: node-postgres prepares a named statement once per connection and
// then only binds and executes it, so the repositories' fixed SQL is parsed and planned once.
const names = new Map<string, string>();
function nameOf(text: string): string {
  let n = names.get(text);
  if (n === undefined) {
    n = `p${names.size}`;
    names.set(text, n);
  }
  return n;
}

/**
 * One unit's handle on its pooled connection, inside BEGIN … COMMIT (store.ts). Repositories reach
 * SQL only through `rows`, `row` and `exec`, which check that the unit is still running (and may
 * write): a handle kept past its unit fails instead of touching whatever the connection does next.
 */
export class PgTx implements Tx, Sql {
  readonly dialect = 'postgres';
  state: 'running' | 'done' = 'running';
  /** Whether a statement that writes ran (commit hooks fire only for units that wrote). */
  wrote = false;
  /**
   * Each unit is its own transaction (READ COMMITTED for writes, a snapshot for reads): it never
   * sees another unit's uncommitted writes.
   */
  readonly readsCommittedOnly = true;
  private savepoints = 0;
  private lastTenant?: PgTenantTx;
  private _idempotency?: SqlIdempotencyAnswers;
  private _businesses?: SqlBusinesses;
  private _credentials?: SqlCredentials;
  private _orders?: SqlAnyOrders;
  private _outbox?: SqlOutbox;
  private _webhooks?: SqlWebhooks;
  private _webhookSecrets?: SqlWebhookSecrets;
  private _deliveries?: SqlDeliveries;

  /**
   * Whether this read unit's transaction has begun. A read unit begins lazily (see `query`); a
   * write unit begins before its function runs.
   */
  begun: boolean;
  /** Statements that wrote so far (attempt() rolls back without a savepoint only if none did). */
  private writes = 0;
  /** Round trips to PostgreSQL, told to the store (PgStore.stats). */
  roundTrips = 0;

  constructor(
    readonly client: PoolClient,
    readonly mode: PgUnitMode,
    readonly shared: PgShared = { deliveryPerUrl: 4 },
    /**
     * The full path: a read unit begins its transaction before its first statement, attempt()
     * takes a savepoint. Set when the store runs a unit again after a PgRestart.
     */
    readonly full = false,
  ) {
    this.begun = mode === 'write';
  }

  private statements = 0;

  private check(write: boolean): void {
    if (this.state !== 'running')
      throw new PgUnitError('this unit of work has ended: its store can no longer be used');
    if (this.restart) throw this.restart;
    if (write && this.mode !== 'write') throw new PgUnitError('a read unit cannot write');
    // A statement sees one snapshot by itself; a second would see another.
    if (this.mode === 'peek' && this.statements > 0)
      throw new PgUnitError('a peek runs one statement: use a read unit for more');
  }

  /**
   * A read unit whose function runs one statement needs no transaction: one statement sees one
   * snapshot by itself, so it runs alone (one round trip where BEGIN … COMMIT takes three). A
   * second statement must see the first one's snapshot, which a transaction begun now would not:
   * the unit restarts on the full path, and its first statement's text is remembered so that
   * later units starting with it begin their transaction at once instead of restarting.
   */
  private async query(text: string, values: readonly unknown[] | undefined) {
    const first = this.statements++ === 0;
    if (this.mode === 'read' && !this.begun) {
      if (this.beginning) await this.beginning;
      else if (!first) {
        multiStatement.add(this.firstText!);
        throw this.restartOn('a read unit ran a second statement: it needs a transaction');
      } else {
        this.firstText = text;
        if (this.full || multiStatement.has(text)) {
          this.beginning = this.begin();
          await this.beginning;
        }
      }
    }
    const q: QueryConfig = { name: nameOf(text), text, values: values as unknown[] };
    this.roundTrips++;
    return this.client.query(q);
  }

  private async begin(): Promise<void> {
    this.roundTrips++;
    await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    this.begun = true;
  }

  private beginning?: Promise<void>;

  /**
   * Set once the unit must run again on the full path. The store checks it however `fn` ended,
   * so a caller that catches the PgRestart and goes on still never commits this run.
   */
  restart?: PgRestart;

  private restartOn(why: string): PgRestart {
    this.restart ??= new PgRestart(why);
    return this.restart;
  }

  /** Resolves once a BEGIN under way has returned (whether it succeeded or not). */
  async settled(): Promise<void> {
    await this.beginning?.catch(() => undefined);
  }
  private firstText?: string;

  /** Rows of a query run in this unit's transaction ($1… placeholders). */
  async rows<T>(text: string, values?: readonly unknown[]): Promise<T[]> {
    this.check(false);
    return (await this.query(text, values)).rows as T[];
  }

  /** The first row, or undefined. */
  async row<T>(text: string, values?: readonly unknown[]): Promise<T | undefined> {
    this.check(false);
    return (await this.query(text, values)).rows[0] as T | undefined;
  }

  /** Runs a statement that writes; resolves to the affected row count. */
  async exec(text: string, values?: readonly unknown[]): Promise<number> {
    this.check(true);
    this.wrote = true;
    this.writes++;
    return (await this.query(text, values)).rowCount ?? 0;
  }

  /** Like `rows`, for a statement that writes (`INSERT … RETURNING`, `UPDATE … RETURNING`). */
  async change<T>(text: string, values?: readonly unknown[]): Promise<T[]> {
    this.check(true);
    this.wrote = true;
    this.writes++;
    return (await this.query(text, values)).rows as T[];
  }

  // The Sql seam (store/sql/query.ts).
  get writing(): boolean {
    return this.mode === 'write';
  }

  all<T>(query: Query, args?: readonly unknown[]): Promise<T[]> {
    return this.rows<T>(query.postgres, args);
  }

  get<T>(query: Query, args?: readonly unknown[]): Promise<T | undefined> {
    return this.row<T>(query.postgres, args);
  }

  async column<T>(query: Query, args?: readonly unknown[]): Promise<T[]> {
    this.check(false);
    const r = await this.query(query.postgres, args);
    const f = r.fields[0]?.name;
    return f === undefined ? [] : r.rows.map((row) => (row as Record<string, T>)[f]!);
  }

  async value<T>(query: Query, args?: readonly unknown[]): Promise<T | undefined> {
    this.check(false);
    const r = await this.query(query.postgres, args);
    const f = r.fields[0]?.name;
    return f === undefined || r.rows.length === 0 ? undefined : (r.rows[0] as Record<string, T>)[f];
  }

  run(query: Query, args?: readonly unknown[]): Promise<number> {
    return this.exec(query.postgres, args);
  }

  write<T>(query: Query, args?: readonly unknown[]): Promise<T[]> {
    return this.change<T>(query.postgres, args);
  }

  list(values: readonly (number | string)[]): readonly (number | string)[] {
    return values;
  }

  /**
   * Runs `fn` so that its writes can be rolled back alone when it throws. Most attempts either
   * succeed or fail before writing (a 404, a refused transition), so no savepoint is taken at
   * first (SAVEPOINT and RELEASE are two round trips): when `fn` throws after it wrote, the unit
   * restarts on the full path, where each attempt has its savepoint. An error of PostgreSQL
   * itself aborts the whole transaction either way and is passed on as it is.
   */
  async attempt<T>(fn: () => Promise<T>): Promise<T> {
    if (this.mode !== 'write') return fn();
    this.check(true);
    if (!this.full) {
      const before = this.writes;
      try {
        return await fn();
      } catch (err) {
        if (this.writes !== before && this.state === 'running' && !isDatabaseError(err))
          throw this.restartOn('a failed attempt wrote: it needs a savepoint');
        throw err;
      }
    }
    const name = `part${++this.savepoints}`;
    this.roundTrips++;
    await this.client.query(`SAVEPOINT ${name}`);
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      if (this.state === 'running') await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    }
    this.check(true);
    this.roundTrips++;
    await this.client.query(`RELEASE SAVEPOINT ${name}`);
    return value;
  }

  tenant(businessId: number): PgTenantTx {
    const last = this.lastTenant;
    if (last?.businessId === businessId) return last;
    this.lastTenant = new PgTenantTx(this, businessId);
    return this.lastTenant;
  }

  get idempotency(): SqlIdempotencyAnswers {
    this._idempotency ??= new SqlIdempotencyAnswers(this, purgeLapsedClaims);
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
    this._deliveries ??= new SqlDeliveries(this, this.shared.deliveryPerUrl);
    return this._deliveries;
  }
}

/** An error PostgreSQL raised (it carries a SQLSTATE): the transaction is aborted by it. */
function isDatabaseError(err: unknown): boolean {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string' && 'severity' in err;
}

/** The advisory-lock class of "a brand's menu layers" ('menu' in ASCII); the brand id is the object. */
const LAYERS_LOCK = 0x6d656e75;
/** The advisory-lock class of "a SKU of a brand" ('sku ' in ASCII). */
const SKU_LOCK = 0x736b7520;
/** The advisory-lock class of "a branch's item states" ('stat' in ASCII); the branch id is the object. */
const STATE_LOCK = 0x73746174;

/** One business's view of a unit: every repository here is built around its business id. */
export class PgTenantTx implements TenantTx {
  private _brands?: SqlBrands;
  private _branches?: SqlBranches;
  private _priceGroups?: SqlPriceGroups;
  private _menus?: SqlMenuCatalogue;
  private _links?: SqlMenuLinks;
  private _layers?: SqlMenuLayers;
  private _stock?: SqlStock;
  private _orders?: SqlOrders;
  private _outbox?: SqlTenantOutbox;
  private _webhooks?: SqlTenantWebhooks;

  constructor(
    readonly tx: PgTx,
    readonly businessId: number,
  ) {}

  /** Brands whose layers this unit has locked (a transaction-scoped lock is taken once). */
  private readonly layersLocked = new Set<number>();

  /**
   * Sync, publish, store-level edits and enable toggles all read a store layer, change it (or
   * build snapshots and the next version from it) and write back: under READ COMMITTED two
   * instances doing that for one brand at once would each work from what the other has not
   * committed yet (a publish shipping a layer a concurrent sync has just replaced, under a newer
   * version). So the first layer read of a unit takes a transaction-scoped advisory lock on the
   * brand, which makes those units run one after the other, as SQLite's single writer does.
   * Advisory rather than `SELECT … FOR UPDATE` on the layer rows: the first sync of a branch has
   * no row to lock yet, and one lock per brand cannot deadlock two publishes that name the
   * brand's branches in different orders. The lock is its own statement, so the read after it
   * sees whatever the unit that held it committed. A savepoint rolled back releases the locks
   * taken inside it; this relies on nothing reading a layer again after a failed `attempt()` in
   * the same unit (the request's handler is the whole attempt, and what follows it only stores
   * the answer).
   */
  private async lockBrandLayers(brandId: number): Promise<void> {
    if (this.layersLocked.has(brandId)) return;
    await this.tx.exec('SELECT pg_advisory_xact_lock($1::int, ($2::bigint % 2147483648)::int)', [
      LAYERS_LOCK,
      brandId,
    ]);
    this.layersLocked.add(brandId);
  }

  /**
   * In a write unit a SKU is locked before it is looked up (until the unit ends): the caller
   * checks that no other item has it and then writes, and two instances doing that at once for
   * one SKU would both pass the check; the second would then hit the unique index (a 500) where
   * SQLite's single writer gives the caller's own "already uses" answer. The lock is its own
   * statement, so the look after it sees what the unit that held it committed.
   */
  private async lockSku(brandId: number, sku: string): Promise<void> {
    await this.tx.exec('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [
      SKU_LOCK,
      `${brandId}:${sku}`,
    ]);
  }

  /** Branches whose item states this unit has locked (see lockBrandLayers on savepoints). */
  private readonly statesLocked = new Set<number>();

  /**
   * A write unit's first state read of a branch takes a transaction-scoped advisory lock on it
   * (its own statement, so the read after it sees what the holder committed): two instances
   * changing one branch's items then take turns, as SQLite's single writer does, instead of each
   * starting from what the other had not committed yet (a lost change, a "went out" counted twice).
   */
  private async lockBranchStates(branchId: number): Promise<void> {
    if (this.statesLocked.has(branchId)) return;
    await this.tx.exec('SELECT pg_advisory_xact_lock($1::int, ($2::bigint % 2147483648)::int)', [
      STATE_LOCK,
      branchId,
    ]);
    this.statesLocked.add(branchId);
  }

  async business(): Promise<BusinessRow> {
    const b = await this.tx.row<BusinessRow>(
      'SELECT id, title, address, logo, created_at FROM businesses WHERE id = $1',
      [this.businessId],
    );
    if (!b) throw new Error(`business ${this.businessId} does not exist`);
    return b;
  }

  get brands(): SqlBrands {
    this._brands ??= new SqlBrands(this.tx, this.businessId);
    return this._brands;
  }

  get branches(): SqlBranches {
    this._branches ??= new SqlBranches(this.tx, this.businessId);
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
    this._menus ??= new SqlMenuCatalogue(this.tx, this.businessId, (brandId, sku) =>
      this.lockSku(brandId, sku),
    );
    return this._menus;
  }

  get links(): SqlMenuLinks {
    this._links ??= new SqlMenuLinks(this.tx, this.businessId);
    return this._links;
  }

  get layers(): SqlMenuLayers {
    this._layers ??= new SqlMenuLayers(this.tx, this.businessId, (brandId) => this.lockBrandLayers(brandId));
    return this._layers;
  }

  get stock(): SqlStock {
    this._stock ??= new SqlStock(this.tx, this.businessId, (branchId) => this.lockBranchStates(branchId));
    return this._stock;
  }

  get webhooks(): SqlTenantWebhooks {
    this._webhooks ??= new SqlTenantWebhooks(this.tx, this.businessId);
    return this._webhooks;
  }
}
