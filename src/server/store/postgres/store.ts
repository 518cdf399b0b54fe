import { randomBytes } from 'node:crypto';
import type { Client, Pool } from 'pg';
import type { Store, UnitFn } from '../store.js';
import { INSTANCE_LOCK } from '../sql/deliveries-repo.js';
import { PgClaims } from './idempotency-repo.js';
import { migrate } from './migrations.js';
import { PgPipe } from './pipe.js';
import { openClient, openPool, type PgPoolOptions } from './pool.js';
import { PgRateLimits } from './rate-limits-repo.js';
import { PgRestart, PgTx, PgUnitError, type PgUnitMode } from './tx.js';
import { asUnavailable } from './unavailable.js';

const OUTBOX_CHANNEL = 'partner_outbox';

/**
 * The unit lost a race and runs again: a deadlock, a serialization failure, a constraint another
 * instance's commit broke between this unit's check and its write (a foreign key to a row just
 * deleted, a unique value just taken), which the rerun's own check then answers (404, 409). A
 * constraint the unit itself breaks fails each time and ends as an internal error.
 */
const RETRYABLE = new Set(['40P01', '40001', '23503', '23505']);
const MAX_RETRIES = 3;
/** Connections of the pipe: one is enough for the measured load; a second keeps one slow statement from holding up every other. */
const PIPE_CONNECTIONS = 2;

interface PgStoreOptions extends PgPoolOptions {
  /** Told about errors of the notification listener (it reconnects by itself). */
  logErrors?: (err: unknown) => void;
}

/**
 * The shared backend: N instances on one PostgreSQL database are one service (docs/development.md,
 * "The unit of work"). A unit runs on the cheap path first (PgTx) and, when that will not do, in
 * BEGIN … COMMIT on a pooled connection, READ COMMITTED with row locks where what must not
 * interleave is read; read units READ ONLY REPEATABLE READ. `write` resolves after COMMIT has
 * returned: a 2xx means committed. Commit hooks (the dispatcher's wake-up) fire after this
 * instance's commits that wrote (but for Query.quiet writes), and on `partner_outbox`
 * notifications, which the outbox insert sends at commit.
 */
export class PgStore implements Store {
  readonly claims: PgClaims;
  readonly rateLimits: PgRateLimits;
  /** Held as a session lock on the notification connection: the others see this instance alive. */
  readonly instance = `${process.pid}:${randomBytes(6).toString('hex')}`;
  private readonly hooks = new Set<() => void>();
  private readonly rollbacks = new Set<() => void>();
  private listener: Client | undefined;
  private listening = false;
  private reconnect: NodeJS.Timeout | undefined;
  /** Round trips of units (statements, BEGIN, COMMIT, savepoints) and units run again on the full path. */
  readonly stats = { roundTrips: 0, restarts: 0 };
  /** Connections in pipeline mode for one-statement work outside transactions (PgPipe). */
  private readonly pipe: PgPipe;
  private active = 0;
  private idle: (() => void)[] = [];
  private closed = false;

  private constructor(
    readonly pool: Pool,
    private readonly url: string,
    private readonly opts: PgStoreOptions,
  ) {
    this.pipe = new PgPipe(url, PIPE_CONNECTIONS, opts.connectTimeoutMs ?? 5_000);
    // Their one statement each outside any unit: a database away is a 502, as for units.
    const guarded = (on: { query: unknown }) =>
      ({
        query: (...args: unknown[]) =>
          (on.query as (...a: unknown[]) => Promise<unknown>).apply(on, args).catch((err: unknown) => {
            throw asUnavailable(err);
          }),
      }) as unknown as Pool;
    const piped = guarded(this.pipe);
    this.claims = new PgClaims(piped);
    this.rateLimits = new PgRateLimits(this.claims, piped, guarded(pool));
    // An idle pooled connection that fails (the server restarted) is dropped by the pool; without
    // a listener its error would be thrown at the process.
    pool.on('error', (err) => opts.logErrors?.(err));
  }

  /** Connects, migrates (under an advisory lock: concurrent starts are safe) and listens. */
  static async open(url: string, opts: PgStoreOptions = {}): Promise<PgStore> {
    const pool = openPool(url, opts);
    try {
      await migrate(pool);
      const store = new PgStore(pool, url, opts);
      await store.listen(true);
      return store;
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
  }

  read<T>(fn: UnitFn<T>): Promise<T> {
    return this.run('read', fn);
  }

  write<T>(fn: UnitFn<T>): Promise<T> {
    return this.run('write', fn);
  }

  /**
   * A read of exactly one statement outside any transaction (it sees one snapshot by itself; a
   * second statement fails): the per-request credential check, in one round trip.
   */
  peek<T>(fn: UnitFn<T>): Promise<T> {
    return this.run('peek', fn);
  }

  onCommit(fn: () => void): () => void {
    this.hooks.add(fn);
    return () => this.hooks.delete(fn);
  }

  /** `fn` runs after a write unit that wrote was rolled back (caches built from its writes go). */
  onRollback(fn: () => void): () => void {
    this.rollbacks.add(fn);
    return () => this.rollbacks.delete(fn);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnect);
    while (this.active > 0) await new Promise<void>((r) => this.idle.push(r));
    const l = this.listener;
    this.listener = undefined;
    await l?.end().catch(() => undefined);
    await this.pipe.end();
    await this.pool.end();
  }

  private async run<T>(mode: PgUnitMode, fn: UnitFn<T>): Promise<T> {
    if (this.closed) throw new PgUnitError('the store is closed');
    this.active++;
    try {
      let level: 0 | 1 | 2 = 0;
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.once(mode, fn, level);
        } catch (err) {
          if (err instanceof PgRestart && level < 2) {
            level = level === 0 ? 1 : 2;
            this.stats.restarts++;
            attempt--;
            continue;
          }
          const code = (err as { code?: string }).code;
          if (attempt < MAX_RETRIES && code !== undefined && RETRYABLE.has(code)) continue;
          // Not run again: a write whose COMMIT was cut off may have committed (its
          // Idempotency-Key answers the client's retry either way).
          throw asUnavailable(err);
        }
      }
    } finally {
      if (--this.active === 0) for (const r of this.idle.splice(0)) r();
    }
  }

  private async once<T>(mode: PgUnitMode, fn: UnitFn<T>, level: 0 | 1 | 2): Promise<T> {
    // A first run begins no transaction (a read of one statement, a write on the one-statement
    // path): the pipe carries it. A transaction takes a pooled connection (PgTx.acquire).
    const client = level === 0 ? undefined : await this.pool.connect();
    const tx = new PgTx(
      client ?? this.pipe,
      mode,
      this.claims,
      level,
      client ? undefined : () => this.pool.connect(),
    );
    /** The unit's transaction's connection, once it has one. */
    const inTx = () => (client ?? tx.pooled)!;
    let broken: Error | undefined;
    try {
      // A read unit begins its transaction only if it needs one (PgTx.query); a write unit only
      // on the full path (PgTx.optimistic).
      if (tx.begun) {
        tx.roundTrips++;
        await inTx().query('BEGIN');
      }
      let value: T;
      try {
        value = await fn(tx);
        if (tx.restart) throw tx.restart;
        if (tx.optimistic) await tx.flush();
      } catch (err) {
        tx.state = 'done';
        broken = tx.broken;
        // A read unit's BEGIN may still be on its way: wait for it so the ROLLBACK below ends it.
        await tx.settled();
        if (tx.begun) {
          tx.roundTrips++;
          await inTx()
            .query('ROLLBACK')
            .catch((e: Error) => {
              broken = e;
            });
        }
        if (tx.wrote) for (const f of this.rollbacks) f();
        throw tx.restart ?? err;
      }
      tx.state = 'done';
      await tx.settled();
      if (tx.begun) {
        try {
          tx.roundTrips++;
          await inTx().query('COMMIT');
        } catch (err) {
          // The connection may be gone with the transaction's outcome unknown: never reuse it.
          broken = err as Error;
          if (tx.wrote) for (const f of this.rollbacks) f();
          throw err;
        }
      }
      for (const f of tx.afterCommit) f();
      if (tx.wakes) this.fire();
      return value;
    } finally {
      this.stats.roundTrips += tx.roundTrips;
      (client ?? tx.pooled)?.release(broken);
    }
  }

  private fire(): void {
    for (const fn of this.hooks) fn();
  }

  /** LISTEN on a connection of its own; on loss, reconnects and fires the hooks (events may have been missed). */
  private async listen(first = false): Promise<void> {
    if (this.closed || this.listening) return;
    this.listening = true;
    const client = openClient(this.url);
    const retry = (err: unknown) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.listening = false;
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.opts.logErrors?.(err);
      this.reconnect = setTimeout(() => void this.listen().catch(() => undefined), 1_000);
      this.reconnect.unref();
    };
    this.listener = client;
    client.on('error', retry);
    client.on('end', () => retry(new Error('notification connection ended')));
    client.on('notification', () => this.fire());
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      // Retaken on every reconnect. While the connection is lost the others may take this
      // instance's leases over: a delivery may then go out twice, with its one event id.
      await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [INSTANCE_LOCK, this.instance]);
      this.fire();
    } catch (err) {
      if (!first) return retry(err);
      this.listener = undefined;
      this.listening = false;
      await client.end().catch(() => undefined);
      throw err;
    }
  }
}
