import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_LIST } from '../../src/contract/operations.js';
import { migrate } from '../../src/server/store/sqlite/migrations.js';
import { testBackend } from '../helpers/pg-databases.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { sqliteAt } from '../helpers/sqlite-history.js';

// Issue 12, defects 4 and 9: tenancy as the spec words it, branch records as spec §2.5 types
// them, and provider-id maps that cannot hold two spellings of one id.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('(9) business_id and filterByBusiness on reads', () => {
  const reads = OPERATION_LIST.filter((o) => o.auth === 'partner' && o.method === 'GET');
  const concrete = (p: string) => p.replace('{id}', '1').replace('{partner_item_id}', 'SKU-1');

  it('every partner read accepts both and answers for the credential business anyway', async () => {
    const other = String(s.other.businessId);
    for (const op of reads) {
      const base = concrete(op.path);
      const extra = op.id === 'getMenu' ? 'brand_id=1&branch_id=1&' : '';
      const plain = await call(s, 'GET', `${base}?${extra}`);
      const spoofed = await call(s, 'GET', `${base}?${extra}business_id=${other}&filterByBusiness=${other}`);
      expect(spoofed.status, op.id).toBe(plain.status);
      // Same answer as without them: the credential's business, never the other one.
      expect(JSON.stringify(spoofed.body.data), op.id).toBe(JSON.stringify(plain.body.data));
      const repeated = await call(s, 'GET', `${base}?${extra}business_id=${other}&business_id=3`);
      expect(repeated.status, `${op.id} repeated`).toBe(plain.status);
    }
  });

  it('unknown query keys are still refused on reads', async () => {
    const r = await call(s, 'GET', '/v1/partner/brands?colour=red');
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe('request_invalid');
    const b = await call(s, 'GET', '/v1/partner/branches/1?colour=red');
    expect(b.status).toBe(400);
    const w = await call(s, 'POST', '/v1/partner/brands?colour=red', { body: { title: 'Query' } });
    expect(w.status).toBe(400);
    const ok = await call(s, 'POST', `/v1/partner/brands?business_id=${s.other.businessId}`, {
      body: { title: 'Query' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.business_id).toBe(s.credential.businessId);
  });

  it("another business's branch stays 404 whatever business_id the query names", async () => {
    const theirs = (await call(s, 'GET', '/v1/partner/branches', { cred: s.other })).body.data.results[0].id;
    const r = await call(s, 'GET', `/v1/partner/branches/${theirs}?business_id=${s.other.businessId}`);
    expect(r.status).toBe(404);
    expect(r.body.error?.code).toBe('resource_not_found');
  });
});

describe('(9) branch records carry every field of spec §2.5 with its documented type', () => {
  const int = (v: unknown) => Number.isInteger(v);
  const str = (v: unknown) => typeof v === 'string';
  const bool = (v: unknown) => typeof v === 'boolean';
  const num = (v: unknown) => typeof v === 'number';
  const dateTime = (v: unknown) => str(v) && !Number.isNaN(Date.parse(v as string)) && /T/.test(v as string);
  const orNull = (f: (v: unknown) => boolean) => (v: unknown) => v === null || f(v);
  const arrayOf = (f: (v: unknown) => boolean) => (v: unknown) => Array.isArray(v) && v.every(f);
  const SPEC: Record<string, (v: unknown) => boolean> = {
    id: int,
    title: str,
    business_id: int,
    business_title: str,
    brand_ids: arrayOf(int),
    brand_titles: arrayOf(str),
    address: str,
    phone: str,
    secondary_phone: orNull(str),
    lat: num,
    lon: num,
    country_id: int,
    country_code: str,
    city_id: int,
    currency_id: int,
    currency_code: str,
    currency_symbol: str,
    language_id: str,
    language_code: str,
    language_title: str,
    time_zone: orNull(str),
    opening_time: orNull(int),
    closing_time: orNull(int),
    availability_mask: int,
    day_availability: arrayOf(int),
    available_times: (v) => typeof v === 'object' && v !== null,
    preparation_time: int,
    order_cleanup_time: int,
    subscription_type: int,
    feature_flags: arrayOf(str),
    google_map_link: orNull(str),
    busy_mode_updated_at: dateTime,
    created_at: dateTime,
    updated_at: dateTime,
    deleted_at: orNull(dateTime),
  };
  for (const f of [
    'is_busy',
    'is_demo',
    'is_churned',
    'is_shift_enabled',
    'is_vat_registered',
    'is_driver_progress_enabled',
    'marketplace_enabled',
    'open_order_enabled',
    'post_payment_enabled',
    'pre_payment_enabled',
    'pay_and_complete_enabled',
    'scheduled_order_enabled',
    'manual_order_auto_accept_enabled',
    'printer_routing_enabled',
    'popular_items_enabled',
  ])
    SPEC[f] = bool;

  function check(rec: Record<string, unknown>) {
    for (const [field, ok] of Object.entries(SPEC)) {
      expect(field in rec, `${field} present`).toBe(true);
      expect(ok(rec[field]), `${field} = ${JSON.stringify(rec[field])}`).toBe(true);
    }
  }

  it('on the seeded branches, a created one and one whose busy mode never changed', async () => {
    const list = await call(s, 'GET', '/v1/partner/branches?size=100');
    for (const b of list.body.data.results) check(b);
    const created = await call(s, 'POST', '/v1/partner/branches', {
      body: {
        title: 'Fresh branch',
        brand_ids: [1],
        country_id: 1,
        city_id: 101,
        currency_id: 1,
        available_times: Object.fromEntries(
          ['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, { slots: [{ startTime: 900, endTime: 1700 }] }]),
        ),
      },
    });
    expect(created.status).toBe(201);
    check(created.body.data);
    // Never busy yet: the busy mode was last set when the branch was created.
    expect(created.body.data.busy_mode_updated_at).toBe(created.body.data.created_at);
  });

  // SQLite's migration 5 (PostgreSQL's schema starts with the column filled): a SQLite file's history.
  it.skipIf(testBackend() === 'postgres')(
    'a database of an earlier version gets busy_mode_updated_at filled in by its migration',
    () => {
      const db = sqliteAt(':memory:', 4);
      db.exec(
        "INSERT INTO businesses (title, address, logo, created_at) VALUES ('B', '', '', '2024-01-01T00:00:00.000Z')",
      );
      db.prepare(
        "INSERT INTO branches (business_id, fields, visibilities, record, created_at, updated_at) VALUES (1, '{}', '{}', ?, ?, ?)",
      ).run(
        JSON.stringify({ id: 1, busy_mode_updated_at: null }),
        '2024-01-02T00:00:00.000Z',
        '2024-01-03T00:00:00.000Z',
      );
      migrate(db);
      const row = db.prepare('SELECT busy_mode_updated_at, record FROM branches').get() as {
        busy_mode_updated_at: string;
        record: string;
      };
      expect(row.busy_mode_updated_at).toBe('2024-01-02T00:00:00.000Z');
      expect(JSON.parse(row.record).busy_mode_updated_at).toBe('2024-01-02T00:00:00.000Z');
      db.close();
    },
  );

  it('busy_mode_updated_at moves when is_busy changes', async () => {
    const before = (await call(s, 'GET', '/v1/partner/branches/2')).body.data;
    const r = await call(s, 'PATCH', '/v1/partner/branches/2', { body: { is_busy: !before.is_busy } });
    expect(r.status).toBe(200);
    check(r.body.data);
    expect(Date.parse(r.body.data.busy_mode_updated_at)).toBeGreaterThanOrEqual(
      Date.parse(before.busy_mode_updated_at),
    );
  });
});

describe('(4) provider-id maps hold one spelling per id', () => {
  it('visibilities with an alias key ("01" beside "1") → 400 request_invalid, nothing stored', async () => {
    for (const path of ['/v1/partner/brands/1/visibility', '/v1/partner/branches/1/visibility']) {
      const before = await call(s, 'GET', '/v1/partner/branches/1');
      const r = await call(s, 'PATCH', path, { body: { visibilities: { '1': false, '01': true } } });
      expect(r.status, path).toBe(400);
      expect(r.body.error?.code).toBe('request_invalid');
      expect(r.body.error?.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: ['body', 'visibilities', '01'] })]),
      );
      const after = await call(s, 'GET', '/v1/partner/branches/1');
      expect(after.body.data.visibilities).toEqual(before.body.data.visibilities);
    }
  });

  it('the canonical spelling is accepted and read back as one entry', async () => {
    const r = await call(s, 'PATCH', '/v1/partner/branches/1/visibility', {
      body: { visibilities: { '1': false } },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.visibilities['1']).toBe(false);
    expect(Object.keys(r.body.data.visibilities).filter((k) => Number(k) === 1)).toEqual(['1']);
  });

  it('prices and section visibilities refuse alias keys too', async () => {
    for (const key of ['01', '+1', '1.0', ' 1']) {
      const item = await call(s, 'POST', '/v1/partner/menus/items', {
        body: {
          brand_id: 1,
          title: 'Alias',
          partner_item_id: `ALIAS-${key.trim()}`,
          prices: { [key]: '1000' },
          onlyModifier: false,
        },
      });
      expect(item.status, key).toBe(400);
      const section = await call(s, 'POST', '/v1/partner/menus/sections', {
        body: { brand_id: 1, title: 'Alias', visibilities: { [key]: true } },
      });
      expect(section.status, key).toBe(400);
    }
  });
});
