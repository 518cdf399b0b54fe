// What both backends' unit handles (SqliteTx, PgTx) share: the repositories of a unit and of its
// tenants, each made on first use and kept for the unit (the hot read path makes two objects).
// A backend implements the Sql seam and attempt(); what a repository takes of it beyond SQL is on
// the seam too (its advisory locks, its claims), or here (SQLite's branch-page cache).
import type { BusinessRow } from '../credentials-repo.js';
import type { TenantTx, Tx } from '../store.js';
import { type BranchPageCache, SqlBranches, SqlBrands } from './brands-repo.js';
import { SqlPriceGroups } from './catalog-repo.js';
import { SqlBusinesses, SqlCredentials } from './credentials-repo.js';
import { SqlDeliveries } from './deliveries-repo.js';
import { SqlIdempotencyAnswers } from './idempotency-repo.js';
import { SqlMenuCatalogue } from './menus/catalogue-repo.js';
import { SqlMenuLayers } from './menus/layers-repo.js';
import { SqlMenuLinks } from './menus/links-repo.js';
import { SqlAnyOrders, SqlOrders } from './orders-repo.js';
import { SqlOutbox, SqlTenantOutbox } from './outbox-repo.js';
import type { DialectName, Query, Sql } from './query.js';
import { SqlStock } from './stock-repo.js';
import { SqlTenantWebhooks, SqlWebhookSecrets, SqlWebhooks } from './webhooks-repo.js';

export abstract class SqlUnit implements Tx, Sql {
  abstract readonly dialect: DialectName;
  abstract readonly writing: boolean;
  abstract all<T>(query: Query, args?: readonly unknown[]): Promise<T[]>;
  abstract get<T>(query: Query, args?: readonly unknown[]): Promise<T | undefined>;
  abstract column<T>(query: Query, args?: readonly unknown[]): Promise<T[]>;
  abstract value<T>(query: Query, args?: readonly unknown[]): Promise<T | undefined>;
  abstract run(query: Query, args?: readonly unknown[]): Promise<number>;
  abstract write<T>(query: Query, args?: readonly unknown[]): Promise<T[]>;
  abstract list(values: readonly (number | string)[]): unknown;
  abstract attempt<T>(fn: () => Promise<T>): Promise<T>;
  /** Outbox events this unit wrote (Sql.unitEvents): made by the first, so a read makes none. */
  get unitEvents(): Map<string, { seq: number; payload: string }> {
    this._unitEvents ??= new Map();
    return this._unitEvents;
  }
  /** Given by a backend whose process owns the data (see BranchPageCache). */
  branchPages?: BranchPageCache;

  private _unitEvents?: Map<string, { seq: number; payload: string }>;
  private lastTenant?: SqlTenant;
  private _idempotency?: SqlIdempotencyAnswers;
  private _businesses?: SqlBusinesses;
  private _credentials?: SqlCredentials;
  private _orders?: SqlAnyOrders;
  private _outbox?: SqlOutbox;
  private _webhooks?: SqlWebhooks;
  private _webhookSecrets?: SqlWebhookSecrets;
  private _deliveries?: SqlDeliveries;

  tenant(businessId: number): SqlTenant {
    const last = this.lastTenant;
    if (last?.businessId === businessId) return last;
    this.lastTenant = new SqlTenant(this, businessId);
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
class SqlTenant implements TenantTx {
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
    readonly tx: SqlUnit,
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
    this._branches ??= new SqlBranches(this.tx, this.businessId, this.tx.branchPages);
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
