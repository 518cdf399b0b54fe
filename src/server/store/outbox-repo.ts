// The transactional outbox (docs/webhooks.md): every order event is a row written by the same
// unit of work as the change it describes, so there is never a change without its event nor an
// event without its change. Delivery (webhooks, retries) reads these rows; see deliveries-repo.ts.
import { randomFillSync } from 'node:crypto';
import type { OrderEventType } from '../../contract/schemas/orders.js';
import type { SqlOutbox, SqlTenantOutbox } from './sql/outbox-repo.js';

export type OutboxStatus = 'pending' | 'delivered' | 'failed';

export interface OutboxEvent {
  /** Order of writing; dispatchers deliver by ascending seq. */
  seq: number;
  /** Stable across every attempt and replay: the `x-partner-event-id` header. */
  id: string;
  type: OrderEventType;
  business_id: number;
  brand_id: number;
  branch_id: number;
  order_id: number | null;
  /** The exact delivery body `{brand_id, branch_id, orders}` (sign these bytes, do not re-serialise). */
  payload: string;
  status: OutboxStatus;
  attempts: number;
  /** Not due before this time (ms since the epoch). */
  next_attempt_ms: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** The event whose delivery carried this event's orders, when it went out in a batch. */
  batched_into: string | null;
}

export interface NewEvent {
  type: OrderEventType;
  brandId: number;
  branchId: number;
  orderId?: number;
  /** The orders as serialised order reads (already JSON, embedded untouched). */
  orders: readonly string[];
  now: number;
}

/** One business's outbox (TenantTx.outbox): events of its own orders. */
export type TenantOutbox = SqlTenantOutbox;

/** Outbox rows not yet turned into deliveries, oldest first. */
export interface UnfannedEvent {
  seq: number;
  id: string;
  type: OrderEventType;
  business_id: number;
  brand_id: number;
  branch_id: number;
  payload: string;
  next_attempt_ms: number;
}

/** The whole outbox (Tx.outbox): the dispatcher and the operator. */
export type OutboxRepo = SqlOutbox;

/**
 * `evt_<seq in base 36>_<16 random characters>`: unique because seq is, unguessable and never
 * repeated after a data directory is wiped (receivers de-duplicate on it), and resolvable to its
 * row without an index on the text.
 */
export function eventIdFor(seq: number): string {
  return `evt_${seq.toString(36)}_${random12().toString('base64url')}`;
}

// One draw from the CSPRNG per 256 ids instead of one per id (a system call each, on the write path).
const POOL = Buffer.alloc(12 * 256);
let used = POOL.length;
function random12(): Buffer {
  if (used === POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  used += 12;
  return POOL.subarray(used - 12, used);
}

/** The seq an event id was minted for, or undefined when it is not one of ours. */
export function seqOfEventId(id: string): number | undefined {
  const m = /^evt_([0-9a-z]{1,11})_[\w-]{16}$/.exec(id);
  return m ? Number.parseInt(m[1]!, 36) : undefined;
}

/** `{brand_id, branch_id, orders:[…]}` built around already-serialised order records. */
export function eventPayload(brandId: number, branchId: number, orders: readonly string[]): string {
  return `{"brand_id":${brandId},"branch_id":${branchId},"orders":[${orders.join(',')}]}`;
}

const ORDERS = '"orders":[';

/**
 * The orders of an event payload as the text between `"orders":[` and the closing `]}` (for an
 * event of one order: that order's bytes exactly, as eventPayload wrote them); undefined when the
 * text is not of that form.
 */
export function ordersTextOf(payload: string): string | undefined {
  const at = payload.indexOf(ORDERS);
  return at < 0 || !payload.endsWith(']}') ? undefined : payload.slice(at + ORDERS.length, -2);
}
