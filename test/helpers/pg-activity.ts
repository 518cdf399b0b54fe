import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from './server.js';

const PgClient = pg.Client;

/**
 * Bounded wait (up to ~30 s, looking every 20 ms) until `sql`, a count over pg_stat_activity
 * named `n`, reaches `atLeast`; resolves with the last count. `client` may be inside a
 * transaction: a backend reads pg_stat_activity from a snapshot kept until its transaction ends,
 * so each look clears it first (without that it would count what its first look saw forever).
 */
export async function activityCount(
  client: pg.Client,
  sql: string,
  atLeast: number,
  params: unknown[] = [],
): Promise<number> {
  let n = 0;
  for (let i = 0; i < 1500 && n < atLeast; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 20));
    await client.query('SELECT pg_stat_clear_snapshot()');
    n = (await client.query<{ n: number }>(sql, params)).rows[0]!.n;
  }
  return n;
}

/**
 * For the tests of one file: a server on PostgreSQL, and a second connection to its database that
 * stands for another instance (it holds rows and transactions open where a test needs them, and
 * looks at pg_stat_activity). Both are there from the file's beforeAll to its afterAll.
 */
export function serverWithOtherInstance(): { readonly s: TestServer; readonly other: pg.Client } {
  const t = {} as { s: TestServer; other: pg.Client };
  beforeAll(async () => {
    t.s = await startTestServer();
    t.other = new PgClient({ connectionString: t.s.databaseUrl });
    await t.other.connect();
  });
  afterAll(async () => {
    await t.other?.end().catch(() => undefined);
    await t.s?.close();
  });
  return t;
}
