import { eventIdFor, eventPayload, seqOfEventId } from '../../domain/events.js';
import type { NewEvent, OutboxEvent, OutboxStatus, UnfannedEvent } from '../outbox-repo.js';
import { type Dialect, iso, Lockable, q, type Sql } from './query.js';

const EVENT =
  'seq, id, type, business_id, brand_id, branch_id, order_id, payload, status, attempts, next_attempt_ms, last_error, created_at, updated_at, batched_into';
const UNFANNED = 'seq, id, type, business_id, brand_id, branch_id, payload, next_attempt_ms';

const insertEvent = (d: Dialect) =>
  `INSERT INTO outbox_events (seq, id, type, business_id, brand_id, branch_id, order_id, payload, next_attempt_ms, created_at, updated_at, fanned_out, status)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${d.fannedOutNotifying('partner_outbox')}, ?)`;

const E = {
  // The seq comes first (the event id names it), with whether any registration receives the
  // event (the rule of `receives` in domain/delivery.ts: brand, branch and type match, null/'all'
  // = any). A read: on PostgreSQL's one-statement path it goes out at once, and the insert below
  // waits to go out with the unit's other writes.
  next: q(
    (d) => `WITH r AS (
       SELECT 1 FROM webhooks
       WHERE business_id = ? AND deleted_at IS NULL AND (brand_id IS NULL OR brand_id = ?)
         AND (branch_id IS NULL OR branch_id = ?) AND (event = 'all' OR event = ?)
       LIMIT 1
     )
     SELECT ${d.nextId('outbox_events', 'seq')} AS seq, EXISTS (SELECT 1 FROM r) AS heard`,
  ),
  // On PostgreSQL an event someone receives notifies at commit (Dialect.fannedOutNotifying).
  insert: q(insertEvent),
  // One nobody receives is settled as it is written, and wakes no one (Query.quiet).
  insertSettled: q(insertEvent, { quiet: true }),
  get: q(`SELECT ${EVENT} FROM outbox_events WHERE seq = ? AND id = ?`),
  // In a write unit (the dispatcher's look) the events are locked for the unit: another instance
  // looking at the same moment skips them instead of fanning them out a second time.
  unfanned: new Lockable(
    (d) => `SELECT ${UNFANNED} FROM outbox_events WHERE fanned_out = ${d.bool(false)} ORDER BY seq LIMIT ?`,
    'lockSkip',
  ),
  fanned: q(
    (d) =>
      `UPDATE outbox_events SET fanned_out = ${d.bool(true)}, batched_into = ?, updated_at = ? WHERE seq = ?`,
  ),
  fannedDone: q(
    (d) =>
      `UPDATE outbox_events SET fanned_out = ${d.bool(true)}, batched_into = ?, status = 'delivered', attempts = 0, updated_at = ? WHERE seq = ?`,
  ),
  // By primary key, or by the partial index for batched events: never a scan of the outbox.
  settle: q(
    'UPDATE outbox_events SET status = ?, attempts = ?, updated_at = ? WHERE seq = ? OR batched_into = ?',
  ),
  reopen: q("UPDATE outbox_events SET status = 'pending', updated_at = ? WHERE seq = ? OR batched_into = ?"),
  refanOut: q(
    (d) =>
      `UPDATE outbox_events SET fanned_out = ${d.bool(false)}, status = 'pending', updated_at = ? WHERE seq = ?`,
  ),
};

type NextSeq = { seq: number; heard: boolean | number };

export class SqlTenantOutbox {
  constructor(
    private readonly db: Sql,
    private readonly businessId: number,
  ) {}

  /** Writes one pending event in this unit (it commits or rolls back with the change); returns its id. */
  async enqueue(e: NewEvent): Promise<string> {
    const [s] = await this.db.all<NextSeq>(E.next, [this.businessId, e.brandId, e.branchId, e.type]);
    const seq = Number(s!.seq);
    const id = eventIdFor(seq);
    const at = iso(e.now);
    // An event no registration receives is settled as it is written (delivered, no attempt), as
    // the dispatcher would settle it: no second write of the row, and no look (nor, on
    // PostgreSQL, any instance woken) for it.
    const settled = !s!.heard;
    const payload = eventPayload(e.brandId, e.branchId, e.orders);
    await this.db.run(settled ? E.insertSettled : E.insert, [
      seq,
      id,
      e.type,
      this.businessId,
      e.brandId,
      e.branchId,
      e.orderId ?? null,
      payload,
      e.now,
      at,
      at,
      settled ? 1 : 0,
      settled ? 'delivered' : 'pending',
    ]);
    this.db.unitEvents?.set(id, { seq, payload });
    return id;
  }
}

export class SqlOutbox {
  constructor(private readonly db: Sql) {}

  async get(id: string): Promise<OutboxEvent | undefined> {
    const seq = seqOfEventId(id);
    // No stored id has a NUL byte (PostgreSQL text cannot hold one; the statement would fail).
    if (seq === undefined || id.includes('\0')) return undefined;
    return this.db.get(E.get, [seq, id]);
  }

  unfanned(limit: number): Promise<UnfannedEvent[]> {
    return this.db.all(E.unfanned.in(this.db, true), [limit]);
  }

  /**
   * The event has become deliveries (`batchedInto`: the event whose delivery carries it). With
   * `done`, it had no receiver: it is settled at once (delivered, no attempt).
   */
  async markFanned(seq: number, batchedInto: string | null, now: number, done = false): Promise<void> {
    await this.db.run(done ? E.fannedDone : E.fanned, [batchedInto, iso(now), seq]);
  }

  /** Keeps an event (and the events batched into it) in step with its deliveries. */
  async settle(
    seq: number,
    eventId: string,
    status: OutboxStatus,
    attempts: number,
    now: number,
  ): Promise<void> {
    await this.db.run(E.settle, [status, attempts, iso(now), seq, eventId]);
  }

  /** Replay: the event (and those batched into it) pending again. */
  async reopen(eventId: string, now: number): Promise<void> {
    await this.db.run(E.reopen, [iso(now), seqOfEventId(eventId) ?? -1, eventId]);
  }

  /** Replay of an event nobody received: offered to today's receivers. */
  async refanOut(seq: number, now: number): Promise<void> {
    await this.db.run(E.refanOut, [iso(now), seq]);
  }
}
