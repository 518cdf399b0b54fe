// A new data dir is created from the one schema description (sql/schema.ts) at the newest version;
// one made by an earlier partner is brought there by the migrations, step by step, and ends with
// exactly that schema. A data dir at v7 still opens, and keeps what it held, after migration 8
// gave SQLite PostgreSQL's columns (idempotency_keys.created_ms and a null payload for an answer
// kept by reference, menu_snapshots.template, webhook_deliveries.lease_host).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { eventIdFor, eventPayload } from '../outbox-repo.js';
import { type Db, openDb } from './db.js';
import { MIGRATIONS } from './migrations.js';
import { SqliteStore } from './store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

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
  it('is the same whether made from the description or by every migration in turn', () => {
    const dir = mkdtempSync(join(tmpdir(), 'partner-schema-'));
    dirs.push(dir);
    const fresh = openDb(join(dir, 'fresh.db'));
    const stepped = new Database(join(dir, 'stepped.db'));
    stepped.pragma('user_version = 1');
    stepped.exec(MIGRATIONS[0]!);
    stepped.close();
    const migrated = openDb(join(dir, 'stepped.db'));
    try {
      expect(migrated.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(fresh.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(shape(fresh)).toEqual(shape(migrated));
    } finally {
      fresh.close();
      migrated.close();
    }
  });
});

describe('SQLite migration 8', () => {
  it('opens a v7 data dir and keeps its stored answers, snapshots and deliveries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'partner-mig8-'));
    dirs.push(dir);
    const file = join(dir, 'partner.db');
    const old = new Database(file);
    for (const m of MIGRATIONS.slice(0, 7)) old.exec(m);
    old.pragma('user_version = 7');
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
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
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
