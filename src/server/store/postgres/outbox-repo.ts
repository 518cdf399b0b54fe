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
import type { PgTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();
const EVENT =
  'seq, id, type, business_id, brand_id, branch_id, order_id, payload, status, attempts, next_attempt_ms, last_error, created_at, updated_at, batched_into';

export class PgTenantOutbox implements TenantOutbox {
  constructor(
    private readonly tx: PgTx,
    private readonly businessId: number,
  ) {}

  async enqueue(e: NewEvent): Promise<string> {
    // The seq comes first (the event id names it), from the identity's own sequence, with
    // whether any registration receives the event (the rule of `receives` in domain/delivery.ts:
    // brand, branch and type match, null/'all' = any). An event nobody receives is settled as it
    // is written (delivered, no attempt), as the dispatcher would settle it: no second write of
    // the row, and no instance woken to look at it. Otherwise the notify is part of this
    // transaction: PostgreSQL delivers it to every listening instance at COMMIT, and never if the
    // unit rolls back.
    const [s] = await this.tx.change<{ seq: number; heard: boolean }>(
      `WITH r AS (
         SELECT 1 FROM webhooks
         WHERE business_id = $1 AND deleted_at IS NULL AND (brand_id IS NULL OR brand_id = $2)
           AND (branch_id IS NULL OR branch_id = $3) AND (event = 'all' OR event = $4)
         LIMIT 1
       )
       SELECT nextval(pg_get_serial_sequence('outbox_events', 'seq')) AS seq, EXISTS (SELECT 1 FROM r) AS heard,
         (SELECT pg_notify('partner_outbox', '') FROM r) AS notified`,
      [this.businessId, e.brandId, e.branchId, e.type],
    );
    const seq = s!.seq;
    const settled = !s!.heard;
    const id = eventIdFor(seq);
    const at = iso(e.now);
    await this.tx.exec(
      `INSERT INTO outbox_events (seq, id, type, business_id, brand_id, branch_id, order_id, payload, next_attempt_ms, created_at, updated_at, fanned_out, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12)`,
      [
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
        settled,
        settled ? 'delivered' : 'pending',
      ],
    );
    return id;
  }
}

export class PgOutbox implements OutboxRepo {
  constructor(private readonly tx: PgTx) {}

  get(id: string): Promise<OutboxEvent | undefined> {
    const seq = seqOfEventId(id);
    // No stored id has a NUL byte (PostgreSQL text cannot hold one; the statement would fail).
    if (seq === undefined || id.includes('\0')) return Promise.resolve(undefined);
    return this.tx.row(`SELECT ${EVENT} FROM outbox_events WHERE seq = $1 AND id = $2`, [seq, id]);
  }

  unfanned(limit: number): Promise<UnfannedEvent[]> {
    // In a write unit (the dispatcher's look), the events are locked for the unit: another
    // instance looking at the same moment skips them instead of fanning them out a second time.
    return this.tx.rows(
      `SELECT seq, id, type, business_id, brand_id, branch_id, payload, next_attempt_ms FROM outbox_events
       WHERE NOT fanned_out ORDER BY seq LIMIT $1${this.tx.mode === 'write' ? ' FOR UPDATE SKIP LOCKED' : ''}`,
      [limit],
    );
  }

  async markFanned(seq: number, batchedInto: string | null, now: number, done = false): Promise<void> {
    await this.tx.exec(
      done
        ? "UPDATE outbox_events SET fanned_out = true, batched_into = $1, status = 'delivered', attempts = 0, updated_at = $2 WHERE seq = $3"
        : 'UPDATE outbox_events SET fanned_out = true, batched_into = $1, updated_at = $2 WHERE seq = $3',
      [batchedInto, iso(now), seq],
    );
  }

  async settle(
    seq: number,
    eventId: string,
    status: OutboxStatus,
    attempts: number,
    now: number,
  ): Promise<void> {
    await this.tx.exec(
      'UPDATE outbox_events SET status = $1, attempts = $2, updated_at = $3 WHERE seq = $4 OR batched_into = $5',
      [status, attempts, iso(now), seq, eventId],
    );
  }

  async reopen(eventId: string, now: number): Promise<void> {
    await this.tx.exec(
      "UPDATE outbox_events SET status = 'pending', updated_at = $1 WHERE seq = $2 OR batched_into = $3",
      [iso(now), seqOfEventId(eventId) ?? -1, eventId],
    );
  }

  async refanOut(seq: number, now: number): Promise<void> {
    await this.tx.exec(
      "UPDATE outbox_events SET fanned_out = false, status = 'pending', updated_at = $1 WHERE seq = $2",
      [iso(now), seq],
    );
  }
}
