import type {
  AttemptRow,
  ClaimedDelivery,
  DeliveriesRepo,
  DeliveryLogFilter,
  DeliveryRow,
  DeliveryStatus,
  NewDelivery,
} from '../deliveries-repo.js';
import type { SqliteTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();

type Stored = Omit<DeliveryRow, 'batched_event_ids'> & { batched_event_ids: string };
const parsed = (r: Stored): DeliveryRow => ({
  id: r.id,
  event_seq: r.event_seq,
  event_id: r.event_id,
  event_type: r.event_type,
  business_id: r.business_id,
  webhook_id: r.webhook_id,
  url: r.url,
  payload: r.payload,
  batched_event_ids: JSON.parse(r.batched_event_ids) as string[],
  status: r.status,
  attempts: r.attempts,
  budget_start: r.budget_start,
  next_attempt_ms: r.next_attempt_ms,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export class SqliteDeliveries implements DeliveriesRepo {
  constructor(private readonly tx: SqliteTx) {}

  async insert(d: NewDelivery, now: number): Promise<void> {
    const at = iso(now);
    this.tx
      .change(
        `INSERT INTO webhook_deliveries (event_seq, event_id, event_type, business_id, webhook_id, url, payload, batched_event_ids, next_attempt_ms, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        d.event_seq,
        d.event_id,
        d.event_type,
        d.business_id,
        d.webhook_id,
        d.url,
        d.payload,
        JSON.stringify(d.batched_event_ids),
        now,
        at,
        at,
      );
  }

  async due(now: number, limit: number): Promise<{ id: number; url: string }[]> {
    return this.tx
      .select(
        `SELECT id, url FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_ms <= ? AND (lease_until IS NULL OR lease_until < ?)
         ORDER BY next_attempt_ms, id LIMIT ?`,
      )
      .all(now, now, limit) as { id: number; url: string }[];
  }

  async claim(
    id: number,
    owner: string,
    leaseUntil: number,
    now: number,
  ): Promise<ClaimedDelivery | undefined> {
    return this.tx
      .change(
        `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?, attempts = attempts + 1
         WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until < ?)
         RETURNING id, event_id, event_type, url, payload, business_id, attempts, budget_start, event_seq`,
      )
      .get(owner, leaseUntil, id, now) as ClaimedDelivery | undefined;
  }

  async recordAttempt(deliveryId: number, a: AttemptRow): Promise<void> {
    this.tx
      .change(
        'INSERT OR REPLACE INTO webhook_attempts (delivery_id, attempt, at, status_code, duration_ms, error) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(deliveryId, a.attempt, a.at, a.status_code, a.duration_ms, a.error);
  }

  async settle(
    id: number,
    outcome: { status: 'delivered' | 'failed' } | { status: 'pending'; nextAttemptMs: number },
    now: number,
  ): Promise<void> {
    const at = iso(now);
    if (outcome.status === 'pending') {
      this.tx
        .change(
          'UPDATE webhook_deliveries SET next_attempt_ms = ?, lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ?',
        )
        .run(outcome.nextAttemptMs, at, id);
    } else {
      this.tx
        .change(
          'UPDATE webhook_deliveries SET status = ?, next_attempt_ms = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ?',
        )
        .run(outcome.status, at, id);
    }
  }

  async ofEvent(eventId: string): Promise<{ status: DeliveryStatus; attempts: number }[]> {
    return this.tx
      .select('SELECT status, attempts FROM webhook_deliveries WHERE event_id = ?')
      .all(eventId) as {
      status: DeliveryStatus;
      attempts: number;
    }[];
  }

  async leaseOwners(): Promise<string[]> {
    return this.tx
      .select('SELECT DISTINCT lease_owner FROM webhook_deliveries WHERE lease_owner IS NOT NULL')
      .pluck()
      .all() as string[];
  }

  async releaseLeases(owner: string): Promise<void> {
    this.tx
      .change('UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?')
      .run(owner);
  }

  async nextDueMs(): Promise<number | null> {
    // Two index walks instead of a scan of every pending row (a backlog can hold thousands): the
    // earliest unleased one (deliveries_due, past the few in flight), and the leased ones
    // (deliveries_leased: only those in flight).
    const free = this.tx
      .select(
        "SELECT next_attempt_ms FROM webhook_deliveries WHERE status = 'pending' AND lease_until IS NULL ORDER BY next_attempt_ms LIMIT 1",
      )
      .pluck()
      .get() as number | undefined;
    const leased = this.tx
      .select(
        "SELECT min(max(next_attempt_ms, lease_until)) FROM webhook_deliveries WHERE lease_until IS NOT NULL AND status = 'pending'",
      )
      .pluck()
      .get() as number | null;
    if (free === undefined) return leased;
    return leased === null ? free : Math.min(free, leased);
  }

  async log(f: DeliveryLogFilter, limit: number): Promise<DeliveryRow[]> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (f.eventId) {
      where.push('(event_id = ? OR batched_event_ids LIKE ?)');
      args.push(f.eventId, `%"${f.eventId.replace(/["%_\\]/g, '')}"%`);
    }
    if (f.status) {
      where.push('status = ?');
      args.push(f.status);
    }
    if (f.businessId !== undefined) {
      where.push('business_id = ?');
      args.push(f.businessId);
    }
    return (
      this.tx
        .select(
          `SELECT * FROM webhook_deliveries${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`,
        )
        .all(...args, limit) as Stored[]
    ).map(parsed);
  }

  async attempts(deliveryId: number): Promise<AttemptRow[]> {
    return this.tx
      .select(
        'SELECT attempt, at, status_code, duration_ms, error FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt',
      )
      .all(deliveryId) as AttemptRow[];
  }

  async changed(
    f: { since?: string | undefined; afterId: number; businessId?: number | undefined },
    limit: number,
  ): Promise<DeliveryRow[]> {
    const business = f.businessId === undefined ? [] : [f.businessId];
    const where = f.businessId === undefined ? '' : ' AND business_id = ?';
    if (f.since === undefined) {
      const rows = this.tx
        .select(`SELECT * FROM webhook_deliveries WHERE 1${where} ORDER BY updated_at DESC, id DESC LIMIT ?`)
        .all(...business, limit) as Stored[];
      return rows.reverse().map(parsed);
    }
    // Stored as ISO text in UTC: compared in the same form, whatever offset the cursor was given in.
    const since = new Date(f.since).toISOString();
    return (
      this.tx
        .select(
          `SELECT * FROM webhook_deliveries WHERE (updated_at > ? OR (updated_at = ? AND id > ?))${where} ORDER BY updated_at, id LIMIT ?`,
        )
        .all(since, since, f.afterId, ...business, limit) as Stored[]
    ).map(parsed);
  }

  async byEvent(eventId: string): Promise<DeliveryRow[]> {
    return (
      this.tx
        .select('SELECT * FROM webhook_deliveries WHERE event_id = ? ORDER BY id')
        .all(eventId) as Stored[]
    ).map(parsed);
  }

  async reopen(eventId: string, now: number): Promise<void> {
    this.tx
      .change(
        "UPDATE webhook_deliveries SET status = 'pending', budget_start = attempts, next_attempt_ms = ?, lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE event_id = ? AND webhook_id IN (SELECT id FROM webhooks WHERE deleted_at IS NULL)",
      )
      .run(now, iso(now), eventId);
  }
}
