import pg from 'pg';

// How values come back from PostgreSQL, for every connection of the store:
// - bigint (ids, counts, clock milliseconds) as a JS number: ids and clock values stay far below
//   2^53, and the API shows them as numbers;
// - timestamptz as the ISO 8601 text the SQLite store keeps and the wire shows (UTC, ms);
// - json as its text, untouched: order records, payloads and stored answers are sent byte for
//   byte as they were written (jsonb, used for data the server reads, is parsed as usual).
const base = pg.types;
const parseTimestamptz = base.getTypeParser(base.builtins.TIMESTAMPTZ, 'text') as (v: string) => Date;
const OVERRIDES: Record<number, (v: string) => unknown> = {
  [base.builtins.INT8]: (v) => Number(v),
  [base.builtins.TIMESTAMPTZ]: (v) => parseTimestamptz(v).toISOString(),
  [base.builtins.JSON]: (v) => v,
};

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return OVERRIDES[oid] ?? base.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;

export interface PgPoolOptions {
  /** Connections in the pool (default 10): units that run at once on this instance. */
  max?: number;
  /** A new connection not ready within this long fails (default 5 s): 502, not a hung request. */
  connectTimeoutMs?: number;
}

export function openPool(url: string, opts: PgPoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    // A failover to a host that drops packets would otherwise hold each request until the kernel
    // gives up on the connect (minutes); keep-alive finds a connection that died the same way.
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5_000,
    keepAlive: true,
    types,
    // Timestamps are written as ISO text with an offset; UTC keeps anything read as text in UTC too.
    options: '-c TimeZone=UTC',
    application_name: 'partner',
  });
  // The pool listens for errors on idle connections only: one failing while handed out (the
  // database restarted under a unit) would throw 'error' at the process. Its statement fails and
  // tells the caller, which releases it as broken. On 'connect': the migrations' connection too.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** A fresh connection outside the pool (the LISTEN connection, the pipe's: `extra`). */
export function openClient(url: string, extra: pg.ClientConfig = {}): pg.Client {
  return new pg.Client({
    ...extra,
    connectionString: url,
    types,
    options: ['-c TimeZone=UTC', extra.options].filter(Boolean).join(' '),
    application_name: 'partner',
  });
}
