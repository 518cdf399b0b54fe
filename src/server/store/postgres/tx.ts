import type { PoolClient, QueryConfig } from 'pg';
import type { PgClaims } from './idempotency-repo.js';
import type { PgConn } from './pipe.js';
import { type Query, q } from '../sql/query.js';
import { SqlUnit } from '../sql/unit.js';

/** A unit used past its end, or a write from a read unit: a bug in the caller, said loudly. */
export class PgUnitError extends Error {
  override name = 'PgUnitError';
}

/** `peek`: one read statement outside any transaction (PgStore.peek). */
export type PgUnitMode = 'read' | 'write' | 'peek';

/**
 * A unit on the cheap path needs what it skipped (a read unit's second statement, a failed
 * attempt() that wrote without a savepoint): the store runs it again on the full path. A unit
 * awaits nothing but the store, so a rerun has no other effect (as when retrying a deadlock).
 */
export class PgRestart extends Error {
  override name = 'PgRestart';
}

/** First statements of read units that went on to run more (see PgTx.query). */
const multiStatement = new Set<string>();

const LAPSED = q('DELETE FROM idempotency_claims WHERE lease_until_ms < ?');

/** A write waiting for the end of a unit on the one-statement path (PgTx.flush). */
interface Deferred {
  text: string;
  values: unknown[];
  /** Whether it must change exactly one row (else any number). */
  exact: boolean;
  table: string;
}

// What the one-statement path cannot do (PgTx.optimistic).
const LOCKS = /\bFOR (UPDATE|NO KEY UPDATE|SHARE|KEY SHARE)\b|pg_advisory/i;
const DEFERRABLE = /^\s*(INSERT|UPDATE|DELETE)\b/i;
const RETURNING = /\bRETURNING\b/i;
const WRITTEN = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)/i;
const READ_FROM = /\b(?:FROM|JOIN|INTO|UPDATE)\s+(\w+)/gi;

/** What a unit needs to know of a statement text, worked out once per text. */
interface Shape {
  /** Its prepared statement's name: node-postgres parses and plans it once per connection. */
  name: string;
  /** On the one-statement path: goes out at once (a read), waits for the end (defer), or cannot. */
  kind: 'read' | 'defer' | 'no';
  /** The tables it names (as a read); the one it writes ('*': not known). */
  reads: string[];
  writes: string;
}
const shapes = new Map<string, Shape>();
function shapeOf(text: string): Shape {
  let s = shapes.get(text);
  if (s === undefined) {
    const writes = DEFERRABLE.test(text);
    s = {
      name: `p${shapes.size}`,
      kind: LOCKS.test(text) || (writes && RETURNING.test(text)) ? 'no' : writes ? 'defer' : 'read',
      reads: [...text.matchAll(READ_FROM)].map((m) => m[1]!.toLowerCase()),
      writes: WRITTEN.exec(text)?.[1]?.toLowerCase() ?? '*',
    };
    shapes.set(text, s);
  }
  return s;
}

/** The one statement of a unit's deferred writes, per sequence of statement texts (see flush). */
const combined = new Map<string, string>();
/** Raised by the combined statement when a write did not change what it promised (see flush). */
const MISSED = '22012';

/**
 * One unit's handle on its pooled connection, inside BEGIN … COMMIT (store.ts). Repositories reach
 * SQL only through the Sql seam (and `exec`), which check that the unit is still running (and may
 * write): a handle kept past its unit fails instead of touching whatever the connection does next.
 */
export class PgTx extends SqlUnit {
  readonly dialect = 'postgres';
  state: 'running' | 'done' = 'running';
  wrote = false;
  /** Whether it wrote something the commit hooks are for (not only Query.quiet statements). */
  wakes = false;
  /**
   * The one-statement path (every write unit's first run): no BEGIN, no row locks. Reads go out at
   * once, each on its own snapshot (what READ COMMITTED gives a transaction's statements too);
   * writes wait for `flush`. A write that missed (an order changed meanwhile: its versioned write;
   * an answer stored meanwhile) commits nothing, and the unit runs again on the full path, where
   * locks make it wait its turn; so does, at once, a unit that needs a lock, a written row back,
   * or a read of a table it has a write waiting for (which it would not see).
   */
  readonly optimistic: boolean;
  private deferred: Deferred[] = [];
  /** Run after the unit has committed (the claims' bookkeeping). */
  readonly afterCommit: (() => void)[] = [];
  /** Set when the connection is in doubt after a failed flush: the store discards it. */
  broken?: Error;
  /** Each unit is its own transaction: it never sees another unit's uncommitted writes. */
  readonly readsCommittedOnly = true;
  private savepoints = 0;
  /** Whether its transaction has begun (a read unit's lazily: `query`). */
  begun: boolean;
  /** Round trips to PostgreSQL, told to the store (PgStore.stats). */
  roundTrips = 0;
  /** Statements that wrote so far (attempt() rolls back without a savepoint only if none did). */
  private writes = 0;
  private statements = 0;
  /** The pooled connection a read unit on the pipe took to begin its transaction. */
  pooled?: PoolClient;
  private beginning?: Promise<void>;
  private firstText?: string;
  /** Checked by the store however `fn` ended: a caller that catches the PgRestart never commits. */
  restart?: PgRestart;
  /** The advisory locks this unit holds, `class:object`. */
  private held?: Set<string>;

  constructor(
    /** A pooled connection, or the shared pipe for a unit that runs no transaction (PgPipe). */
    private client: PgConn,
    readonly mode: PgUnitMode,
    /** The store's Idempotency-Key claims: a unit that stores a key's answer gives its claim back. */
    private readonly claims: PgClaims | undefined,
    /**
     * Restarts so far (PgRestart). 0: a read unit begins lazily, a write unit runs on the
     * one-statement path. 1 (the full path): a read unit begins before its first statement, a
     * write unit runs in BEGIN … COMMIT, attempt() taking no savepoint at first. 2: it takes one.
     */
    readonly level: 0 | 1 | 2 = 0,
    /** When `client` is the pipe: where a read unit takes a connection to begin (`pooled`). */
    private readonly acquire?: () => Promise<PoolClient>,
  ) {
    super();
    this.begun = mode === 'write' && level > 0;
    this.optimistic = mode === 'write' && level === 0;
  }

  private check(write: boolean): void {
    if (this.state !== 'running')
      throw new PgUnitError('this unit of work has ended: its store can no longer be used');
    if (this.restart) throw this.restart;
    if (write && this.mode !== 'write') throw new PgUnitError('a read unit cannot write');
    // A statement sees one snapshot by itself; a second would see another.
    if (this.mode === 'peek' && this.statements > 0)
      throw new PgUnitError('a peek runs one statement: use a read unit for more');
  }

  /**
   * A read unit's first statement runs alone (it sees one snapshot by itself: one round trip where
   * BEGIN … COMMIT takes three). A second one must see the same snapshot, which a transaction
   * begun now would not: the unit restarts on the full path, and units starting with the same
   * text begin their transaction at once from then on (`multiStatement`).
   */
  private async query(text: string, values: readonly unknown[] | undefined) {
    const shape = shapeOf(text);
    if (this.optimistic) {
      if (shape.kind !== 'read')
        throw this.restartOn('a unit that locks or reads back a write runs on the full path');
      if (
        this.deferred.length > 0 &&
        this.deferred.some((w) => w.table === '*' || shape.reads.includes(w.table))
      )
        throw this.restartOn('a read after a deferred write to its table would not see it: the full path');
    }
    const first = this.statements++ === 0;
    if (this.mode === 'read' && !this.begun) {
      if (this.beginning) await this.beginning;
      else if (!first) {
        multiStatement.add(this.firstText!);
        throw this.restartOn('a read unit ran a second statement: it needs a transaction');
      } else {
        this.firstText = text;
        if (this.level > 0 || multiStatement.has(text)) {
          this.beginning = this.begin();
          await this.beginning;
        }
      }
    }
    const q: QueryConfig = { name: shape.name, text, values: values as unknown[] };
    this.roundTrips++;
    return this.client.query(q);
  }

  private async begin(): Promise<void> {
    if (this.acquire) {
      this.pooled = await this.acquire();
      this.client = this.pooled;
    }
    this.roundTrips++;
    await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    this.begun = true;
  }

  private restartOn(why: string): PgRestart {
    this.restart ??= new PgRestart(why);
    return this.restart;
  }

  /** Resolves once a BEGIN under way has returned (whether it succeeded or not). */
  async settled(): Promise<void> {
    await this.beginning?.catch(() => undefined);
  }

  /**
   * Runs a statement that writes ($1… placeholders); resolves to the affected row count. `exact`:
   * on the one-statement path it must change one row (else any number: giving a claim back).
   */
  async exec(text: string, values?: readonly unknown[], quiet = false, exact = true): Promise<number> {
    this.check(true);
    this.wrote = true;
    if (!quiet) this.wakes = true;
    this.writes++;
    if (this.optimistic) {
      const shape = shapeOf(text);
      if (shape.kind === 'defer') {
        this.deferred.push({ text, values: values ? [...values] : [], exact, table: shape.writes });
        return 1;
      }
    }
    return (await this.query(text, values)).rowCount ?? 0;
  }

  /**
   * The one-statement path's end: the deferred writes as data-modifying CTEs of one statement,
   * which PostgreSQL runs and commits atomically by itself. Its SELECT divides by zero (22012,
   * raised by nothing else here) when a write meant to change one row did not: nothing commits.
   */
  async flush(): Promise<void> {
    const d = this.deferred;
    if (d.length === 0) return;
    const key = d.map((w) => (w.exact ? '1' : '*') + w.text).join('\0');
    let text = combined.get(key);
    if (text === undefined) {
      let offset = 0;
      const ctes: string[] = [];
      const checks: string[] = [];
      d.forEach((w, i) => {
        const at = offset;
        ctes.push(
          `w${i} AS (${w.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + at}`)} RETURNING 1)`,
        );
        checks.push(`(SELECT count(*) FROM w${i}) ${w.exact ? '= 1' : '>= 0'}`);
        offset += w.values.length;
      });
      text = `WITH ${ctes.join(', ')} SELECT 1 / (CASE WHEN ${checks.join(' AND ')} THEN 1 ELSE 0 END) AS ok`;
      if (combined.size < 1000) combined.set(key, text);
    }
    this.roundTrips++;
    // On a pooled connection, which commits with synchronous_commit on: a 2xx stands on this
    // write, and the pipe's connections do not wait for the disk (PgPipe).
    const pooled = this.acquire ? await this.acquire() : undefined;
    let inDoubt: Error | undefined;
    try {
      await (pooled ?? this.client).query({
        name: shapeOf(text).name,
        text,
        values: d.flatMap((w) => w.values),
      });
    } catch (err) {
      if ((err as { code?: string }).code === MISSED)
        throw this.restartOn('a write missed what it promised: the full path');
      // A database error rolled the statement back; anything else leaves its outcome unknown.
      if (!isDatabaseError(err)) inDoubt = this.broken = err as Error;
      throw err;
    } finally {
      pooled?.release(inDoubt);
    }
  }

  // The Sql seam (store/sql/query.ts).
  get writing(): boolean {
    return this.mode === 'write';
  }

  private read(query: Query, args: readonly unknown[] | undefined) {
    this.check(false);
    return this.query(query.postgres, args);
  }

  async all<T>(query: Query, args?: readonly unknown[]): Promise<T[]> {
    return (await this.read(query, args)).rows as T[];
  }

  async get<T>(query: Query, args?: readonly unknown[]): Promise<T | undefined> {
    return (await this.read(query, args)).rows[0] as T | undefined;
  }

  async column<T>(query: Query, args?: readonly unknown[]): Promise<T[]> {
    const r = await this.read(query, args);
    const f = r.fields[0]?.name;
    return f === undefined ? [] : r.rows.map((row) => (row as Record<string, T>)[f]!);
  }

  async value<T>(query: Query, args?: readonly unknown[]): Promise<T | undefined> {
    return (await this.column<T>(query, args))[0];
  }

  run(query: Query, args?: readonly unknown[]): Promise<number> {
    return this.exec(query.postgres, args, query.quiet);
  }

  /** A write whose rows come back (`… RETURNING`): never deferred. */
  async write<T>(query: Query, args?: readonly unknown[]): Promise<T[]> {
    this.check(true);
    if (this.optimistic) throw this.restartOn('a write whose rows come back runs on the full path');
    this.wrote = true;
    this.wakes = true;
    this.writes++;
    return (await this.query(query.postgres, args)).rows as T[];
  }

  list(values: readonly (number | string)[]): readonly (number | string)[] {
    return values;
  }

  /**
   * Runs `fn` so that its writes can be rolled back alone when it throws: dropped on the
   * one-statement path (they have not gone out), a savepoint where one is needed on the full
   * path. An error of PostgreSQL itself aborts the whole transaction and is passed on as it is.
   */
  async attempt<T>(fn: () => Promise<T>): Promise<T> {
    if (this.mode !== 'write') return fn();
    this.check(true);
    if (this.optimistic) {
      // Its writes are still here: dropping them is the savepoint.
      const before = this.deferred.length;
      try {
        return await fn();
      } catch (err) {
        if (this.state === 'running' && !this.restart) this.deferred.length = before;
        throw err;
      }
    }
    if (this.level < 2) {
      // No savepoint at first (SAVEPOINT and RELEASE are two round trips): most attempts succeed
      // or fail before writing (a 404, a refused transition). One that wrote and failed makes
      // the unit run again with a savepoint per attempt.
      const before = this.writes;
      try {
        return await fn();
      } catch (err) {
        if (this.writes !== before && this.state === 'running' && !isDatabaseError(err))
          throw this.restartOn('a failed attempt wrote: it needs a savepoint');
        throw err;
      }
    }
    const name = `part${++this.savepoints}`;
    this.roundTrips++;
    await this.client.query(`SAVEPOINT ${name}`);
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      if (this.state === 'running') await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    }
    this.check(true);
    this.roundTrips++;
    await this.client.query(`RELEASE SAVEPOINT ${name}`);
    return value;
  }

  releaseClaim(credentialKey: string, key: string): Promise<void> {
    return this.claims?.releaseIn(this, credentialKey, key) ?? Promise.resolve();
  }

  async purgeLapsedClaims(now: number): Promise<void> {
    await this.run(LAPSED, [now]);
  }

  /**
   * A transaction-scoped advisory lock on `id` of class `kind`, once per unit, that makes two
   * instances' units take turns as SQLite's single writer does. It is a statement of its own, so
   * the read after it sees what the unit that held it committed.
   */
  private async lockOnce(kind: number, id: number): Promise<void> {
    const name = `${kind}:${id}`;
    if (this.held?.has(name)) return;
    await this.exec('SELECT pg_advisory_xact_lock($1::int, ($2::bigint % 2147483648)::int)', [kind, id]);
    this.held ??= new Set();
    this.held.add(name);
  }

  /**
   * Sync, publish, store-level edits and enable toggles read a store layer, change it (or build
   * snapshots and the next version from it) and write back: under READ COMMITTED two instances
   * doing that for one brand would each work from what the other has not committed yet (a
   * publish shipping a layer a concurrent sync just replaced). So a unit's first layer read locks
   * the brand. Advisory rather than `FOR UPDATE` on the layer rows: a branch's first sync has no
   * row to lock yet, and one lock per brand cannot deadlock two publishes that name its branches
   * in different orders. A savepoint rolled back releases the locks taken inside it; this relies
   * on nothing reading a layer again after a failed `attempt()` in the same unit (the handler is
   * the whole attempt; what follows only stores the answer).
   */
  lockBrandLayers(brandId: number): Promise<void> {
    return this.lockOnce(LAYERS_LOCK, brandId);
  }

  /**
   * In a write unit a SKU is locked before it is looked up (as lockOnce): the caller checks that
   * no other item has it, then writes; two instances doing that at once would both pass the
   * check, and the second would hit the unique index (a 500) instead of the "already uses" answer.
   */
  async lockSku(brandId: number, sku: string): Promise<void> {
    await this.exec('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [SKU_LOCK, `${brandId}:${sku}`]);
  }

  /**
   * A write unit's first state read of a branch locks it (see lockBrandLayers on savepoints): two
   * instances changing one branch's items would otherwise each start from what the other had not
   * committed yet (a lost change, a "went out" counted twice).
   */
  lockBranchStates(branchId: number): Promise<void> {
    return this.lockOnce(STATE_LOCK, branchId);
  }
}

/** An error PostgreSQL raised (it carries a SQLSTATE): the transaction is aborted by it. */
function isDatabaseError(err: unknown): boolean {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string' && 'severity' in err;
}

/** The advisory-lock class of "a brand's menu layers" ('menu' in ASCII); the brand id is the object. */
const LAYERS_LOCK = 0x6d656e75;
/** The advisory-lock class of "a SKU of a brand" ('sku ' in ASCII). */
const SKU_LOCK = 0x736b7520;
/** The advisory-lock class of "a branch's item states" ('stat' in ASCII); the branch id is the object. */
const STATE_LOCK = 0x73746174;
