import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/server/store/sqlite/migrations.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { sqliteAt } from '../helpers/sqlite-history.js';

// A data dir made by an earlier partner (every SQLite schema version it shipped) is served by this
// one: the server upgrades it at start and answers with what the old version stored.
// SQLite only, so outside test/server, which runs on PostgreSQL too (PostgreSQL keeps its own
// migration list: test/postgres/store.test.ts).

let s: TestServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await s?.close();
  s = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const AT = '2025-03-04T05:06:07.890Z';
const BRANCH = `{"id":1,"title":"Old branch","brand_ids":[1],"busy_mode_updated_at":"${AT}"}`;
const ORDER = '{"id":1,"status":"new","total":"12.50"}';

describe('a data dir of an earlier version', () => {
  it.each(Array.from({ length: SCHEMA_VERSION - 1 }, (_, i) => i + 1))(
    'v%i: the server starts on it and serves its brands, branches and orders',
    async (v) => {
      const dir = mkdtempSync(join(tmpdir(), 'partner-old-'));
      dirs.push(dir);
      const old = sqliteAt(join(dir, 'partner.db'), v);
      old.exec(`
        INSERT INTO businesses (id, title, created_at) VALUES (1, 'Old business', '${AT}');
        INSERT INTO brands (id, business_id, title, logo, created_at, updated_at)
          VALUES (1, 1, 'Old brand', 'logo.png', '${AT}', '${AT}');
        INSERT INTO branches (id, business_id, fields, record, busy_mode_updated_at, created_at, updated_at)
          VALUES (1, 1, '{}', '${BRANCH}', '${AT}', '${AT}', '${AT}');
        INSERT INTO branch_brands VALUES (1, 1);
      `);
      // Orders came with v2.
      if (v >= 2) {
        old.exec(`INSERT INTO orders (id, business_id, brand_id, branch_id, status, created_ms, updated_ms, record)
                  VALUES (1, 1, 1, 1, 1, 0, 0, '${ORDER}')`);
      }
      old.close();

      s = await startTestServer({ dataDir: dir, seed: 'none' });
      const cred = await s.issueCredential({
        businessId: 1,
        scopes: ['brands:read', 'branches:read', 'orders:read'],
      });
      const brands = await call(s, 'GET', '/v1/partner/brands', { cred });
      expect(brands.status).toBe(200);
      expect(brands.text).toContain('"title":"Old brand"');
      expect(brands.text).toContain('"logo":"logo.png"');
      const branches = await call(s, 'GET', '/v1/partner/branches', { cred });
      expect(branches.status).toBe(200);
      expect(branches.text).toContain(BRANCH);
      if (v >= 2) {
        const order = await call(s, 'GET', '/v1/partner/orders/1', { cred });
        expect(order.status).toBe(200);
        expect(order.text).toContain(ORDER);
      }
      const version = await s.rows<{ user_version: number }>('PRAGMA user_version');
      expect(version).toEqual([{ user_version: SCHEMA_VERSION }]);
    },
  );
});
