import type { Pool } from 'pg';
import { schemaSql } from '../sql/schema.js';

// Migration N is recorded as version N in schema_migrations. Append only; never edit a shipped
// one. An empty database is made from the description (sql/schema.ts) at the newest version, so a
// migration only brings an existing database forward, and the description gets the same change.
export const MIGRATIONS: readonly string[] = [
  /* 1: the whole schema as first shipped (an empty database now starts from the description) */ '',
  /* 2: a stored Idempotency-Key answer that is exactly the order an outbox event carries (a
     status change) refers to that event (event_seq) instead of keeping a copy (payload null) */ `
  ALTER TABLE idempotency_keys ALTER COLUMN payload DROP NOT NULL, ADD COLUMN event_seq bigint;
  `,
];

/** Any constant works: it only has to be the same in every partner that migrates this database. */
const MIGRATION_LOCK = 0x7061_7274; // "part"

/**
 * Brings the database up to the newest migration. Instances starting together are safe: each
 * waits on a session advisory lock, so one migrates while the others wait, then find nothing to
 * do. Each migration commits with its version row, so a failed one leaves the previous version.
 */
export async function migrate(pool: Pool): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const { rows } = await client.query<{ v: number | null }>(
        'SELECT max(version) AS v FROM schema_migrations',
      );
      const current = rows[0]?.v ?? 0;
      if (current > MIGRATIONS.length) {
        throw new Error(
          `database schema v${current} is newer than this partner (v${MIGRATIONS.length}); upgrade partner`,
        );
      }
      // An empty database gets the newest schema at once, recorded as every version.
      const steps =
        current === 0
          ? [{ sql: schemaSql('postgres'), from: 1, to: MIGRATIONS.length, what: 'creating the schema' }]
          : MIGRATIONS.slice(current).map((sql, i) => {
              const v = current + i + 1;
              return { sql, from: v, to: v, what: `migration ${v}` };
            });
      for (const step of steps) {
        await client.query('BEGIN');
        try {
          await client.query(step.sql);
          await client.query(
            'INSERT INTO schema_migrations (version) SELECT generate_series($1::int, $2::int)',
            [step.from, step.to],
          );
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`${step.what} failed: ${(err as Error).message}`);
        }
      }
      return MIGRATIONS.length;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
