// The transactional outbox (docs/webhooks.md): every order event is a row written by the same SQLite
// transaction as the change it describes, so there is never a change without its event nor an
// event without its change. Delivery (webhooks, retries) reads these rows; it lives elsewhere.
import { randomBytes } from 'node:crypto';
import type { OrderEventType } from '../../contract/schemas/orders.js';
import { sql } from '../store/sqlite/statements.js';
import type { Db } from '../store/sqlite/db.js';

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
}

export interface EnqueueInput {
  type: OrderEventType;
  businessId: number;
  brandId: number;
  branchId: number;
  orderId?: number;
  /** The orders as serialised order reads (already JSON, embedded untouched). */
  orders: readonly string[];
  now: number;
}

/**
 * `evt_<seq in base 36>_<16 random characters>`: unique because seq is, unguessable and never
 * repeated after a data directory is wiped (receivers de-duplicate on it), and resolvable to its
 * row without an index on the text.
 */
export function eventIdFor(seq: number): string {
  return `evt_${seq.toString(36)}_${randomBytes(12).toString('base64url')}`;
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

const listeners = new WeakMap<Db, Set<() => void>>();
const scheduled = new WeakSet<Db>();

/**
 * Writes one pending event. Call it inside the transaction that makes the change: if that
 * transaction rolls back, the event goes with it. Returns the event id.
 */
export function enqueueEvent(db: Db, e: EnqueueInput): string {
  if (!db.inTransaction)
    throw new Error('enqueueEvent must run inside the transaction that makes the change');
  // The transaction holds the write lock, so nobody else can take the next seq meanwhile.
  const seq = sql(db, 'SELECT coalesce(max(seq), 0) + 1 FROM outbox_events').pluck().get() as number;
  const id = eventIdFor(seq);
  const at = new Date(e.now).toISOString();
  sql(
    db,
    `INSERT INTO outbox_events (seq, id, type, business_id, brand_id, branch_id, order_id, payload, next_attempt_ms, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    seq,
    id,
    e.type,
    e.businessId,
    e.brandId,
    e.branchId,
    e.orderId ?? null,
    eventPayload(e.brandId, e.branchId, e.orders),
    e.now,
    at,
    at,
  );
  wake(db);
  return id;
}

// Wakes subscribed dispatchers once the current (synchronous) transaction has finished; after
// a rollback they simply find nothing new.
function wake(db: Db): void {
  const set = listeners.get(db);
  if (!set?.size || scheduled.has(db)) return;
  scheduled.add(db);
  setImmediate(() => {
    scheduled.delete(db);
    for (const fn of set) fn();
  });
}

/** Calls `fn` soon after events are enqueued on `db` (a hint to poll now; may be spurious). */
export function onEnqueue(db: Db, fn: () => void): () => void {
  let set = listeners.get(db);
  if (!set) {
    set = new Set();
    listeners.set(db, set);
  }
  set.add(fn);
  return () => set.delete(fn);
}

export function getEvent(db: Db, id: string): OutboxEvent | undefined {
  const seq = seqOfEventId(id);
  if (seq === undefined) return undefined;
  return sql(db, 'SELECT * FROM outbox_events WHERE seq = ? AND id = ?').get(seq, id) as
    | OutboxEvent
    | undefined;
}

export interface EventFilter {
  orderId?: number;
  businessId?: number;
  status?: OutboxStatus;
  type?: OrderEventType;
  limit?: number;
}

function whereOf(f: Omit<EventFilter, 'limit'>): { clause: string; args: (string | number)[] } {
  const parts: [string, string | number | undefined][] = [
    ['order_id = ?', f.orderId],
    ['business_id = ?', f.businessId],
    ['status = ?', f.status],
    ['type = ?', f.type],
  ];
  const used = parts.filter((p): p is [string, string | number] => p[1] !== undefined);
  return {
    clause: used.length ? ` WHERE ${used.map((p) => p[0]).join(' AND ')}` : '',
    args: used.map((p) => p[1]),
  };
}

/** Events matching every given filter, oldest first. */
export function listEvents(db: Db, f: EventFilter = {}): OutboxEvent[] {
  const { clause, args } = whereOf(f);
  return sql(db, `SELECT * FROM outbox_events${clause} ORDER BY seq LIMIT ?`).all(
    ...args,
    f.limit ?? 1000,
  ) as OutboxEvent[];
}

export function countEvents(db: Db, f: Omit<EventFilter, 'limit'> = {}): number {
  const { clause, args } = whereOf(f);
  return sql(db, `SELECT count(*) FROM outbox_events${clause}`)
    .pluck()
    .get(...args) as number;
}
