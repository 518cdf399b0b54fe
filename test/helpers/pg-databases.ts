// Fresh databases for test servers on PostgreSQL: each a copy of the migrated template the
// postgres project's globalSetup made, dropped again when its server closes.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export const TEMPLATE = 'partner_test_template';

/** Which backend test servers run on: `PARTNER_TEST_BACKEND` (set per vitest project). */
export function testBackend(): 'sqlite' | 'postgres' {
  return process.env.PARTNER_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new database with the current schema, copied from the template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `partner_t_${process.pid}_${randomBytes(5).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`));
  return {
    url: withDatabase(inject('pgAdminUrl'), name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
