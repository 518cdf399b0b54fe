// The two schemas are one: every table the repositories use (store/sql/, written once) has the
// same columns, with the same nullability, on SQLite and on PostgreSQL as each store creates them
// (both from store/sql/schema.ts). What only one backend has is listed here, with why: a new
// column on one side only fails this test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../src/server/store/postgres/store.js';
import { openDb } from '../../src/server/store/sqlite/db.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-databases.js';

/** Tables of one backend only: the per-dialect parts of the store. */
const ONLY = {
  // SQLite's own bookkeeping (AUTOINCREMENT).
  sqlite: ['sqlite_sequence'],
  // PostgreSQL: claims and rate buckets are rows every instance sees (SQLite keeps both in
  // memory: one process owns the file); its migrations are recorded in a table.
  postgres: ['idempotency_claims', 'rate_buckets', 'schema_migrations'],
};

type Shape = Record<string, Record<string, 'null' | 'not null'>>;

let db: TestDatabase;
let dir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  await (await PgStore.open(db.url)).close();
  dir = mkdtempSync(join(tmpdir(), 'partner-schema-'));
});

afterAll(async () => {
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function sqliteShape(): Shape {
  const sqlite = openDb(join(dir, 'partner.db'));
  try {
    const shape: Shape = {};
    const tables = sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all() as string[];
    for (const t of tables.filter((t) => !ONLY.sqlite.includes(t))) {
      shape[t] = {};
      // An INTEGER PRIMARY KEY is the rowid: never null, whatever its declaration says.
      for (const c of sqlite.pragma(`table_info(${t})`) as { name: string; notnull: number; pk: number }[])
        shape[t][c.name] = c.notnull || c.pk ? 'not null' : 'null';
    }
    return shape;
  } finally {
    sqlite.close();
  }
}

async function postgresShape(): Promise<Shape> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const { rows } = await c.query<{ t: string; c: string; nullable: string }>(
      `SELECT table_name AS t, column_name AS c, is_nullable AS nullable FROM information_schema.columns
       WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    );
    const shape: Shape = {};
    for (const r of rows.filter((r) => !ONLY.postgres.includes(r.t))) {
      shape[r.t] ??= {};
      shape[r.t]![r.c] = r.nullable === 'YES' ? 'null' : 'not null';
    }
    return shape;
  } finally {
    await c.end();
  }
}

describe('the SQLite and PostgreSQL schemas', () => {
  it('have the same tables, columns and nullability, but for the per-dialect tables', async () => {
    const sorted = (s: Shape) =>
      Object.fromEntries(
        Object.keys(s)
          .sort()
          .map((t) => [t, Object.fromEntries(Object.entries(s[t]!).sort(([a], [b]) => a.localeCompare(b)))]),
      );
    expect(sorted(sqliteShape())).toEqual(sorted(await postgresShape()));
  });
});
