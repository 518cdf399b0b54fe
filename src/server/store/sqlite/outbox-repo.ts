import type { Db } from './db.js';
import {
  eventIdFor,
  eventPayload,
  type NewEvent,
  type OutboxEvent,
  type OutboxRepo,
  type OutboxStatus,
  seqOfEventId,
  type TenantOutbox,
  type UnfannedEvent,
} from '../outbox-repo.js';
import type { OrderEventType } from '../../../contract/schemas/orders.js';
import { receives } from '../../domain/delivery.js';
import type { WebhookRow } from '../webhooks-repo.js';
import { sql } from './statements.js';
import type { SqliteTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();

export class SqliteTenantOutbox implements TenantOutbox {
  constructor(
    private readonly tx: SqliteTx,
    private readonly businessId: number,
  ) {}

  async enqueue(e: NewEvent): Promise<string> {
    // Inside a write unit (SQLite's write lock): nobody else can take the next seq meanwhile.
    this.tx.unit.check(true);
    const seq = this.tx.select('SELECT coalesce(max(seq), 0) + 1 FROM outbox_events').pluck().get() as number;
    const id = eventIdFor(seq);
    const at = iso(e.now);
    // An event no registration receives is settled as it is written (delivered, no attempt), as
    // the dispatcher would settle it: no second write of the row, and no fan-out look for it.
    const hooks = this.tx
      .select(
        'SELECT business_id, brand_id, branch_id, event FROM webhooks WHERE business_id = ? AND deleted_at IS NULL',
      )
      .all(this.businessId) as Pick<WebhookRow, 'business_id' | 'brand_id' | 'branch_id' | 'event'>[];
    const head = { business_id: this.businessId, brand_id: e.brandId, branch_id: e.branchId, type: e.type };
    const settled = !hooks.some((w) => receives(w, head)) ? 1 : 0;
    this.tx
      .change(
        `INSERT INTO outbox_events (seq, id, type, business_id, brand_id, branch_id, order_id, payload, next_attempt_ms, created_at, updated_at, fanned_out, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        seq,
        id,
        e.type,
        this.businessId,
        e.brandId,
        e.branchId,
        e.orderId ?? null,
        eventPayload(e.brandId, e.branchId, e.orders),
        e.now,
        at,
        at,
        settled,
        settled ? 'delivered' : 'pending',
      );
    return id;
  }
}

export class SqliteOutbox implements OutboxRepo {
  constructor(private readonly tx: SqliteTx) {}

  async get(id: string): Promise<OutboxEvent | undefined> {
    this.tx.unit.check(false);
    return getEvent(this.tx.db, id);
  }

  async unfanned(limit: number): Promise<UnfannedEvent[]> {
    return this.tx
      .select(
        'SELECT seq, id, type, business_id, brand_id, branch_id, payload, next_attempt_ms FROM outbox_events WHERE fanned_out = 0 ORDER BY seq LIMIT ?',
      )
      .all(limit) as UnfannedEvent[];
  }

  async markFanned(seq: number, batchedInto: string | null, now: number, done = false): Promise<void> {
    if (done) {
      this.tx
        .change(
          "UPDATE outbox_events SET fanned_out = 1, batched_into = ?, status = 'delivered', attempts = 0, updated_at = ? WHERE seq = ?",
        )
        .run(batchedInto, iso(now), seq);
    } else {
      this.tx
        .change('UPDATE outbox_events SET fanned_out = 1, batched_into = ?, updated_at = ? WHERE seq = ?')
        .run(batchedInto, iso(now), seq);
    }
  }

  async settle(
    seq: number,
    eventId: string,
    status: OutboxStatus,
    attempts: number,
    now: number,
  ): Promise<void> {
    const at = iso(now);
    // By primary key, and by the partial index for batched events: never a scan of the outbox.
    this.tx
      .change('UPDATE outbox_events SET status = ?, attempts = ?, updated_at = ? WHERE seq = ?')
      .run(status, attempts, at, seq);
    this.tx
      .change('UPDATE outbox_events SET status = ?, attempts = ?, updated_at = ? WHERE batched_into = ?')
      .run(status, attempts, at, eventId);
  }

  async reopen(eventId: string, now: number): Promise<void> {
    this.tx
      .change("UPDATE outbox_events SET status = 'pending', updated_at = ? WHERE seq = ? OR batched_into = ?")
      .run(iso(now), seqOfEventId(eventId) ?? -1, eventId);
  }

  async refanOut(seq: number, now: number): Promise<void> {
    this.tx
      .change("UPDATE outbox_events SET fanned_out = 0, status = 'pending', updated_at = ? WHERE seq = ?")
      .run(iso(now), seq);
  }
}

// Direct reads of the outbox by event id and by filter, for the repository above and for tests
// that look at what a request left in the file.

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

/** Events matching every given filter, oldest first. */
export function listEvents(db: Db, f: EventFilter = {}): OutboxEvent[] {
  const parts: [string, string | number | undefined][] = [
    ['order_id = ?', f.orderId],
    ['business_id = ?', f.businessId],
    ['status = ?', f.status],
    ['type = ?', f.type],
  ];
  const used = parts.filter((p): p is [string, string | number] => p[1] !== undefined);
  const clause = used.length ? ` WHERE ${used.map((p) => p[0]).join(' AND ')}` : '';
  return sql(db, `SELECT * FROM outbox_events${clause} ORDER BY seq LIMIT ?`).all(
    ...used.map((p) => p[1]),
    f.limit ?? 1000,
  ) as OutboxEvent[];
}

export { seqOfEventId };
