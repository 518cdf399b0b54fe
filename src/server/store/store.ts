// The store layer's contract, free of any SQL dialect: the server (handlers, services, the
// webhook dispatcher, the seed) sees only these interfaces; each backend implements them
// (store/sqlite/… today).
import type { BranchesRepo, BrandsRepo } from './brands-repo.js';
import type { PriceGroupsRepo } from './catalog-repo.js';
import type { BusinessesRepo, BusinessRow, CredentialsRepo } from './credentials-repo.js';
import type { IdempotencyAnswers, IdempotencyClaims } from './idempotency-repo.js';
import type { MenuCatalogue } from './menus/catalogue-repo.js';
import type { MenuLayers } from './menus/layers-repo.js';
import type { MenuLinks } from './menus/links-repo.js';
import type { AnyOrdersRepo, OrdersRepo } from './orders-repo.js';
import type { OutboxRepo, TenantOutbox } from './outbox-repo.js';
import type { DeliveriesRepo } from './deliveries-repo.js';
import type { StockRepo } from './stock-repo.js';
import type { TenantWebhooks, WebhookSecretsRepo, WebhooksRepo } from './webhooks-repo.js';
import type { RateLimits } from './rate-limits-repo.js';

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
  readonly idempotency: IdempotencyAnswers;
  readonly businesses: BusinessesRepo;
  readonly credentials: CredentialsRepo;
  /** Any business's orders: look one up, then work on it through `tenant(order.business_id)`. */
  readonly orders: AnyOrdersRepo;
  readonly outbox: OutboxRepo;
  readonly webhooks: WebhooksRepo;
  readonly webhookSecrets: WebhookSecretsRepo;
  readonly deliveries: DeliveriesRepo;
}

/**
 * One business's view of a unit. Its repositories take no business id: they can only ever see
 * and change that business's rows, and another business's id is simply "not found".
 */
export interface TenantTx {
  readonly businessId: number;
  business(): Promise<BusinessRow>;
  readonly brands: BrandsRepo;
  readonly branches: BranchesRepo;
  readonly priceGroups: PriceGroupsRepo;
  readonly orders: OrdersRepo;
  /** Events of this business's orders, written in the unit that makes the change. */
  readonly outbox: TenantOutbox;
  /** The business-level menu definition. */
  readonly menus: MenuCatalogue;
  /** Its links (section → category → item → group → modifier), table-driven. */
  readonly links: MenuLinks;
  /** Store layers, snapshots, publish versions and log. */
  readonly layers: MenuLayers;
  /** Item availability, snooze and stock per branch; the OOS history. */
  readonly stock: StockRepo;
  /** The webhook URLs registered for this business. */
  readonly webhooks: TenantWebhooks;
}
