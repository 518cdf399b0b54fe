// The seam every repository is written against, once for both backends (store/sql/*-repo.ts).
// A statement is written once with `?` placeholders (or as a function of the `Dialect` fragments
// where the dialects differ) and made into each dialect's text once, when its module loads:
// nothing is built per call. Each backend's unit handle (SqliteTx, PgTx) implements `Sql`. No
// better-sqlite3 or pg here (test/server/architecture.test.ts).

export type DialectName = 'sqlite' | 'postgres';

/** What the two dialects spell differently, as fragments of SQL text. */
export interface Dialect {
  readonly name: DialectName;
  /**
   * `col IN <list>` for a list passed as one parameter (`Sql.list(values)`), so the statement's
   * text does not change with the list's length.
   */
  inList(type: 'bigint' | 'int' | 'text'): string;
  /** The same list as a table with columns `value` and `n` (its position, for ORDER BY). */
  setOf(type: 'bigint' | 'int' | 'text'): string;
  /** `FOR NO KEY UPDATE` on PostgreSQL (a row read to be written back), nothing on SQLite. */
  readonly lockShared: string;
  /** `FOR UPDATE` on PostgreSQL (a row read to be changed by whoever holds it), nothing on SQLite. */
  readonly lockRow: string;
  /** `FOR UPDATE SKIP LOCKED` on PostgreSQL (work another instance has taken is left to it). */
  readonly lockSkip: string;
  /**
   * The next id of a table whose writer takes it first (orders, the outbox seq), never one handed
   * out before: SQLite's `max + 1` holds as nothing deletes from those tables.
   */
  nextId(table: string, column: string): string;
  /** A boolean literal (SQLite keeps 0/1, which its partial indexes name). */
  bool(v: boolean): string;
  /**
   * An outbox event's `fanned_out` from its parameter (true: no registration receives it); on
   * PostgreSQL an event not fanned out also notifies `channel`, in the statement that inserts it:
   * every listening instance hears of it once it commits, never if it rolls back.
   */
  fannedOutNotifying(channel: string): string;
  /** A parameter bound into a JSON column (PostgreSQL's `json`, text on SQLite). */
  readonly jsonParam: string;
}

const SQLITE: Dialect = {
  name: 'sqlite',
  inList: () => 'IN (SELECT value FROM json_each(?))',
  setOf: () => '(SELECT value, key AS n FROM json_each(?))',
  lockShared: '',
  lockRow: '',
  lockSkip: '',
  nextId: (table, column) => `(SELECT coalesce(max(${column}), 0) + 1 FROM ${table})`,
  bool: (v) => (v ? '1' : '0'),
  fannedOutNotifying: () => '?',
  jsonParam: '?',
};

const POSTGRES: Dialect = {
  name: 'postgres',
  inList: (type) => `= ANY(?::${type}[])`,
  setOf: (type) => `(SELECT value, n FROM unnest(?::${type}[]) WITH ORDINALITY AS u(value, n))`,
  lockShared: ' FOR NO KEY UPDATE',
  lockRow: ' FOR UPDATE',
  lockSkip: ' FOR UPDATE SKIP LOCKED',
  nextId: (table, column) => `nextval(pg_get_serial_sequence('${table}', '${column}'))`,
  bool: (v) => (v ? 'true' : 'false'),
  // The notify runs only when the CASE reaches it (an initplan is evaluated when first needed).
  fannedOutNotifying: (channel) =>
    `CASE WHEN CAST(? AS boolean) THEN true ELSE (SELECT false FROM pg_notify('${channel}', '')) END`,
  jsonParam: 'CAST(? AS json)',
};

/** `?` → `$1, $2, …`, outside quoted strings and identifiers. */
function numbered(text: string): string {
  let n = 0;
  let out = '';
  let quote: string | undefined;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '?') {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}

/** One statement in both dialects' texts. The backends may keep their prepared form on it. */
export class Query {
  readonly sqlite: string;
  readonly postgres: string;
  /** SQLite: the statement prepared on the connection `cachedOn` (the common case: one per process). */
  cached?: unknown;
  cachedOn?: unknown;
  /**
   * A write nothing waits to hear about (an order's record, a stored answer, a settled event): a
   * unit whose writes are all quiet does not fire the store's commit hooks (the dispatcher's).
   */
  quiet = false;

  constructor(text: string | ((d: Dialect) => string), opts: { quiet?: boolean } = {}) {
    this.quiet = opts.quiet ?? false;
    this.sqlite = typeof text === 'string' ? text : text(SQLITE);
    this.postgres = numbered(typeof text === 'string' ? text : text(POSTGRES));
  }
}

/** A statement written once (see the top of this file). */
export const q = (text: string | ((d: Dialect) => string), opts?: { quiet?: boolean }): Query =>
  new Query(text, opts);

/**
 * A read of rows the caller may write back from what it read (a merge, `forUpdate`): in a write
 * unit on a shared store they stay locked until the unit ends (`lock`: `Dialect.lockShared` by
 * default), so two instances' merges cannot lose one another's change. Both statements are made once.
 */
export class Lockable {
  private readonly plain: Query;
  private readonly locked: Query;

  constructor(
    text: string | ((d: Dialect) => string),
    lock: 'lockShared' | 'lockRow' | 'lockSkip' = 'lockShared',
  ) {
    this.plain = new Query(text);
    this.locked = new Query((d) => (typeof text === 'string' ? text : text(d)) + d[lock]);
  }

  /** The statement for this unit: locked only when asked for in a write unit. */
  in(db: Sql, forUpdate: boolean): Query {
    return forUpdate && db.writing ? this.locked : this.plain;
  }
}

/** Statements built from a request's filter shape (`key`): made once per shape and kept. */
export class QueryCache {
  private readonly byText = new Map<string, Query>();
  constructor(private readonly build: (d: Dialect, key: string) => string) {}

  get(key: string): Query {
    let found = this.byText.get(key);
    if (!found) {
      found = new Query((d) => this.build(d, key));
      if (this.byText.size < 1000) this.byText.set(key, found);
    }
    return found;
  }
}

/** A unit of work's access to SQL, implemented by each backend's unit handle. */
export interface Sql {
  readonly dialect: DialectName;
  /** Whether this is a write unit (row locks are taken only there). */
  readonly writing: boolean;
  all<T>(query: Query, args?: readonly unknown[]): Promise<T[]>;
  get<T>(query: Query, args?: readonly unknown[]): Promise<T | undefined>;
  /** The first column of every row. */
  column<T>(query: Query, args?: readonly unknown[]): Promise<T[]>;
  /** The first column of the first row, or undefined. */
  value<T>(query: Query, args?: readonly unknown[]): Promise<T | undefined>;
  /** A statement that writes: the number of rows it changed. */
  run(query: Query, args?: readonly unknown[]): Promise<number>;
  /** A statement that writes and returns rows (`… RETURNING`). */
  write<T>(query: Query, args?: readonly unknown[]): Promise<T[]>;
  /** A list as the one parameter `Dialect.inList` and `Dialect.setOf` take. */
  list(values: readonly (number | string)[]): unknown;
  /**
   * A write unit that takes no row locks (PgTx.optimistic): a row read to be changed is read
   * plainly, and its write names the version it read, so a change made meanwhile makes it miss.
   */
  readonly optimistic?: boolean;
  /** Outbox events this unit wrote: a stored answer that is an event's order refers to it. */
  readonly unitEvents?: Map<string, { seq: number; payload: string }>;
  /**
   * A shared store's locks, held until the unit ends (absent where one process writes): what a
   * write unit reads to write back or checks before writing is taken in turns (PgTx).
   */
  lockBrandLayers?(brandId: number): Promise<void>;
  lockBranchStates?(branchId: number): Promise<void>;
  lockSku?(brandId: number, sku: string): Promise<void>;
  /** A shared store's claim on an Idempotency-Key, given back in the unit that stores its answer. */
  releaseClaim?(credentialKey: string, key: string): Promise<void>;
  /** A shared store's claims whose holder died, dropped with the answers past the window. */
  purgeLapsedClaims?(now: number): Promise<void>;
}

/** An instant as both backends store it and the wire shows it: ISO 8601 text, UTC, milliseconds. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** A JSON column: text on SQLite (and for PostgreSQL's `json`), already parsed for `jsonb`. */
export const json = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
