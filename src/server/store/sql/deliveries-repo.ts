// Webhook deliveries; only the claim and its lease are written per dialect (`LEASE` below).
import { hostname } from 'node:os';
import type {
  AttemptRow,
  ClaimedDelivery,
  DeliveryLogFilter,
  DeliveryRow,
  DeliveryStatus,
  NewDelivery,
} from '../deliveries-repo.js';
import { iso, json, q, QueryCache, type Sql } from './query.js';

/**
 * Held by an instance (second key: hashtext of its name) on its notification connection while it
 * runs: a dead process loses it, which another sees by taking it itself (`releaseOrphaned`).
 */
export const INSTANCE_LOCK = 0x6c69_7665;
/** Claims of one URL are judged one instance at a time (pg_try_advisory_xact_lock's first key). */
const URL_LOCK = 0x7572_6c00;
/** Written with every lease: a restarted process judges only its own machine's by process id. */
const HOST = hostname();
/** A URL's window of concurrent deliveries across every instance, unless the claimant names its own. */
const PER_URL = 4;

const DELIVERY =
  'id, event_seq, event_id, event_type, business_id, webhook_id, url, payload, batched_event_ids, status, attempts, budget_start, next_attempt_ms, created_at, updated_at';
const CLAIMED = 'id, event_id, event_type, url, payload, business_id, attempts, budget_start, event_seq';
const FREE = 'lease_owner = NULL, lease_host = NULL, lease_until = NULL';

const D = {
  insert: q(
    `INSERT INTO webhook_deliveries (event_seq, event_id, event_type, business_id, webhook_id, url, payload, batched_event_ids, next_attempt_ms, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  recordAttempt: q(
    `INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, duration_ms, error) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = excluded.at, status_code = excluded.status_code,
       duration_ms = excluded.duration_ms, error = excluded.error`,
  ),
  retry: q(`UPDATE webhook_deliveries SET next_attempt_ms = ?, ${FREE}, updated_at = ? WHERE id = ?`),
  settle: q(
    `UPDATE webhook_deliveries SET status = ?, next_attempt_ms = NULL, ${FREE}, updated_at = ? WHERE id = ?`,
  ),
  ofEvent: q('SELECT status, attempts FROM webhook_deliveries WHERE event_id = ?'),
  // Leases of another machine (or of a process before leases named their host: NULL) are left
  // to run out: a process id says nothing about another machine's processes.
  leaseOwners: q(
    'SELECT DISTINCT lease_owner FROM webhook_deliveries WHERE lease_owner IS NOT NULL AND (lease_host = ? OR lease_host IS NULL)',
  ),
  releaseLeases: q(`UPDATE webhook_deliveries SET ${FREE} WHERE lease_owner = ?`),
  attempts: q(
    'SELECT attempt, at, status_code, duration_ms, error FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt',
  ),
  byEvent: q(`SELECT ${DELIVERY} FROM webhook_deliveries WHERE event_id = ? ORDER BY id`),
  reopen: q(
    `UPDATE webhook_deliveries SET status = 'pending', budget_start = attempts, next_attempt_ms = ?, ${FREE}, updated_at = ?
     WHERE event_id = ? AND webhook_id IN (SELECT id FROM webhooks WHERE deleted_at IS NULL)`,
  ),
};

// The log's filter shape ('e' event, 's' status, 'b' business) names its statements. An event's
// own deliveries, or the batch that carried it (its id in batched_event_ids, a JSON array).
const LOG = new QueryCache((d, shape) => {
  const where: string[] = [];
  if (shape.includes('e'))
    where.push(
      d.name === 'postgres'
        ? '(event_id = ? OR batched_event_ids @> jsonb_build_array(CAST(? AS text)))'
        : '(event_id = ? OR EXISTS (SELECT 1 FROM json_each(batched_event_ids) WHERE value = ?))',
    );
  if (shape.includes('s')) where.push('status = ?');
  if (shape.includes('b')) where.push('business_id = ?');
  return `SELECT ${DELIVERY} FROM webhook_deliveries${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
});
// The feed: the newest (`… DESC`, read back reversed), or those changed after a cursor.
const CHANGED = new QueryCache((_, shape) => {
  const business = shape.includes('b') ? 'business_id = ? AND ' : '';
  return shape.includes('s')
    ? `SELECT ${DELIVERY} FROM webhook_deliveries WHERE ${business}(updated_at > ? OR (updated_at = ? AND id > ?))
       ORDER BY updated_at, id LIMIT ?`
    : `SELECT ${DELIVERY} FROM webhook_deliveries${business ? ` WHERE ${business.slice(0, -5)}` : ''}
       ORDER BY updated_at DESC, id DESC LIMIT ?`;
});

/**
 * Claims and leases, per dialect: on PostgreSQL several instances share the rows, so a claim is
 * judged under a per-URL advisory lock, a row is taken `FOR UPDATE SKIP LOCKED`, and a dead
 * instance's leases are released once its session lock is gone; SQLite's one process needs none
 * of it and keeps its index walks lean.
 */
const LEASE = {
  sqlite: {
    due: q(
      `SELECT id, url FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_ms <= ? AND (lease_until IS NULL OR lease_until < ?)
       ORDER BY next_attempt_ms, id LIMIT ?`,
    ),
    claim: q(
      `UPDATE webhook_deliveries SET lease_owner = ?, lease_host = ?, lease_until = ?, attempts = attempts + 1
       WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until < ?)
       RETURNING ${CLAIMED}`,
    ),
    // Two index walks instead of a scan of every pending row (a backlog can hold thousands): the
    // earliest unleased one (deliveries_due, past the few in flight), and the leased ones
    // (deliveries_leased: only those in flight).
    nextFree: q(
      "SELECT next_attempt_ms FROM webhook_deliveries WHERE status = 'pending' AND lease_until IS NULL ORDER BY next_attempt_ms LIMIT 1",
    ),
    nextLeased: q(
      "SELECT min(max(next_attempt_ms, lease_until)) FROM webhook_deliveries WHERE lease_until IS NOT NULL AND status = 'pending'",
    ),
  },
  postgres: {
    // A URL is offered only the slots its live leases (of every instance) leave of the bound.
    due: q(
      `WITH busy AS (
         SELECT url, count(*) AS n FROM webhook_deliveries
         WHERE status = 'pending' AND lease_until >= ? GROUP BY url
       ), free AS (
         SELECT d.id, d.url, d.next_attempt_ms,
                row_number() OVER (PARTITION BY d.url ORDER BY d.next_attempt_ms, d.id) AS nth,
                ? - coalesce(b.n, 0) AS room
         FROM webhook_deliveries d LEFT JOIN busy b ON b.url = d.url
         WHERE d.status = 'pending' AND d.next_attempt_ms <= ? AND (d.lease_until IS NULL OR d.lease_until < ?)
       )
       SELECT id, url FROM free WHERE nth <= room ORDER BY next_attempt_ms, id LIMIT ?`,
    ),
    urlLock: q(
      'SELECT url, pg_try_advisory_xact_lock(?, hashtext(url)) AS ok FROM webhook_deliveries WHERE id = ?',
    ),
    claim: q(
      `UPDATE webhook_deliveries SET lease_owner = ?, lease_host = ?, lease_until = ?, attempts = attempts + 1
       WHERE id = (
         SELECT id FROM webhook_deliveries
         WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until < ?)
         FOR UPDATE SKIP LOCKED
       ) AND (
         SELECT count(*) FROM webhook_deliveries WHERE url = ? AND status = 'pending' AND lease_until >= ?
       ) < ?
       RETURNING ${CLAIMED}`,
    ),
    // A URL at its bound is not due before its first lease ends (or a completion wakes the
    // instance that holds it): its waiting deliveries do not make every instance look at once.
    nextDue: q(
      `WITH busy AS (
         SELECT url, count(*) AS n, min(lease_until) AS first_end FROM webhook_deliveries
         WHERE status = 'pending' AND lease_until IS NOT NULL GROUP BY url
       )
       SELECT min(CASE
         WHEN d.lease_until IS NOT NULL THEN greatest(d.next_attempt_ms, d.lease_until)
         WHEN b.n >= ? THEN greatest(d.next_attempt_ms, b.first_end)
         ELSE d.next_attempt_ms END) AS at
       FROM webhook_deliveries d LEFT JOIN busy b ON b.url = d.url WHERE d.status = 'pending'`,
    ),
    // The lock taken here is the unit's own (released at its commit): taking it proves the owner
    // no longer holds it. An owner whose name collides with a live one's is kept until its leases
    // run out.
    orphans: q(
      `UPDATE webhook_deliveries SET ${FREE}
       WHERE status = 'pending' AND lease_until >= ? AND lease_owner IN (
         SELECT o FROM (
           SELECT DISTINCT lease_owner AS o FROM webhook_deliveries WHERE status = 'pending' AND lease_until >= ?
         ) held WHERE pg_try_advisory_xact_lock(?, hashtext(o))
       )`,
    ),
  },
};

type Stored = Omit<DeliveryRow, 'batched_event_ids'> & { batched_event_ids: unknown };
const parsed = (rows: Stored[]): DeliveryRow[] =>
  rows.map((r) => ({ ...r, batched_event_ids: json<string[]>(r.batched_event_ids) }));

/**
 * Each delivery is sent by one claimant at a time: a claim is a lease (owner, host, until) that
 * runs out if its owner dies, and the next look of any process then takes it over (LEASE).
 */
export class SqlDeliveries {
  constructor(private readonly db: Sql) {}

  /** Due at `now`. */
  async insert(d: NewDelivery, now: number): Promise<void> {
    const at = iso(now);
    await this.db.run(D.insert, [
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
    ]);
  }

  /**
   * Pending, due and not leased at `now`, oldest due first. `perUrl`: the widest window any URL
   * may have; a shared store offers a URL no more than its live leases leave of it.
   */
  due(now: number, limit: number, perUrl?: number): Promise<{ id: number; url: string }[]> {
    return this.db.dialect === 'postgres'
      ? this.db.all(LEASE.postgres.due, [now, perUrl ?? PER_URL, now, now, limit])
      : this.db.all(LEASE.sqlite.due, [now, now, limit]);
  }

  /**
   * Takes a lease on a delivery and counts the attempt; undefined when it is no longer pending,
   * or another lease on it still runs. `urlSlots`: the claimant's window for the URL; a shared
   * store refuses the claim when the live leases of every process on that URL fill it.
   */
  async claim(
    id: number,
    owner: string,
    leaseUntil: number,
    now: number,
    urlSlots?: number,
  ): Promise<ClaimedDelivery | undefined> {
    const lease = [owner, HOST, leaseUntil, id, now];
    if (this.db.dialect === 'sqlite')
      return (await this.db.write<ClaimedDelivery>(LEASE.sqlite.claim, lease))[0];
    // The URL's lock first: an instance that loses it takes no row lock, so it never stands in
    // the way of the one judging that URL. Held until this look commits: the count cannot race.
    const lock = await this.db.get<{ url: string; ok: boolean }>(LEASE.postgres.urlLock, [URL_LOCK, id]);
    if (!lock?.ok) return undefined;
    const slots = urlSlots ?? PER_URL;
    return (await this.db.write<ClaimedDelivery>(LEASE.postgres.claim, [...lease, lock.url, now, slots]))[0];
  }

  async recordAttempt(deliveryId: number, a: AttemptRow): Promise<void> {
    await this.db.run(D.recordAttempt, [deliveryId, a.attempt, a.at, a.status_code, a.duration_ms, a.error]);
  }

  /** The attempt's outcome: delivered, failed for good, or pending again at `nextAttemptMs`. */
  async settle(
    id: number,
    outcome: { status: 'delivered' | 'failed' } | { status: 'pending'; nextAttemptMs: number },
    now: number,
  ): Promise<void> {
    if (outcome.status === 'pending') await this.db.run(D.retry, [outcome.nextAttemptMs, iso(now), id]);
    else await this.db.run(D.settle, [outcome.status, iso(now), id]);
  }

  /** Status and attempts of every delivery of an event. */
  ofEvent(eventId: string): Promise<{ status: DeliveryStatus; attempts: number }[]> {
    return this.db.all(D.ofEvent, [eventId]);
  }

  /** Owners of leases this machine took (to reclaim a dead process's). */
  leaseOwners(): Promise<string[]> {
    return this.db.column(D.leaseOwners, [HOST]);
  }

  async releaseLeases(owner: string): Promise<void> {
    await this.db.run(D.releaseLeases, [owner]);
  }

  /**
   * Releases live leases whose owner (`Store.instance`) is no longer connected, so a killed
   * instance's deliveries are taken over at once; resolves to how many. SQLite: none to outlive.
   */
  releaseOrphaned(now: number): Promise<number> {
    if (this.db.dialect === 'sqlite') return Promise.resolve(0);
    return this.db.run(LEASE.postgres.orphans, [now, now, INSTANCE_LOCK]);
  }

  /** When the next pending delivery is due (or its lease ends), if any. */
  async nextDueMs(): Promise<number | null> {
    if (this.db.dialect === 'postgres') {
      return (await this.db.value<number | null>(LEASE.postgres.nextDue, [PER_URL])) ?? null;
    }
    const free = await this.db.value<number>(LEASE.sqlite.nextFree);
    const leased = (await this.db.value<number | null>(LEASE.sqlite.nextLeased)) ?? null;
    if (free === undefined) return leased;
    return leased === null ? free : Math.min(free, leased);
  }

  /** Newest first. */
  async log(f: DeliveryLogFilter, limit: number): Promise<DeliveryRow[]> {
    // No stored event id has a NUL byte (PostgreSQL text cannot hold one; the statement would fail).
    if (f.eventId?.includes('\0')) return [];
    const args: unknown[] = [];
    let shape = '';
    if (f.eventId) {
      shape += 'e';
      args.push(f.eventId, f.eventId);
    }
    if (f.status) {
      shape += 's';
      args.push(f.status);
    }
    if (f.businessId !== undefined) {
      shape += 'b';
      args.push(f.businessId);
    }
    return parsed(await this.db.all<Stored>(LOG.get(shape), [...args, limit]));
  }

  attempts(deliveryId: number): Promise<AttemptRow[]> {
    return this.db.all(D.attempts, [deliveryId]);
  }

  /**
   * The delivery feed (`partner inspect`), in the order deliveries last changed: the newest
   * `limit` (oldest of them first), or those changed after the cursor (`since`, then id).
   */
  async changed(
    f: { since?: string | undefined; afterId: number; businessId?: number | undefined },
    limit: number,
  ): Promise<DeliveryRow[]> {
    const business = f.businessId === undefined ? [] : [f.businessId];
    const shape = `${business.length ? 'b' : ''}${f.since === undefined ? '' : 's'}`;
    if (f.since === undefined) {
      return parsed(await this.db.all<Stored>(CHANGED.get(shape), [...business, limit])).reverse();
    }
    // Compared in UTC (stored as ISO text on SQLite), whatever offset the cursor was given in.
    const since = new Date(f.since).toISOString();
    return parsed(
      await this.db.all<Stored>(CHANGED.get(shape), [...business, since, since, f.afterId, limit]),
    );
  }

  /** By id. */
  async byEvent(eventId: string): Promise<DeliveryRow[]> {
    return parsed(await this.db.all<Stored>(D.byEvent, [eventId]));
  }

  /** Replay: the event's deliveries to live registrations pending again, with a fresh budget. */
  async reopen(eventId: string, now: number): Promise<void> {
    await this.db.run(D.reopen, [now, iso(now), eventId]);
  }
}
