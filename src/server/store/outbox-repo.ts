// The transactional outbox (docs/webhooks.md): every order event is a row written by the same
// unit of work as the change it describes, so there is never a change without its event nor an
// event without its change. Delivery (webhooks, retries) reads these rows; see deliveries-repo.ts.
import type { OrderEventType } from '../../contract/schemas/orders.js';

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
