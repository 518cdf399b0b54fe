import { defineConfig } from 'vitest/config';
import { postgresBin } from './test/helpers/pg-cluster.js';

// The suite runs twice where the backend matters: every test on SQLite (the `sqlite` project),
// and the server's own suites once more on PostgreSQL (the `postgres` project: the same files,
// test servers on a fresh database each, PARTNER_TEST_BACKEND=postgres). The PostgreSQL half needs
// PARTNER_TEST_DATABASE_URL or the server programs to start a throw-away cluster; without either
// it is left out, loudly, and PARTNER_TEST_POSTGRES=required (CI) makes that a failure.
const POSTGRES_SUITES = [
  'test/server/**/*.test.ts',
  'test/reliability/**/*.test.ts',
  'test/postgres/**/*.test.ts',
  'src/server/store/postgres/**/*.test.ts',
  'test/multi-instance/pg-*.test.ts',
];
/** Tests of the PostgreSQL backend itself (and of N instances on it): the postgres project only. */
const POSTGRES_ONLY = ['test/postgres/**', 'src/server/store/postgres/**', 'test/multi-instance/pg-*'];

const postgres = Boolean(process.env.PARTNER_TEST_DATABASE_URL) || postgresBin() !== undefined;
if (!postgres) {
  const why =
    'no PARTNER_TEST_DATABASE_URL and no PostgreSQL server programs (initdb, pg_ctl) on this machine';
  if (process.env.PARTNER_TEST_POSTGRES === 'required')
    throw new Error(`PARTNER_TEST_POSTGRES=required, but ${why}`);
  process.stderr.write(
    `\n*** The PostgreSQL half of the suite did NOT run: ${why}. ***\n*** Set PARTNER_TEST_DATABASE_URL=postgres://… or install PostgreSQL to run it. ***\n\n`,
  );
}

// Bounds on a hang, not speeds: on a loaded 2-core machine (two busy loops beside the suite, load
// 20–25) starting a server on PostgreSQL in a beforeAll took over 20 s. Tests wait on events;
// these only end a test that would otherwise never finish.
const shared = {
  testTimeout: 120_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
};

export default defineConfig({
  define: { __PARTNER_VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    // Two files at a time, whatever the core count: the suites mostly wait on servers, sockets and
    // PostgreSQL, and vitest's default on 2 cores (one worker) ran them one by one. On this 2-core
    // machine, quiet: 339 s with one worker, 206 s with two, both green.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          ...shared,
          name: 'sqlite',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...POSTGRES_ONLY],
        },
      },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                ...shared,
                name: 'postgres',
                include: POSTGRES_SUITES,
                env: { PARTNER_TEST_BACKEND: 'postgres' },
                globalSetup: ['test/helpers/pg-global-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
