import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/server/store/sqlite/migrations.js';
import { testBackend } from '../helpers/pg-databases.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { sqliteAt } from '../helpers/sqlite-history.js';

// Public ids are never reused: an integrator who stored the id of something deleted must never
// find it pointing at something else. Deleting the newest section (category, item, modifier
// group, price group) and creating another gives a new id, across restarts too.

const dir = mkdtempSync(join(tmpdir(), 'partner-ids-'));
let s: TestServer;
let brandId: number;

beforeAll(async () => {
  s = await startTestServer({ dataDir: dir });
  brandId = (await call(s, 'GET', '/v1/partner/brands')).body.data[0].brands[0].id;
});
afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const KINDS = [
  {
    kind: 'a section',
    path: '/v1/partner/menus/sections',
    body: () => ({ brand_id: brandId, title: 'Tmp' }),
  },
  {
    kind: 'a category',
    path: '/v1/partner/menus/categories',
    body: () => ({ brand_id: brandId, title: 'Tmp' }),
  },
  {
    kind: 'an item',
    path: '/v1/partner/menus/items',
    body: () => ({
      brand_id: brandId,
      title: 'Tmp',
      partner_item_id: `SKU-TMP-${Math.random().toString(36).slice(2)}`,
      prices: { '1': '1.00' },
      onlyModifier: false,
    }),
  },
  {
    kind: 'a modifier group',
    path: '/v1/partner/menus/modifier-groups',
    body: () => ({ brand_id: brandId, title: 'Tmp', min: 0, max: 1 }),
  },
  { kind: 'a price group', path: '/v1/partner/price/groups', body: () => ({ title: 'Tmp' }) },
];

async function createThenDelete(path: string, body: unknown): Promise<number> {
  const c = await call(s, 'POST', path, { body });
  expect(c.status).toBe(201);
  const id = c.body.data.id as number;
  expect((await call(s, 'DELETE', `${path}/${id}`)).status).toBe(200);
  return id;
}

describe('ids are never reused', () => {
  for (const k of KINDS) {
    it(`${k.kind} created after the newest was deleted gets a new id, before and after a restart`, async () => {
      const first = await createThenDelete(k.path, k.body());
      const second = await createThenDelete(k.path, k.body());
      expect(second).toBeGreaterThan(first);
      // A restart forgets nothing of what was used (the data dir keeps the credential).
      const credential = s.credential;
      await s.server.close();
      s = { ...(await startTestServer({ dataDir: dir })), credential };
      const third = (await call(s, 'POST', k.path, { body: k.body() })).body.data.id as number;
      expect(third).toBeGreaterThan(second);
    });
  }
});

// SQLite's migration 6 (PostgreSQL's identities never reused ids): a SQLite file's history.
describe('the migration to never-reused ids', () => {
  it.skipIf(testBackend() === 'postgres')(
    'keeps every row and link, and continues above every id a store layer, snapshot or history still names',
    () => {
      const tmp = mkdtempSync(join(tmpdir(), 'partner-ids-mig-'));
      const db = sqliteAt(join(tmp, 'old.db'), 5);
      try {
        const at = '2024-01-01T00:00:00.000Z';
        db.exec(`
        INSERT INTO businesses (id, title, created_at) VALUES (1, 'B', '${at}');
        INSERT INTO brands (id, business_id, title, created_at, updated_at) VALUES (1, 1, 'Brand', '${at}', '${at}');
        INSERT INTO branches (id, business_id, fields, record, created_at, updated_at) VALUES (1, 1, '{}', '{}', '${at}', '${at}');
        INSERT INTO branch_brands VALUES (1, 1);
        INSERT INTO price_groups (id, business_id, title, created_at, updated_at) VALUES (3, 1, 'P', '${at}', '${at}');
        UPDATE branches SET price_group_id = 3;
        INSERT INTO menu_sections (id, business_id, brand_id, title, created_at, updated_at) VALUES (2, 1, 1, 'S', '${at}', '${at}');
        INSERT INTO menu_categories (id, business_id, brand_id, title, created_at, updated_at) VALUES (4, 1, 1, 'C', '${at}', '${at}');
        INSERT INTO menu_items (id, business_id, brand_id, title, partner_item_id, group_prices, created_at, updated_at)
          VALUES (5, 1, 1, 'I', 'SKU', '{"9":"1.00"}', '${at}', '${at}');
        INSERT INTO menu_modifier_groups (id, business_id, brand_id, title, min_choices, max_choices, created_at, updated_at)
          VALUES (6, 1, 1, 'G', 0, 1, '${at}', '${at}');
        INSERT INTO menu_section_categories (section_id, category_id) VALUES (2, 4);
        INSERT INTO menu_category_items (category_id, item_id) VALUES (4, 5);
        INSERT INTO menu_item_groups (item_id, group_id) VALUES (5, 6);
        INSERT INTO menu_item_state (branch_id, item_id, available, updated_at) VALUES (1, 5, 0, '${at}');
      `);
        // Deleted before the upgrade, still named by a store layer, a snapshot and the OOS history.
        const layer = {
          brand_id: 1,
          sections: [{ id: 12 }],
          categories: [{ id: 14 }],
          items: [],
          modifierGroups: [{ id: 16 }],
        };
        db.prepare(
          "INSERT INTO menu_stores (brand_id, branch_id, business_id, tree, synced_at, updated_at) VALUES (1, 1, 1, ?, 'x', 'x')",
        ).run(JSON.stringify(layer));
        db.prepare(
          "INSERT INTO menu_snapshots (brand_id, branch_id, business_id, version, published_at, revision, source, json) VALUES (1, 1, 1, 1, 'x', 1, ?, '{}')",
        ).run(JSON.stringify({ ...layer, items: [{ id: 15 }] }));
        db.exec(`INSERT INTO menu_oos_activity (business_id, brand_id, entity_type, entity_id, title, action, before, after, went_out, came_back, actor, at_ms)
               VALUES (1, 1, 'item', 25, 'gone', 'enable', '{}', '{}', 1, 0, 'k', 0)`);

        migrate(db);

        const next = (table: string) => {
          const cols =
            table === 'price_groups'
              ? "business_id, title, created_at, updated_at) VALUES (1, 'n', 'x', 'x')"
              : table === 'menu_items'
                ? "business_id, brand_id, title, partner_item_id, created_at, updated_at) VALUES (1, 1, 'n', 'SKU-N', 'x', 'x')"
                : table === 'menu_modifier_groups'
                  ? "business_id, brand_id, title, min_choices, max_choices, created_at, updated_at) VALUES (1, 1, 'n', 0, 1, 'x', 'x')"
                  : "business_id, brand_id, title, created_at, updated_at) VALUES (1, 1, 'n', 'x', 'x')";
          return Number(db.prepare(`INSERT INTO ${table} (${cols}`).run().lastInsertRowid);
        };
        expect(next('menu_sections')).toBe(13);
        expect(next('menu_categories')).toBe(15);
        expect(next('menu_items')).toBe(26);
        expect(next('menu_modifier_groups')).toBe(17);
        // group_prices keys name price groups too.
        expect(next('price_groups')).toBe(10);
        // Nothing lost: rows, links (their cascades included) and references survive the rebuild.
        expect(db.prepare('SELECT count(*) FROM menu_section_categories').pluck().get()).toBe(1);
        expect(db.prepare('SELECT count(*) FROM menu_category_items').pluck().get()).toBe(1);
        expect(db.prepare('SELECT count(*) FROM menu_item_groups').pluck().get()).toBe(1);
        expect(db.prepare('SELECT count(*) FROM menu_item_state').pluck().get()).toBe(1);
        expect(db.prepare('SELECT price_group_id FROM branches').pluck().get()).toBe(3);
        expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
        db.exec('DELETE FROM menu_items WHERE id = 5');
        expect(db.prepare('SELECT count(*) FROM menu_category_items').pluck().get()).toBe(0);
        expect(db.prepare('SELECT count(*) FROM menu_item_state').pluck().get()).toBe(0);
      } finally {
        db.close();
        rmSync(tmp, { recursive: true, force: true });
      }
    },
  );
});
