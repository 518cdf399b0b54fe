import type { Pool } from 'pg';
import { CATALOG_SCHEMA } from './schema/catalog.js';
import { CORE_SCHEMA } from './schema/core.js';

// Versioned schema: migration N is recorded as version N in schema_migrations once applied.
// Append only; never edit a migration that has shipped.
export const MIGRATIONS: readonly string[] = [
  /* 1: the whole schema: core, catalogue, then the references from the one into the other */ `
  ${CORE_SCHEMA}
  ${CATALOG_SCHEMA}
  ALTER TABLE orders
    ADD CONSTRAINT orders_brand FOREIGN KEY (brand_id) REFERENCES brands(id),
    ADD CONSTRAINT orders_branch FOREIGN KEY (branch_id) REFERENCES branches(id);
  `,
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
      for (let v = current; v < MIGRATIONS.length; v++) {
        await client.query('BEGIN');
        try {
          await client.query(MIGRATIONS[v]!);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${v + 1} failed: ${(err as Error).message}`);
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
