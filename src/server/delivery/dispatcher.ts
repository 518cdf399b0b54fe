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
} from '../domain/delivery.js';
import type { Sealer } from '../security/sealed.js';
import { webhookSecret } from '../services/webhooks.js';
import type { ClaimedDelivery } from '../store/deliveries-repo.js';
import type { UnfannedEvent } from '../store/outbox-repo.js';
import type { Store, Tx } from '../store/store.js';

interface DispatcherOptions {
  /** Woken by its commits: deliveries start only after the writes that produced them are committed. */
  store: Store;
  sealer: Sealer;
  now: () => number;
  retrySchedule: readonly number[];
  /** Told about a failed look at the queue (the dispatcher tries again later). */
  logErrors?: (err: unknown) => void;
  /** Per attempt: 2xx within this many ms or the attempt failed (spec: 10 s). */
  timeoutMs?: number;
  /**
   * The longest sleep between looks at the queue when nothing wakes the dispatcher (default 5 s):
   * a backstop for a lost wake-up, e.g. NOTIFY behind a pooler that drops it. Also how soon an
   * idle instance takes over a dead one's deliveries. A failed look is retried within 5 s at most.
   */
  idleMs?: number;
  /** A 2xx within this many ms widens its URL's window by one slot (default 250 ms). */
  fastMs?: number;
  /** New-order events wait this long for others of the same store before going out (≤ 250 ms). */
  batchDelayMs?: number;
  maxInFlight?: number;
  /** Concurrent deliveries to a URL that has not yet shown it answers quickly: a slow receiver holds at most this many slots. */
  perUrl?: number;
  /** Concurrent deliveries to a URL while it keeps answering 2xx quickly (its window grows to this). */
  perFastUrl?: number;
  random?: () => number;
}

const LEASE_MS = 30_000;
/** A 2xx within this long widens the URL's window by one slot; anything else shrinks it back. */
const FAST_MS = 250;
/** Opened signing secrets kept (by their sealed text, so a rotation is seen at once). */
const MAX_SECRETS = 1_000;
/** A look that finds at least this many new events means a stream: the next look pauses first. */
const STREAM_EVENTS = 16;
const STREAM_PAUSE_MS = 2;
/** How often a look asks the shared store for leases of instances that are gone. */
const ORPHAN_LOOK_MS = 1_000;
/** Default upper bound on sleeping between looks at the queue, a backstop to the enqueue wake-up. */
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
  private readonly owner: string;
  private readonly agent: Agent;
  private readonly inFlight = new Map<string, number>();
  /** Slots per URL (AIMD): perUrl at first and after a slow or failed attempt, up to perFastUrl. */
  private readonly window = new Map<string, number>();
  /** Attempts that have ended, recorded by the next look (one unit for all of them). */
  private finished: Finished[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly sends = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private scheduled = false;
  /** A look at the queue is under way; another kick asks for one more after it. */
  private ticking = false;
  private again = false;
  /** The last look found a crowd of events: the next one waits a moment for more. */
  private streaming = false;
  private unsubscribe: (() => void)[] = [];
  private readonly timeoutMs: number;
  private readonly batchDelayMs: number;
  private readonly maxInFlight: number;
  private readonly perUrl: number;
  private readonly perFastUrl: number;
  private total = 0;
  private orphansLookedAt = Number.NEGATIVE_INFINITY;
  private readonly idleMs: number;
  private readonly fastMs: number;

  constructor(private readonly o: DispatcherOptions) {
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.idleMs = o.idleMs ?? MAX_IDLE_MS;
    this.fastMs = o.fastMs ?? FAST_MS;
    this.batchDelayMs = Math.min(o.batchDelayMs ?? 50, BATCH_WINDOW_MS);
    this.maxInFlight = o.maxInFlight ?? 256;
    this.perUrl = o.perUrl ?? 4;
    this.owner = o.store.instance ?? ownerOf(process.pid);
    this.perFastUrl = Math.max(this.perUrl, o.perFastUrl ?? 128);
    this.agent = new Agent({ keepAliveTimeout: 10_000, connections: this.perFastUrl });
  }

  async start(): Promise<void> {
    this.running = true;
    await this.reclaimDeadLeases();
    this.unsubscribe = [this.o.store.onCommit(() => this.committed())];
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
    const finished = this.takeFinished();
    await this.o.store
      .write(async (tx) => {
        await this.recordAll(tx, finished);
        await tx.deliveries.releaseLeases(this.owner);
      })
      .catch(() => undefined);
    await this.agent.close().catch(() => undefined);
  }

  /** Look at the queue soon (coalesced). */
  kick(): void {
    if (!this.running || this.scheduled) return;
    this.scheduled = true;
    const go = () => {
      this.scheduled = false;
      void this.tick();
    };
    // Under a stream of writes, a short pause lets events gather into fewer, larger looks; a
    // lone event (the usual case) is looked at in the next turn.
    if (this.streaming) setTimeout(go, STREAM_PAUSE_MS);
    else setImmediate(go);
  }

  /**
   * A commit that wrote something: a lone event is looked at from here, without waiting a turn
   * (the look is a unit of its own, queued behind whatever runs now).
   */
  private committed(): void {
    if (!this.running || this.scheduled || this.streaming) this.kick();
    else void this.tick();
  }

  private async reclaimDeadLeases(): Promise<void> {
    await this.o.store.write(async (tx) => {
      for (const owner of await tx.deliveries.leaseOwners()) {
        if (!alive(Number(owner.split(':')[0]))) await tx.deliveries.releaseLeases(owner);
      }
    });
  }

  private async tick(): Promise<void> {
    if (!this.running) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    const finished = this.takeFinished();
    try {
      const now = this.o.now();
      // One unit per look: it records the attempts that ended since the last one, fans new events
      // out and claims what is due; it joins whatever group is open, and the sends start after
      // its commit. A look that finds nothing writes nothing, and so does not wake us again.
      const look = await this.o.store.write(async (tx) => {
        await this.recordAll(tx, finished);
        const fanned = await this.fanOut(tx, now);
        await this.takeOverOrphans(tx, now);
        const claimed = await this.claim(tx, now);
        // The signing secret of each business sending now, read here rather than per attempt.
        const sealed = new Map<number, string | undefined>();
        for (const d of claimed) {
          if (!sealed.has(d.business_id))
            sealed.set(d.business_id, (await tx.webhookSecrets.get(d.business_id))?.sealed);
        }
        // Every event this look saw was committed before it began: send now rather than after
        // this unit's own commit (a lone event's latency). Should that commit fail, its claims
        // and fan-out are undone and the events go out again later, under the same ids.
        const early = tx.readsCommittedOnly === true;
        if (early) for (const d of claimed) this.send(d, sealed.get(d.business_id));
        return { ...fanned, claimed: early ? [] : claimed, sealed, nextDue: await tx.deliveries.nextDueMs() };
      });
      this.streaming = look.events >= STREAM_EVENTS;
      for (const d of look.claimed) this.send(d, look.sealed.get(d.business_id));
      this.arm(now, look.nextDue, look.holdMs);
    } catch (err) {
      // The store is closing, or a look failed: the next kick or the backstop timer tries again,
      // with the attempts this look could not record (nothing of it was committed).
      this.finished = finished.concat(this.finished);
      if (this.running) {
        this.o.logErrors?.(err);
        this.setTimer(Math.min(this.idleMs, MAX_IDLE_MS));
      }
    } finally {
      this.ticking = false;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    }
  }

  /**
   * Turns new outbox events into deliveries. Returns how many it saw, and the ms until held-back
   * new orders are due, if any.
   */
  private async fanOut(tx: Tx, now: number): Promise<{ events: number; holdMs: number | undefined }> {
    const fresh = await tx.outbox.unfanned(500);
    if (fresh.length === 0) return { events: 0, holdMs: undefined };
    const heads = fresh.map((r) => ({ ...r, at: r.next_attempt_ms }));
    let holdUntil: number | undefined;
    const webhooks = await tx.webhooks.list();
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
        await tx.deliveries.insert(
          {
            event_seq: first.seq,
            event_id: first.id,
            event_type: first.type,
            business_id: first.business_id,
            webhook_id: w.id,
            url: w.url,
            payload,
            batched_event_ids: others,
          },
          now,
        );
      }
      // No receiver registered: nothing to deliver, the events are done at once.
      for (const e of group)
        await tx.outbox.markFanned(e.seq, e === first ? null : first.id, now, targets.length === 0);
    }
    return {
      events: fresh.length,
      holdMs: holdUntil === undefined ? undefined : Math.max(1, holdUntil - now),
    };
  }

  /** At most once a second: a dead instance's leases (shared store) become due again at once. */
  private async takeOverOrphans(tx: Tx, now: number): Promise<void> {
    if (!tx.deliveries.releaseOrphaned || now - this.orphansLookedAt < ORPHAN_LOOK_MS) return;
    this.orphansLookedAt = now;
    await tx.deliveries.releaseOrphaned(now);
  }

  /** Leases the due deliveries there is room for (per URL and in all). */
  private async claim(tx: Tx, now: number): Promise<ClaimedDelivery[]> {
    const room = this.maxInFlight - this.total;
    if (room <= 0) return [];
    const due = await tx.deliveries.due(now, room * 4, this.perFastUrl);
    const out: ClaimedDelivery[] = [];
    const taken = new Map<string, number>();
    for (const d of due) {
      if (out.length >= room) break;
      const busy = (this.inFlight.get(d.url) ?? 0) + (taken.get(d.url) ?? 0);
      const slots = this.slotsOf(d.url);
      if (busy >= slots) continue; // a slow receiver waits its turn; others go on
      // A store shared by several processes counts every process's leases on the URL against
      // this window (and may refuse): the bound holds across instances.
      const c = await tx.deliveries.claim(d.id, this.owner, now + LEASE_MS, now, slots);
      if (!c) {
        // Refused: the URL is full across instances (or another instance is judging it now);
        // its other rows wait for the next look instead of being refused one by one.
        taken.set(d.url, slots);
        continue;
      }
      taken.set(d.url, (taken.get(d.url) ?? 0) + 1);
      out.push(c);
    }
    return out;
  }

  private slotsOf(url: string): number {
    return this.window.get(url) ?? this.perUrl;
  }

  /** A quick 2xx widens the URL's window by one; a slow or failed attempt narrows it back. */
  private learn(url: string, ok: boolean, ms: number): void {
    const w = this.slotsOf(url);
    const next = ok && ms < this.fastMs ? Math.min(this.perFastUrl, w + 1) : this.perUrl;
    if (next === this.perUrl) this.window.delete(url);
    else this.window.set(url, next);
  }

  private takeFinished(): Finished[] {
    const f = this.finished;
    this.finished = [];
    return f;
  }

  private async recordAll(tx: Tx, finished: readonly Finished[]): Promise<void> {
    if (finished.length === 0) return;
    // All of them in one part of the unit (one savepoint, not one each: a burst's look records
    // dozens); should one fail, each again in a part of its own.
    const all = await tx
      .attempt(async () => {
        for (const f of finished) await this.record(tx, f);
        return true;
      })
      .catch(() => false);
    if (all) return;
    for (const f of finished) {
      // One attempt that cannot be recorded (its row gone?) does not take the others with it:
      // its lease lapses and it is sent again.
      await tx.attempt(() => this.record(tx, f)).catch((err) => this.o.logErrors?.(err));
    }
  }

  private send(d: ClaimedDelivery, sealed: string | undefined): void {
    this.total++;
    this.inFlight.set(d.url, (this.inFlight.get(d.url) ?? 0) + 1);
    const p = this.attempt(d, sealed)
      .then((f) => {
        this.learn(d.url, isDelivered(f.status), f.ms);
        this.finished.push(f);
      })
      // Stopping closes the store under a late attempt: its lease lapses and it is sent again.
      .catch((err) => {
        if (this.running) this.o.logErrors?.(err);
      })
      .finally(() => {
        this.total--;
        const n = (this.inFlight.get(d.url) ?? 1) - 1;
        if (n === 0) this.inFlight.delete(d.url);
        else this.inFlight.set(d.url, n);
        this.sends.delete(p);
        this.kick();
      });
    this.sends.add(p);
  }

  /** The business's signing secret: opened once per sealed value (made on first use when there is none). */
  private async secretOf(businessId: number, sealed: string | undefined): Promise<string> {
    if (sealed === undefined) return webhookSecret(this.o.store, this.o.sealer, businessId, this.o.now());
    let secret = this.secrets.get(sealed);
    if (secret === undefined) {
      secret = this.o.sealer.open(sealed);
      if (this.secrets.size >= MAX_SECRETS) this.secrets.clear();
      this.secrets.set(sealed, secret);
    }
    return secret;
  }

  private async attempt(d: ClaimedDelivery, sealed: string | undefined): Promise<Finished> {
    let secret: string;
    try {
      secret = await this.secretOf(d.business_id, sealed);
    } catch (err) {
      return { d, status: undefined, ms: 0, error: `no signing secret: ${(err as Error).message}` };
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
    return { d, status, ms: Math.round(performance.now() - started), error, at: this.o.now() };
  }

  private async record(tx: Tx, f: Finished): Promise<void> {
    const { d, status } = f;
    const now = f.at ?? this.o.now();
    await tx.deliveries.recordAttempt(d.id, {
      attempt: d.attempts,
      at: new Date(now).toISOString(),
      status_code: status ?? null,
      duration_ms: f.ms,
      error: f.error,
    });
    if (isDelivered(status)) await tx.deliveries.settle(d.id, { status: 'delivered' }, now);
    else {
      const delay = retryDelay(this.o.retrySchedule, d.attempts - d.budget_start, this.o.random);
      await tx.deliveries.settle(
        d.id,
        delay === undefined ? { status: 'failed' } : { status: 'pending', nextAttemptMs: now + delay },
        now,
      );
    }
    await this.settleEvent(tx, d.event_seq, d.event_id, now);
  }

  /** Keeps the outbox row's status (and that of events batched into it) in step with its deliveries. */
  private async settleEvent(tx: Tx, seq: number, eventId: string, now: number): Promise<void> {
    const rows = await tx.deliveries.ofEvent(eventId);
    const status = eventStatus(rows.map((r) => r.status));
    const attempts = rows.reduce((m, r) => Math.max(m, r.attempts), 0);
    await tx.outbox.settle(seq, eventId, status, attempts, now);
  }

  private arm(now: number, nextDue: number | null, batchWait: number | undefined): void {
    let wait = this.idleMs;
    if (nextDue !== null) wait = Math.min(wait, Math.max(1, nextDue - now));
    if (batchWait !== undefined) wait = Math.min(wait, batchWait);
    // A full pipe is drained by the send completions, which kick again.
    this.setTimer(wait);
  }

  private setTimer(wait: number): void {
    clearTimeout(this.timer);
    if (!this.running) return;
    this.timer = setTimeout(() => void this.tick(), wait);
    this.timer.unref();
  }
}

/** An attempt that has ended, waiting to be recorded. */
interface Finished {
  d: ClaimedDelivery;
  status: number | undefined;
  ms: number;
  error: string | null;
  /** When it ended. */
  at?: number;
}

function batchPayload(group: readonly UnfannedEvent[]): string {
  const first = JSON.parse(group[0]!.payload) as { brand_id: number; branch_id: number };
  const orders = group.flatMap((e) => (JSON.parse(e.payload) as { orders: unknown[] }).orders);
  return JSON.stringify({ brand_id: first.brand_id, branch_id: first.branch_id, orders });
}
