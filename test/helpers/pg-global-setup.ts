// vitest globalSetup of the `postgres` project: a database server for the PostgreSQL half of the
// suite (PARTNER_TEST_DATABASE_URL, or a throw-away cluster started here), and in it a template
// database migrated once, which every test server copies (test/helpers/pg-databases.ts).
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/server/store/postgres/migrations.js';
import { openPool } from '../../src/server/store/postgres/pool.js';
import { type Cluster, postgresBin, startCluster } from './pg-cluster.js';
import { TEMPLATE, withDatabase } from './pg-databases.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A superuser URL of the test PostgreSQL server. */
    pgAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let cluster: Cluster | undefined;
  let admin = process.env.PARTNER_TEST_DATABASE_URL;
  if (!admin) {
    const bin = postgresBin();
    if (!bin)
      throw new Error(
        'no PostgreSQL server programs found (set PARTNER_TEST_DATABASE_URL or PARTNER_PG_BIN)',
      );
    cluster = await startCluster(bin);
    admin = cluster.url;
  }
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${TEMPLATE}`);
  } finally {
    await client.end();
  }
  const pool = openPool(withDatabase(admin, TEMPLATE), { max: 1 });
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
  project.provide('pgAdminUrl', admin);
  // For tests that read the URL from the environment (the catalogue repositories' parity test).
  process.env.PARTNER_TEST_DATABASE_URL = admin;
  return async () => {
    if (cluster) cluster.stop();
    else {
      // A server the tests left behind (a data dir reused for a restart keeps its database).
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        const { rows } = await c.query<{ datname: string }>(
          "SELECT datname FROM pg_database WHERE datname LIKE 'partner\\_t\\_%'",
        );
        for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
        await c.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    }
  };
}
