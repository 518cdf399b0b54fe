// A new data dir is created from the one schema description (sql/schema.ts) at the newest version;
// one made by an earlier partner (test/helpers/sqlite-history.ts makes them, version by version) is
// upgraded by copying it into that schema, and ends with exactly that schema and every row it held.
// A data dir at v7 still opens, and keeps what it held, after v8 gave SQLite PostgreSQL's columns
// (idempotency_keys.created_ms and a null payload for an answer kept by reference,
// menu_snapshots.template, webhook_deliveries.lease_host).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SQLITE_HISTORY, sqliteAt } from '../../../../test/helpers/sqlite-history.js';
import { eventIdFor, eventPayload } from '../../domain/events.js';
import { type Db, openDb } from './db.js';
import { SCHEMA_VERSION } from './migrations.js';
import { SqliteStore } from './store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'partner-schema-'));
  dirs.push(dir);
  return dir;
};
const OLD_VERSIONS = Array.from({ length: SCHEMA_VERSION - 1 }, (_, i) => i + 1);

/** Everything of a schema that a statement can tell apart, table by table. */
function shape(db: Db) {
  const objects = db
    .prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all() as { type: string; name: string; tbl_name: string; sql: string }[];
  const out: Record<string, unknown> = {};
  for (const o of objects) {
    if (o.type === 'index') {
      out[`index ${o.name}`] = {
        table: o.tbl_name,
        columns: db.pragma(`index_xinfo(${o.name})`),
        sql: o.sql.replace(/\s+/g, ' '),
      };
      continue;
    }
    out[`table ${o.name}`] = {
      columns: db.pragma(`table_xinfo(${o.name})`),
      indexes: db.pragma(`index_list(${o.name})`),
      keys: db.pragma(`foreign_key_list(${o.name})`),
      checks: o.sql.match(/CHECK \([^)]*\)\)?/g),
      autoincrement: /AUTOINCREMENT/.test(o.sql),
      withoutRowid: /WITHOUT ROWID/.test(o.sql),
    };
  }
  return out;
}

describe('SQLite schema', () => {
  // The newest version's entry checks the history itself: its steps end at the description.
  it.each([...OLD_VERSIONS, SCHEMA_VERSION])(
    'a v%i data dir has the schema made from the description',
    (v) => {
      expect(SQLITE_HISTORY).toHaveLength(SCHEMA_VERSION);
      const dir = tempDir();
      const fresh = openDb(join(dir, 'fresh.db'));
      sqliteAt(join(dir, 'old.db'), v).close();
      const upgraded = openDb(join(dir, 'old.db'));
      try {
        expect(fresh.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(upgraded.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(shape(upgraded)).toEqual(shape(fresh));
      } finally {
        fresh.close();
        upgraded.close();
      }
    },
  );
});

/** Columns renamed since: the newest name → the old one. */
const RENAMED: Record<string, string> = {
  'idempotency_keys.created_ms': 'created_at',
  'menu_snapshots.template': 'json',
};
/** Values a column's CHECK allows; rows that would trigger a fix-up of stored values are avoided. */
const CHOSEN: Record<string, unknown> = {
  status: 'pending',
  entity_type: 'item',
  action: 'stock',
  'branches.record': '{"busy_mode_updated_at":"2026-01-01T00:00:00.000Z"}',
  'idempotency_keys.event_seq': null,
};

/** One row in every table, each value told apart from the others; ids and references are 1. */
function fill(db: Db): Record<string, Record<string, unknown>> {
  const rows: Record<string, Record<string, unknown>> = {};
  let n = 100;
  db.pragma('foreign_keys = OFF'); // tables in any order; the caller checks the references
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all() as string[];
  for (const table of tables) {
    const keys = (db.pragma(`foreign_key_list(${table})`) as { from: string }[]).map((k) => k.from);
    const row: Record<string, unknown> = {};
    for (const c of db.pragma(`table_info(${table})`) as { name: string; type: string; pk: number }[]) {
      const chosen = CHOSEN[`${table}.${c.name}`] ?? CHOSEN[c.name];
      if (chosen !== undefined || `${table}.${c.name}` in CHOSEN) row[c.name] = chosen ?? null;
      else if (c.type === 'TEXT') row[c.name] = JSON.stringify({ [`${table}.${c.name}`]: n++ });
      else row[c.name] = c.pk || keys.includes(c.name) ? 1 : n++;
    }
    const names = Object.keys(row);
    db.prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(
      Object.values(row),
    );
    rows[table] = row;
  }
  db.pragma('foreign_keys = ON');
  return rows;
}

describe('SQLite upgrade', () => {
  it.each(OLD_VERSIONS)('keeps every row of a v%i data dir, value for value', (v) => {
    const dir = tempDir();
    const old = sqliteAt(join(dir, 'partner.db'), v);
    const written = fill(old);
    expect(old.pragma('foreign_key_check')).toEqual([]);
    // Ids handed out and deleted since: an AUTOINCREMENT table (v6 on) must not hand them again.
    // And a stale lower row beside one, as an INSERT … SELECT into an AUTOINCREMENT table can leave.
    if (v >= 6) {
      old.exec('UPDATE sqlite_sequence SET seq = seq + 40');
      old.exec("INSERT INTO sqlite_sequence SELECT name, 2 FROM sqlite_sequence WHERE name = 'menu_items'");
    }
    const sequences =
      v >= 6
        ? old.prepare('SELECT name, max(seq) AS seq FROM sqlite_sequence GROUP BY name ORDER BY name').all()
        : [];
    old.close();

    const db = openDb(join(dir, 'partner.db'));
    try {
      for (const [table, row] of Object.entries(written)) {
        const expected: Record<string, unknown> = {};
        for (const c of db.pragma(`table_info(${table})`) as { name: string; dflt_value: string | null }[]) {
          const from = RENAMED[`${table}.${c.name}`] ?? c.name;
          expected[c.name] =
            from in row
              ? row[from]
              : c.dflt_value === null
                ? null
                : db.prepare(`SELECT ${c.dflt_value}`).pluck().get();
        }
        expect(db.prepare(`SELECT * FROM ${table}`).all(), table).toEqual([expected]);
      }
      expect(db.pragma('foreign_key_check')).toEqual([]);
      if (v >= 6) {
        expect(db.prepare('SELECT name, seq FROM sqlite_sequence ORDER BY name').all()).toEqual(sequences);
      }
    } finally {
      db.close();
    }
  });

  it('refuses a data dir newer than this partner, and one whose columns it would drop, changing nothing', () => {
    const dir = tempDir();
    const newer = sqliteAt(join(dir, 'newer.db'), SCHEMA_VERSION);
    newer.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    newer.close();
    expect(() => openDb(join(dir, 'newer.db'))).toThrow(/newer than this partner/);

    const odd = sqliteAt(join(dir, 'odd.db'), SCHEMA_VERSION - 1);
    odd.exec(`ALTER TABLE businesses ADD COLUMN motto TEXT;
      INSERT INTO businesses (title, motto, created_at) VALUES ('B', 'kept', '2026-01-01T00:00:00.000Z')`);
    odd.close();
    expect(() => openDb(join(dir, 'odd.db'))).toThrow(/upgrade would drop businesses: motto/);
    const after = new Database(join(dir, 'odd.db'));
    try {
      expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION - 1);
      expect(after.prepare('SELECT motto FROM businesses').pluck().all()).toEqual(['kept']);
    } finally {
      after.close();
    }
  });
});

describe('SQLite migration 8', () => {
  it('opens a v7 data dir and keeps its stored answers, snapshots and deliveries', async () => {
    const file = join(tempDir(), 'partner.db');
    const old = sqliteAt(file, 7);
    const at = '2026-01-01T00:00:00.000Z';
    const order = '{"id":1,"status":2}';
    const eventId = eventIdFor(7);
    old.exec(`
      INSERT INTO businesses (id, title, created_at) VALUES (1, 'B', '${at}');
      INSERT INTO brands (id, business_id, title, created_at, updated_at) VALUES (1, 1, 'Brand', '${at}', '${at}');
      INSERT INTO branches (id, business_id, fields, record, created_at, updated_at) VALUES (1, 1, '{}', '{}', '${at}', '${at}');
      INSERT INTO menu_snapshots (brand_id, branch_id, business_id, version, published_at, revision, source, json)
        VALUES (1, 1, 1, 3, '${at}', 1, '{}', '{"tpl":1}');
    `);
    old
      .prepare(
        `INSERT INTO outbox_events (seq, id, type, business_id, brand_id, branch_id, order_id, payload, next_attempt_ms, created_at, updated_at)
         VALUES (7, ?, 'service.order.status.updated', 1, 1, 1, 1, ?, 0, ?, ?)`,
      )
      .run(eventId, eventPayload(1, 1, [order]), at, at);
    const put = old.prepare(
      'INSERT INTO idempotency_keys (credential_key, idem_key, fingerprint, status, is_error, payload, created_at, event_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    put.run('ck', 'plain', 'f1', 409, 1, '{"error":1}', 1000, null);
    put.run('ck', 'by-ref', 'f2', 200, 0, '', 2000, 7);
    old
      .prepare(
        `INSERT INTO webhook_deliveries (event_seq, event_id, event_type, business_id, url, payload, lease_owner, lease_until, created_at, updated_at)
         VALUES (7, ?, 'service.order.status.updated', 1, 'http://127.0.0.1:9/', '{}', 'o', 5, ?, ?)`,
      )
      .run(eventId, at, at);
    old.close();

    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const store = new SqliteStore(db);
    try {
      const [plain, byRef, template, delivery] = await store.read(async (tx) => [
        await tx.idempotency.get('ck', 'plain'),
        await tx.idempotency.get('ck', 'by-ref'),
        await tx.tenant(1).layers.snapshotTemplate(1, 1),
        db.prepare('SELECT lease_owner, lease_host FROM webhook_deliveries').get(),
      ]);
      expect(plain).toEqual({
        fingerprint: 'f1',
        status: 409,
        isError: true,
        payload: '{"error":1}',
        createdAt: 1000,
      });
      expect(byRef).toEqual({
        fingerprint: 'f2',
        status: 200,
        isError: false,
        payload: order,
        createdAt: 2000,
        event: eventId,
      });
      expect(
        db.prepare("SELECT payload FROM idempotency_keys WHERE idem_key = 'by-ref'").pluck().get(),
      ).toBeNull();
      expect(template).toBe('{"tpl":1}');
      expect(delivery).toEqual({ lease_owner: 'o', lease_host: null });
    } finally {
      await store.close();
    }
  });
});
