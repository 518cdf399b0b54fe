import type { Statement } from 'better-sqlite3';
import type { BusinessRow } from '../credentials-repo.js';
import type { TenantTx, Tx } from '../store.js';
import { BranchPageCache, SqliteBranches, SqliteBrands } from './brands-repo.js';
import { SqlitePriceGroups } from './catalog-repo.js';
import { SqliteBusinesses, SqliteCredentials } from './credentials-repo.js';
import type { Db } from './db.js';
import { SqliteIdempotencyAnswers } from './idempotency-repo.js';
import { SqliteMenuCatalogue } from './menus/catalogue-repo.js';
import { SqliteMenuLayers } from './menus/layers-repo.js';
import { SqliteMenuLinks } from './menus/links-repo.js';
import { SqliteStock } from './stock-repo.js';
import { SqliteAnyOrders, SqliteOrders } from './orders-repo.js';
import { SqliteOutbox, SqliteTenantOutbox } from './outbox-repo.js';
import { SqliteDeliveries } from './deliveries-repo.js';
import { SqliteTenantWebhooks, SqliteWebhookSecrets, SqliteWebhooks } from './webhooks-repo.js';
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

/** Memoised per handle: repositories are cheap, but a unit often asks for the same one twice. */
function memo<T>(self: { cache: Map<string, unknown> }, key: string, make: () => T): T {
  let v = self.cache.get(key) as T | undefined;
  if (v === undefined) {
    v = make();
    self.cache.set(key, v);
  }
  return v;
}

/**
 * One unit's handle on the connection. Repositories reach SQL only through `select` and `change`,
 * which check that this unit is the one running (and may write): a handle kept past its unit,
 * or a write from a read unit, fails instead of touching someone else's transaction.
 */
export class SqliteTx implements Tx {
  readonly cache = new Map<string, unknown>();

  constructor(
    readonly db: Db,
    readonly unit: Unit,
    readonly shared: SqliteShared,
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

  tenant(businessId: number): SqliteTenantTx {
    return memo(this, `tenant:${businessId}`, () => new SqliteTenantTx(this, businessId));
  }

  get idempotency(): SqliteIdempotencyAnswers {
    return memo(this, 'idempotency', () => new SqliteIdempotencyAnswers(this));
  }

  get businesses(): SqliteBusinesses {
    return memo(this, 'businesses', () => new SqliteBusinesses(this));
  }

  get credentials(): SqliteCredentials {
    return memo(this, 'credentials', () => new SqliteCredentials(this));
  }

  get orders(): SqliteAnyOrders {
    return memo(this, 'orders', () => new SqliteAnyOrders(this));
  }

  get outbox(): SqliteOutbox {
    return memo(this, 'outbox', () => new SqliteOutbox(this));
  }

  get webhooks(): SqliteWebhooks {
    return memo(this, 'webhooks', () => new SqliteWebhooks(this));
  }

  get webhookSecrets(): SqliteWebhookSecrets {
    return memo(this, 'webhookSecrets', () => new SqliteWebhookSecrets(this));
  }

  get deliveries(): SqliteDeliveries {
    return memo(this, 'deliveries', () => new SqliteDeliveries(this));
  }
}

/** One business's view of a unit: every repository here is built around its business id. */
export class SqliteTenantTx implements TenantTx {
  readonly cache = new Map<string, unknown>();

  constructor(
    readonly tx: SqliteTx,
    readonly businessId: number,
  ) {}

  async business(): Promise<BusinessRow> {
    const b = await this.tx.businesses.get(this.businessId);
    if (!b) throw new Error(`business ${this.businessId} does not exist`);
    return b;
  }

  get brands(): SqliteBrands {
    return memo(this, 'brands', () => new SqliteBrands(this.tx, this.businessId));
  }

  get branches(): SqliteBranches {
    return memo(
      this,
      'branches',
      () => new SqliteBranches(this.tx, this.businessId, this.tx.shared.branchPages),
    );
  }

  get priceGroups(): SqlitePriceGroups {
    return memo(this, 'priceGroups', () => new SqlitePriceGroups(this.tx, this.businessId));
  }

  get orders(): SqliteOrders {
    return memo(this, 'orders', () => new SqliteOrders(this.tx, this.businessId));
  }

  get outbox(): SqliteTenantOutbox {
    return memo(this, 'outbox', () => new SqliteTenantOutbox(this.tx, this.businessId));
  }

  get menus(): SqliteMenuCatalogue {
    return memo(this, 'menus', () => new SqliteMenuCatalogue(this.tx, this.businessId));
  }

  get links(): SqliteMenuLinks {
    return memo(this, 'links', () => new SqliteMenuLinks(this.tx, this.businessId));
  }

  get layers(): SqliteMenuLayers {
    return memo(this, 'layers', () => new SqliteMenuLayers(this.tx, this.businessId));
  }

  get stock(): SqliteStock {
    return memo(this, 'stock', () => new SqliteStock(this.tx, this.businessId));
  }

  get webhooks(): SqliteTenantWebhooks {
    return memo(this, 'webhooks', () => new SqliteTenantWebhooks(this.tx, this.businessId));
  }
}
