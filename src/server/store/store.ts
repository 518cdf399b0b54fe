// The store layer's contract, free of any SQL dialect: the server (handlers, services, the
// webhook dispatcher, the seed) sees only these interfaces and the repositories they name, each
// one class written once for both backends (store/sql/).
import type { BusinessRow } from './credentials-repo.js';
import type { IdempotencyClaims } from './idempotency-repo.js';
import type { MenuCatalogue } from './menus/catalogue-repo.js';
import type { RateLimits } from './rate-limits-repo.js';
import type { BrandsRepo } from './brands-repo.js';
import type { SqlBranches } from './sql/brands-repo.js';
import type { SqlPriceGroups } from './sql/catalog-repo.js';
import type { SqlBusinesses, SqlCredentials } from './sql/credentials-repo.js';
import type { SqlDeliveries } from './sql/deliveries-repo.js';
import type { SqlIdempotencyAnswers } from './sql/idempotency-repo.js';
import type { SqlMenuLayers } from './sql/menus/layers-repo.js';
import type { SqlMenuLinks } from './sql/menus/links-repo.js';
import type { SqlAnyOrders, SqlOrders } from './sql/orders-repo.js';
import type { SqlOutbox, SqlTenantOutbox } from './sql/outbox-repo.js';
import type { SqlStock } from './sql/stock-repo.js';
import type { SqlTenantWebhooks, SqlWebhookSecrets, SqlWebhooks } from './sql/webhooks-repo.js';

/**
 * A unit of work: `fn` runs with a transaction handle and everything it writes commits together
 * or not at all. The promise settles only once that is decided: a resolved `write` is committed
 * (so "a 2xx means committed" holds for whoever awaits it), a rejected one left nothing behind.
 *
 * Rule: `fn` awaits nothing but the store. No timers, no network, no hashing inside a unit: a
 * backend may hold a lock or a connection for the unit's whole life, and SQLite's group commit
 * ends a unit that is still running when its event-loop turn ends (it is rolled back and
 * rejected with an error, loudly). Do slow work before the unit and pass the result in.
 */
export type UnitFn<T> = (tx: Tx) => Promise<T>;

export interface Store {
  /** Reads that see only committed data (SQLite: after the pending group commit). */
  read<T>(fn: UnitFn<T>): Promise<T>;
  /** A unit of work (see UnitFn). */
  write<T>(fn: UnitFn<T>): Promise<T>;
  /** In-flight Idempotency-Key claims, outside any unit. */
  readonly claims: IdempotencyClaims;
  /** Per-credential request budgets, outside any unit. */
  readonly rateLimits: RateLimits;
  /**
   * `fn` runs after commits that wrote something other than Query.quiet statements (an order's
   * record, a stored answer, an event nobody receives): may be coalesced, a hint, not a count.
   */
  onCommit(fn: () => void): () => void;
  /**
   * A shared store only: this process's name among the instances (`pid:random`), which the
   * database knows to be alive while the process is connected. The dispatcher leases under it.
   */
  readonly instance?: string;
  /** Waits for the units under way, commits them, and closes. */
  close(): Promise<void>;
}

/** The unscoped handle of one unit: operator actions, the dispatcher, the seed. */
export interface Tx {
  /**
   * Runs `fn` as a part of this unit that can fail alone: when it throws, what it wrote is
   * rolled back (a savepoint) and the error rethrown, while the unit may go on and commit.
   */
  attempt<T>(fn: () => Promise<T>): Promise<T>;
  /** The same unit seen by one business: every repository of it is confined to that business. */
  tenant(businessId: number): TenantTx;
  /**
   * True when nothing this unit can read is another unit's uncommitted write (it sees committed
   * data only, plus its own writes). Then what it reads may be acted on before it commits (the
   * dispatcher sends events it found). Absent or false: wait for the unit to settle.
   */
  readonly readsCommittedOnly?: boolean;
  /** Stored answers per (credential, Idempotency-Key), kept 24 h (domain/idempotency.ts). */
  readonly idempotency: SqlIdempotencyAnswers;
  readonly businesses: SqlBusinesses;
  readonly credentials: SqlCredentials;
  /** Any business's orders: look one up, then work on it through `tenant(order.business_id)`. */
  readonly orders: SqlAnyOrders;
  readonly outbox: SqlOutbox;
  readonly webhooks: SqlWebhooks;
  readonly webhookSecrets: SqlWebhookSecrets;
  readonly deliveries: SqlDeliveries;
}

/**
 * One business's view of a unit. Its repositories take no business id: they can only ever see
 * and change that business's rows, and another business's id is simply "not found".
 */
export interface TenantTx {
  readonly businessId: number;
  business(): Promise<BusinessRow>;
  readonly brands: BrandsRepo;
  readonly branches: SqlBranches;
  readonly priceGroups: SqlPriceGroups;
  readonly orders: SqlOrders;
  /** Events of this business's orders, written in the unit that makes the change. */
  readonly outbox: SqlTenantOutbox;
  /** The business-level menu definition. */
  readonly menus: MenuCatalogue;
  /** Its links (section → category → item → group → modifier), table-driven. */
  readonly links: SqlMenuLinks;
  /** Store layers, snapshots, publish versions and log. */
  readonly layers: SqlMenuLayers;
  /** Item availability, snooze and stock per branch; the OOS history. */
  readonly stock: SqlStock;
  /** The webhook URLs registered for this business. */
  readonly webhooks: SqlTenantWebhooks;
}
