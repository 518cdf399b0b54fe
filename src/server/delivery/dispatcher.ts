import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { sign } from '../../webhooks/signature.js';
import {
  BATCH_WINDOW_MS,
  CREATED,
  type EventHead,
  batchEvents,
  eventStatus,
  isDelivered,
  receiversOf,
  retryDelay,
  type WebhookTarget,
} from '../domain/delivery.js';
import { sql } from '../store/sqlite/statements.js';
import type { Db } from '../store/sqlite/db.js';
import { webhookSecret } from './secrets.js';
import type { Sealer } from '../security/sealed.js';

export interface DispatcherOptions {
  db: Db;
  sealer: Sealer;
  now: () => number;
  retrySchedule: readonly number[];
  /** Deliveries start only after the writes that produced them are committed. */
  group?: { onCommit(fn: () => void): () => void };
  /** Per attempt: 2xx within this many ms or the attempt failed (spec: 10 s). */
  timeoutMs?: number;
  /** New-order events wait this long for others of the same store before going out (≤ 250 ms). */
  batchDelayMs?: number;
  maxInFlight?: number;
  /** Concurrent deliveries to one URL: a slow receiver holds at most this many slots. */
  perUrl?: number;
  random?: () => number;
}

interface DeliveryRow {
  id: number;
  event_id: string;
  event_type: string;
  url: string;
  payload: string;
  business_id: number;
  attempts: number;
  budget_start: number;
  event_seq: number;
}

interface OutboxRow {
  seq: number;
  id: string;
  type: string;
  business_id: number;
  brand_id: number;
  branch_id: number;
  payload: string;
  next_attempt_ms: number;
}

const LEASE_MS = 30_000;
/** Upper bound on sleeping between looks at the queue, as a backstop to the enqueue wake-up. */
const MAX_IDLE_MS = 5_000;

/** `pid:random`: lets a restarted server tell a dead process's leases from a live one's. */
const ownerOf = (pid: number) => `${pid}:${randomBytes(6).toString('hex')}`;

function alive(pid: number): boolean {
  if (pid === process.pid) return false; // an earlier instance in this process has stopped
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Delivers outbox events to registered receivers, at least once: an event becomes one delivery
 * per matching URL; each delivery is claimed with a lease, POSTed with the exact signed bytes,
 * and retried on the schedule until it gets a 2xx or the schedule is spent.
 */
export class Dispatcher {
  private readonly owner = ownerOf(process.pid);
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 16 });
  private readonly inFlight = new Map<string, number>();
  private readonly sends = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private scheduled = false;
  private unsubscribe: (() => void)[] = [];
  private readonly timeoutMs: number;
  private readonly batchDelayMs: number;
  private readonly maxInFlight: number;
  private readonly perUrl: number;
  private total = 0;

  constructor(private readonly o: DispatcherOptions) {
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.batchDelayMs = Math.min(o.batchDelayMs ?? 50, BATCH_WINDOW_MS);
    this.maxInFlight = o.maxInFlight ?? 64;
    this.perUrl = o.perUrl ?? 4;
  }

  start(): void {
    this.running = true;
    this.reclaimDeadLeases();
    this.unsubscribe = this.o.group ? [this.o.group.onCommit(() => this.kick())] : [];
    this.kick();
  }

  /** Stops claiming, waits (bounded) for sends under way, and hands back this process's leases. */
  async stop(waitMs = 2_000): Promise<void> {
    this.running = false;
    for (const u of this.unsubscribe) u();
    clearTimeout(this.timer);
    await Promise.race([
      Promise.allSettled([...this.sends]),
      new Promise((r) => setTimeout(r, waitMs).unref()),
    ]);
    if (this.o.db.open) {
      sql(
        this.o.db,
        'UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?',
      ).run(this.owner);
    }
    await this.agent.close().catch(() => undefined);
  }

  /** Look at the queue soon (coalesced). */
  kick(): void {
    if (!this.running || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.tick();
    });
  }

  private reclaimDeadLeases(): void {
    const owners = sql(
      this.o.db,
      'SELECT DISTINCT lease_owner FROM webhook_deliveries WHERE lease_owner IS NOT NULL',
    )
      .pluck()
      .all() as string[];
    for (const owner of owners) {
      if (!alive(Number(owner.split(':')[0]))) {
        sql(
          this.o.db,
          'UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?',
        ).run(owner);
      }
    }
  }

  private tick(): void {
    if (!this.running || !this.o.db.open) return;
    // Inside a group transaction the events are not committed yet: the commit hook kicks again.
    if (this.o.db.inTransaction) return;
    const now = this.o.now();
    const waitForBatch = this.fanOut(now);
    this.claimAndSend(now);
    this.arm(now, waitForBatch);
  }

  /** Turns new outbox events into deliveries. Returns ms until held-back new orders are due, if any. */
  private fanOut(now: number): number | undefined {
    const { db } = this.o;
    const rows = sql(
      db,
      'SELECT seq, id, type, business_id, brand_id, branch_id, payload, next_attempt_ms FROM outbox_events WHERE fanned_out = 0 ORDER BY seq LIMIT 500',
    ).all() as OutboxRow[];
    if (rows.length === 0) return undefined;
    const heads = rows.map((r) => ({ ...r, at: r.next_attempt_ms }));
    let holdUntil: number | undefined;
    const webhooks = sql(
      db,
      'SELECT id, business_id, brand_id, branch_id, event, url FROM webhooks WHERE deleted_at IS NULL',
    ).all() as WebhookTarget[];
    const at = new Date(now).toISOString();
    db.transaction(() => {
      for (const group of batchEvents(heads)) {
        const first = group[0]!;
        // A new order may still be joined by others of its store: wait out a short window.
        if (first.type === CREATED && now - first.at < this.batchDelayMs) {
          holdUntil = Math.min(holdUntil ?? Number.POSITIVE_INFINITY, first.at + this.batchDelayMs);
          continue;
        }
        const payload = group.length === 1 ? first.payload : batchPayload(group);
        const others = group.slice(1).map((e) => e.id);
        const targets = receiversOf(webhooks, first as EventHead);
        for (const w of targets) {
          sql(
            db,
            `INSERT INTO webhook_deliveries (event_seq, event_id, event_type, business_id, webhook_id, url, payload, batched_event_ids, next_attempt_ms, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(
            first.seq,
            first.id,
            first.type,
            first.business_id,
            w.id,
            w.url,
            payload,
            JSON.stringify(others),
            now,
            at,
            at,
          );
        }
        for (const e of group) {
          sql(
            db,
            'UPDATE outbox_events SET fanned_out = 1, batched_into = ?, updated_at = ? WHERE seq = ?',
          ).run(e === first ? null : first.id, at, e.seq);
        }
        // No receiver registered: nothing to deliver, the event is done.
        if (targets.length === 0) this.settleEvent(first.seq, first.id, at);
      }
    })();
    return holdUntil === undefined ? undefined : Math.max(1, holdUntil - now);
  }

  private claimAndSend(now: number): void {
    const { db } = this.o;
    const room = this.maxInFlight - this.total;
    if (room <= 0) return;
    const due = sql(
      db,
      `SELECT id, url FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_ms <= ? AND (lease_until IS NULL OR lease_until < ?)
       ORDER BY next_attempt_ms, id LIMIT ?`,
    ).all(now, now, room * 4) as { id: number; url: string }[];
    const picked: number[] = [];
    const taken = new Map<string, number>();
    for (const d of due) {
      if (picked.length >= room) break;
      const busy = (this.inFlight.get(d.url) ?? 0) + (taken.get(d.url) ?? 0);
      if (busy >= this.perUrl) continue; // a slow receiver waits its turn; others go on
      taken.set(d.url, (taken.get(d.url) ?? 0) + 1);
      picked.push(d.id);
    }
    if (picked.length === 0) return;
    const claimed = db.transaction(() =>
      picked.map(
        (id) =>
          sql(
            db,
            `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?, attempts = attempts + 1
             WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until < ?)
             RETURNING id, event_id, event_type, url, payload, business_id, attempts, budget_start, event_seq`,
          ).get(this.owner, now + LEASE_MS, id, now) as DeliveryRow | undefined,
      ),
    )();
    for (const d of claimed) if (d) this.send(d);
  }

  private send(d: DeliveryRow): void {
    this.total++;
    this.inFlight.set(d.url, (this.inFlight.get(d.url) ?? 0) + 1);
    const p = this.attempt(d).finally(() => {
      this.total--;
      const n = (this.inFlight.get(d.url) ?? 1) - 1;
      if (n === 0) this.inFlight.delete(d.url);
      else this.inFlight.set(d.url, n);
      this.sends.delete(p);
      this.kick();
    });
    this.sends.add(p);
  }

  private async attempt(d: DeliveryRow): Promise<void> {
    let secret: string;
    try {
      secret = webhookSecret(this.o.db, this.o.sealer, d.business_id, this.o.now());
    } catch (err) {
      this.record(d, undefined, 0, `no signing secret: ${(err as Error).message}`);
      return;
    }
    const body = Buffer.from(d.payload, 'utf8');
    const started = performance.now();
    let status: number | undefined;
    let error: string | null = null;
    try {
      const res = await request(d.url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          'x-partner-signature': sign(secret, body),
          'x-partner-event-id': d.event_id,
          'x-partner-event-type': d.event_type,
          'x-partner-delivery-attempt': String(d.attempts),
          'user-agent': 'partner-webhooks/1',
        },
        body,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.statusCode;
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      if (!isDelivered(status))
        error = status >= 300 && status < 400 ? `redirect ${status} (not followed)` : `HTTP ${status}`;
    } catch (err) {
      const e = err as Error & { code?: string };
      error =
        e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT'
          ? `timeout after ${this.timeoutMs} ms`
          : (e.code ?? e.message);
    }
    this.record(d, status, Math.round(performance.now() - started), error);
  }

  private record(d: DeliveryRow, status: number | undefined, ms: number, error: string | null): void {
    const { db } = this.o;
    if (!db.open) return;
    const now = this.o.now();
    const at = new Date(now).toISOString();
    db.transaction(() => {
      sql(
        db,
        'INSERT OR REPLACE INTO webhook_attempts (delivery_id, attempt, at, status_code, duration_ms, error) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(d.id, d.attempts, at, status ?? null, ms, error);
      if (isDelivered(status)) {
        sql(
          db,
          "UPDATE webhook_deliveries SET status = 'delivered', next_attempt_ms = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ?",
        ).run(at, d.id);
      } else {
        const delay = retryDelay(this.o.retrySchedule, d.attempts - d.budget_start, this.o.random);
        if (delay === undefined) {
          sql(
            db,
            "UPDATE webhook_deliveries SET status = 'failed', next_attempt_ms = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ?",
          ).run(at, d.id);
        } else {
          sql(
            db,
            'UPDATE webhook_deliveries SET next_attempt_ms = ?, lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ?',
          ).run(now + delay, at, d.id);
        }
      }
      this.settleEvent(d.event_seq, d.event_id, at);
    })();
  }

  /** Keeps the outbox row's status (and that of events batched into it) in step with its deliveries. */
  private settleEvent(seq: number, eventId: string, at: string): void {
    const { db } = this.o;
    const rows = sql(db, 'SELECT status, attempts FROM webhook_deliveries WHERE event_id = ?').all(
      eventId,
    ) as {
      status: string;
      attempts: number;
    }[];
    const status = eventStatus(rows.map((r) => r.status));
    const attempts = rows.reduce((m, r) => Math.max(m, r.attempts), 0);
    // By primary key, and by the partial index for batched events: never a scan of the outbox.
    sql(db, 'UPDATE outbox_events SET status = ?, attempts = ?, updated_at = ? WHERE seq = ?').run(
      status,
      attempts,
      at,
      seq,
    );
    sql(db, 'UPDATE outbox_events SET status = ?, attempts = ?, updated_at = ? WHERE batched_into = ?').run(
      status,
      attempts,
      at,
      eventId,
    );
  }

  private arm(now: number, batchWait: number | undefined): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    const next = sql(
      this.o.db,
      "SELECT min(max(next_attempt_ms, coalesce(lease_until, 0))) FROM webhook_deliveries WHERE status = 'pending'",
    )
      .pluck()
      .get() as number | null;
    let wait = MAX_IDLE_MS;
    if (next !== null) wait = Math.min(wait, Math.max(1, next - now));
    if (batchWait !== undefined) wait = Math.min(wait, batchWait);
    // A full pipe is drained by the send completions, which kick again.
    this.timer = setTimeout(() => this.tick(), wait);
    this.timer.unref();
  }
}

function batchPayload(group: readonly OutboxRow[]): string {
  const first = JSON.parse(group[0]!.payload) as { brand_id: number; branch_id: number };
  const orders = group.flatMap((e) => (JSON.parse(e.payload) as { orders: unknown[] }).orders);
  return JSON.stringify({ brand_id: first.brand_id, branch_id: first.branch_id, orders });
}
