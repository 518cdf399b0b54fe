import { hostname } from 'node:os';
import type {
  AttemptRow,
  ClaimedDelivery,
  DeliveriesRepo,
  DeliveryLogFilter,
  DeliveryRow,
  DeliveryStatus,
  NewDelivery,
} from '../deliveries-repo.js';
import type { PgTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();
const DELIVERY =
  'id, event_seq, event_id, event_type, business_id, webhook_id, url, payload, batched_event_ids, status, attempts, budget_start, next_attempt_ms, created_at, updated_at';
/** Claims of one URL are judged one instance at a time (pg_try_advisory_xact_lock's first key). */
const URL_LOCK = 0x7572_6c00;
/**
 * An instance holds this session lock (second key: hashtext of its name) on its notification
 * connection for as long as it runs: a process that dies loses its connections and the lock with
 * them, which another instance sees at once by taking the lock itself (`releaseOrphaned`).
 */
export const INSTANCE_LOCK = 0x6c69_7665;
const HOST = hostname();

/**
 * Deliveries shared by every instance. Each is sent by exactly one of them: a claim is a lease
 * (owner, until) taken on a row locked `FOR UPDATE SKIP LOCKED`, and an instance that dies holds
 * its leases only until they run out; the next look of any instance then takes them over. The
 * per-URL bound holds across instances: `due` offers a URL only the slots its live leases leave,
 * and `claim` counts them again under a per-URL advisory lock held until the look commits. The
 * bound is the claiming instance's window for the URL (4 slots, up to 32 while the URL keeps
 * answering it quickly: the dispatcher's), counted over every instance's live leases, so the
 * deliveries in flight to a URL never exceed the widest window of any instance; without one given,
 * the store's own `perUrl`.
 */
export class PgDeliveries implements DeliveriesRepo {
  constructor(
    private readonly tx: PgTx,
    /** Concurrent deliveries to one URL across every instance. */
    private readonly perUrl: number,
  ) {}

  async insert(d: NewDelivery, now: number): Promise<void> {
    const at = iso(now);
    await this.tx.exec(
      `INSERT INTO webhook_deliveries (event_seq, event_id, event_type, business_id, webhook_id, url, payload, batched_event_ids, next_attempt_ms, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
      [
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
      ],
    );
  }

  due(now: number, limit: number, perUrl?: number): Promise<{ id: number; url: string }[]> {
    return this.tx.rows(
      `WITH busy AS (
         SELECT url, count(*) AS n FROM webhook_deliveries
         WHERE status = 'pending' AND lease_until >= $1 GROUP BY url
       ), free AS (
         SELECT d.id, d.url, d.next_attempt_ms,
                row_number() OVER (PARTITION BY d.url ORDER BY d.next_attempt_ms, d.id) AS nth,
                $2 - coalesce(b.n, 0) AS room
         FROM webhook_deliveries d LEFT JOIN busy b ON b.url = d.url
         WHERE d.status = 'pending' AND d.next_attempt_ms <= $1 AND (d.lease_until IS NULL OR d.lease_until < $1)
       )
       SELECT id, url FROM free WHERE nth <= room ORDER BY next_attempt_ms, id LIMIT $3`,
      [now, perUrl ?? this.perUrl, limit],
    );
  }

  async claim(
    id: number,
    owner: string,
    leaseUntil: number,
    now: number,
    urlSlots?: number,
  ): Promise<ClaimedDelivery | undefined> {
    // The URL's lock first: an instance that loses it takes no row lock at all, so it never
    // stands in the way of the one judging that URL. Held until this look commits, so the count
    // of live leases below cannot be raced by another instance.
    const lock = await this.tx.row<{ url: string; ok: boolean }>(
      'SELECT url, pg_try_advisory_xact_lock($1, hashtext(url)) AS ok FROM webhook_deliveries WHERE id = $2',
      [URL_LOCK, id],
    );
    if (!lock?.ok) return undefined;
    const [claimed] = await this.tx.change<ClaimedDelivery>(
      `UPDATE webhook_deliveries SET lease_owner = $1, lease_host = $2, lease_until = $3, attempts = attempts + 1
       WHERE id = (
         SELECT id FROM webhook_deliveries
         WHERE id = $4 AND status = 'pending' AND (lease_until IS NULL OR lease_until < $5)
         FOR UPDATE SKIP LOCKED
       ) AND (
         SELECT count(*) FROM webhook_deliveries WHERE url = $6 AND status = 'pending' AND lease_until >= $5
       ) < $7
       RETURNING id, event_id, event_type, url, payload, business_id, attempts, budget_start, event_seq`,
      [owner, HOST, leaseUntil, id, now, lock.url, urlSlots ?? this.perUrl],
    );
    return claimed;
  }

  async recordAttempt(deliveryId: number, a: AttemptRow): Promise<void> {
    await this.tx.exec(
      `INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, duration_ms, error) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = excluded.at, status_code = excluded.status_code,
         duration_ms = excluded.duration_ms, error = excluded.error`,
      [deliveryId, a.attempt, a.at, a.status_code, a.duration_ms, a.error],
    );
  }

  async settle(
    id: number,
    outcome: { status: 'delivered' | 'failed' } | { status: 'pending'; nextAttemptMs: number },
    now: number,
  ): Promise<void> {
    if (outcome.status === 'pending') {
      await this.tx.exec(
        'UPDATE webhook_deliveries SET next_attempt_ms = $1, lease_owner = NULL, lease_host = NULL, lease_until = NULL, updated_at = $2 WHERE id = $3',
        [outcome.nextAttemptMs, iso(now), id],
      );
    } else {
      await this.tx.exec(
        'UPDATE webhook_deliveries SET status = $1, next_attempt_ms = NULL, lease_owner = NULL, lease_host = NULL, lease_until = NULL, updated_at = $2 WHERE id = $3',
        [outcome.status, iso(now), id],
      );
    }
  }

  ofEvent(eventId: string): Promise<{ status: DeliveryStatus; attempts: number }[]> {
    return this.tx.rows('SELECT status, attempts FROM webhook_deliveries WHERE event_id = $1', [eventId]);
  }

  async leaseOwners(): Promise<string[]> {
    // Only leases taken on this machine: the dispatcher judges an owner by its process id, which
    // says nothing about another machine's processes. Theirs run out and are taken over.
    const rows = await this.tx.rows<{ lease_owner: string }>(
      'SELECT DISTINCT lease_owner FROM webhook_deliveries WHERE lease_owner IS NOT NULL AND lease_host = $1',
      [HOST],
    );
    return rows.map((r) => r.lease_owner);
  }

  async releaseLeases(owner: string): Promise<void> {
    await this.tx.exec(
      'UPDATE webhook_deliveries SET lease_owner = NULL, lease_host = NULL, lease_until = NULL WHERE lease_owner = $1',
      [owner],
    );
  }

  releaseOrphaned(now: number): Promise<number> {
    // The lock taken here is the unit's own (released at its commit): taking it proves the owner
    // no longer holds it. An owner whose name collides with a live one's is simply kept until its
    // leases run out.
    return this.tx.exec(
      `UPDATE webhook_deliveries SET lease_owner = NULL, lease_host = NULL, lease_until = NULL
       WHERE status = 'pending' AND lease_until >= $1 AND lease_owner IN (
         SELECT o FROM (
           SELECT DISTINCT lease_owner AS o FROM webhook_deliveries WHERE status = 'pending' AND lease_until >= $1
         ) held WHERE pg_try_advisory_xact_lock($2, hashtext(o))
       )`,
      [now, INSTANCE_LOCK],
    );
  }

  async nextDueMs(): Promise<number | null> {
    // A URL at its bound is not due before its first lease ends (or a completion wakes the
    // instance that holds it): its waiting deliveries do not make every instance look again at once.
    const r = await this.tx.row<{ at: number | null }>(
      `WITH busy AS (
         SELECT url, count(*) AS n, min(lease_until) AS first_end FROM webhook_deliveries
         WHERE status = 'pending' AND lease_until IS NOT NULL GROUP BY url
       )
       SELECT min(CASE
         WHEN d.lease_until IS NOT NULL THEN greatest(d.next_attempt_ms, d.lease_until)
         WHEN b.n >= $1 THEN greatest(d.next_attempt_ms, b.first_end)
         ELSE d.next_attempt_ms END) AS at
       FROM webhook_deliveries d LEFT JOIN busy b ON b.url = d.url WHERE d.status = 'pending'`,
      [this.perUrl],
    );
    return r?.at ?? null;
  }

  log(f: DeliveryLogFilter, limit: number): Promise<DeliveryRow[]> {
    // No stored event id has a NUL byte (PostgreSQL text cannot hold one; the statement would fail).
    if (f.eventId?.includes('\0')) return Promise.resolve([]);
    const where: string[] = [];
    const args: unknown[] = [];
    if (f.eventId) {
      args.push(f.eventId);
      where.push(`(event_id = $${args.length} OR batched_event_ids ? $${args.length})`);
    }
    if (f.status) {
      args.push(f.status);
      where.push(`status = $${args.length}`);
    }
    if (f.businessId !== undefined) {
      args.push(f.businessId);
      where.push(`business_id = $${args.length}`);
    }
    args.push(limit);
    return this.tx.rows(
      `SELECT ${DELIVERY} FROM webhook_deliveries${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${args.length}`,
      args,
    );
  }

  attempts(deliveryId: number): Promise<AttemptRow[]> {
    return this.tx.rows(
      'SELECT attempt, at, status_code, duration_ms, error FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt',
      [deliveryId],
    );
  }

  async changed(
    f: { since?: string | undefined; afterId: number; businessId?: number | undefined },
    limit: number,
  ): Promise<DeliveryRow[]> {
    const business = f.businessId === undefined ? '' : ' AND business_id = $2';
    const bargs = f.businessId === undefined ? [] : [f.businessId];
    if (f.since === undefined) {
      const rows = await this.tx.rows<DeliveryRow>(
        `SELECT ${DELIVERY} FROM webhook_deliveries WHERE true${business.replace('$2', '$1')} ORDER BY updated_at DESC, id DESC LIMIT $${bargs.length + 1}`,
        [...bargs, limit],
      );
      return rows.reverse();
    }
    return this.tx.rows(
      `SELECT ${DELIVERY} FROM webhook_deliveries WHERE (updated_at > $1 OR (updated_at = $1 AND id > $${bargs.length + 2}))${business}
       ORDER BY updated_at, id LIMIT $${bargs.length + 3}`,
      [new Date(f.since).toISOString(), ...bargs, f.afterId, limit],
    );
  }

  byEvent(eventId: string): Promise<DeliveryRow[]> {
    return this.tx.rows(`SELECT ${DELIVERY} FROM webhook_deliveries WHERE event_id = $1 ORDER BY id`, [
      eventId,
    ]);
  }

  async reopen(eventId: string, now: number): Promise<void> {
    await this.tx.exec(
      `UPDATE webhook_deliveries SET status = 'pending', budget_start = attempts, next_attempt_ms = $1,
         lease_owner = NULL, lease_host = NULL, lease_until = NULL, updated_at = $2
       WHERE event_id = $3 AND webhook_id IN (SELECT id FROM webhooks WHERE deleted_at IS NULL)`,
      [now, iso(now), eventId],
    );
  }
}
