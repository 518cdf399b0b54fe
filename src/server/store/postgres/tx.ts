import type { PoolClient, QueryConfig } from 'pg';
import type { BusinessRow } from '../credentials-repo.js';
import type { TenantTx, Tx } from '../store.js';
import { PgBranches, PgBrands } from './brands-repo.js';
import { PgPriceGroups } from './catalog-repo.js';
import { PgBusinesses, PgCredentials } from './credentials-repo.js';
import { PgDeliveries } from './deliveries-repo.js';
import { PgIdempotencyAnswers } from './idempotency-repo.js';
import { PgMenuCatalogue } from './menus/catalogue-repo.js';
import { PgMenuLayers } from './menus/layers-repo.js';
import { PgMenuLinks } from './menus/links-repo.js';
import { PgAnyOrders, PgOrders } from './orders-repo.js';
import { PgOutbox, PgTenantOutbox } from './outbox-repo.js';
import { PgStock } from './stock-repo.js';
import { PgTenantWebhooks, PgWebhookSecrets, PgWebhooks } from './webhooks-repo.js';

/** A unit used past its end, or a write from a read unit: a bug in the caller, said loudly. */
export class PgUnitError extends Error {
  override name = 'PgUnitError';
}

/** `peek`: one read statement outside any transaction (PgStore.peek). */
export type PgUnitMode = 'read' | 'write' | 'peek';

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
export class PgTx implements Tx {
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
  private _idempotency?: PgIdempotencyAnswers;
  private _businesses?: PgBusinesses;
  private _credentials?: PgCredentials;
  private _orders?: PgAnyOrders;
  private _outbox?: PgOutbox;
  private _webhooks?: PgWebhooks;
  private _webhookSecrets?: PgWebhookSecrets;
  private _deliveries?: PgDeliveries;

  constructor(
    readonly client: PoolClient,
    readonly mode: PgUnitMode,
    readonly shared: PgShared = { deliveryPerUrl: 4 },
  ) {}

  private statements = 0;

  private check(write: boolean): void {
    if (this.state !== 'running')
      throw new PgUnitError('this unit of work has ended: its store can no longer be used');
    if (write && this.mode !== 'write') throw new PgUnitError('a read unit cannot write');
    // A statement sees one snapshot by itself; a second would see another.
    if (this.mode === 'peek' && this.statements++ > 0)
      throw new PgUnitError('a peek runs one statement: use a read unit for more');
  }

  private query(text: string, values: readonly unknown[] | undefined) {
    const q: QueryConfig = { name: nameOf(text), text, values: values as unknown[] };
    return this.client.query(q);
  }

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
    return (await this.query(text, values)).rowCount ?? 0;
  }

  /** Like `rows`, for a statement that writes (`INSERT … RETURNING`, `UPDATE … RETURNING`). */
  async change<T>(text: string, values?: readonly unknown[]): Promise<T[]> {
    this.check(true);
    this.wrote = true;
    return (await this.query(text, values)).rows as T[];
  }

  async attempt<T>(fn: () => Promise<T>): Promise<T> {
    if (this.mode !== 'write') return fn();
    this.check(true);
    const name = `part${++this.savepoints}`;
    await this.client.query(`SAVEPOINT ${name}`);
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      if (this.state === 'running') await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    }
    this.check(true);
    await this.client.query(`RELEASE SAVEPOINT ${name}`);
    return value;
  }

  tenant(businessId: number): PgTenantTx {
    const last = this.lastTenant;
    if (last?.businessId === businessId) return last;
    this.lastTenant = new PgTenantTx(this, businessId);
    return this.lastTenant;
  }

  get idempotency(): PgIdempotencyAnswers {
    this._idempotency ??= new PgIdempotencyAnswers(this);
    return this._idempotency;
  }

  get businesses(): PgBusinesses {
    this._businesses ??= new PgBusinesses(this);
    return this._businesses;
  }

  get credentials(): PgCredentials {
    this._credentials ??= new PgCredentials(this);
    return this._credentials;
  }

  get orders(): PgAnyOrders {
    this._orders ??= new PgAnyOrders(this);
    return this._orders;
  }

  get outbox(): PgOutbox {
    this._outbox ??= new PgOutbox(this);
    return this._outbox;
  }

  get webhooks(): PgWebhooks {
    this._webhooks ??= new PgWebhooks(this);
    return this._webhooks;
  }

  get webhookSecrets(): PgWebhookSecrets {
    this._webhookSecrets ??= new PgWebhookSecrets(this);
    return this._webhookSecrets;
  }

  get deliveries(): PgDeliveries {
    this._deliveries ??= new PgDeliveries(this, this.shared.deliveryPerUrl);
    return this._deliveries;
  }
}

/** One business's view of a unit: every repository here is built around its business id. */
export class PgTenantTx implements TenantTx {
  private _brands?: PgBrands;
  private _branches?: PgBranches;
  private _priceGroups?: PgPriceGroups;
  private _menus?: PgMenuCatalogue;
  private _links?: PgMenuLinks;
  private _layers?: PgMenuLayers;
  private _stock?: PgStock;
  private _orders?: PgOrders;
  private _outbox?: PgTenantOutbox;
  private _webhooks?: PgTenantWebhooks;

  constructor(
    readonly tx: PgTx,
    readonly businessId: number,
  ) {}

  async business(): Promise<BusinessRow> {
    const b = await this.tx.row<BusinessRow>(
      'SELECT id, title, address, logo, created_at FROM businesses WHERE id = $1',
      [this.businessId],
    );
    if (!b) throw new Error(`business ${this.businessId} does not exist`);
    return b;
  }

  get brands(): PgBrands {
    this._brands ??= new PgBrands(this.tx, this.businessId);
    return this._brands;
  }

  get branches(): PgBranches {
    this._branches ??= new PgBranches(this.tx, this.businessId);
    return this._branches;
  }

  get priceGroups(): PgPriceGroups {
    this._priceGroups ??= new PgPriceGroups(this.tx, this.businessId);
    return this._priceGroups;
  }

  get orders(): PgOrders {
    this._orders ??= new PgOrders(this.tx, this.businessId);
    return this._orders;
  }

  get outbox(): PgTenantOutbox {
    this._outbox ??= new PgTenantOutbox(this.tx, this.businessId);
    return this._outbox;
  }

  get menus(): PgMenuCatalogue {
    this._menus ??= new PgMenuCatalogue(this.tx, this.businessId);
    return this._menus;
  }

  get links(): PgMenuLinks {
    this._links ??= new PgMenuLinks(this.tx, this.businessId);
    return this._links;
  }

  get layers(): PgMenuLayers {
    this._layers ??= new PgMenuLayers(this.tx, this.businessId);
    return this._layers;
  }

  get stock(): PgStock {
    this._stock ??= new PgStock(this.tx, this.businessId);
    return this._stock;
  }

  get webhooks(): PgTenantWebhooks {
    this._webhooks ??= new PgTenantWebhooks(this.tx, this.businessId);
    return this._webhooks;
  }
}
