import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Branch } from '../../src/contract/schemas/branches.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const day = (startTime = 900, endTime = 1700) => ({ slots: [{ startTime, endTime }] });
const week = () => Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, day()]));
const newBranch = (over: Record<string, unknown> = {}) => ({
  title: 'Kopi Kita Blok M',
  brand_ids: [1],
  country_id: 1,
  city_id: 101,
  currency_id: 1,
  available_times: week(),
  ...over,
});

describe('brands', () => {
  it('lists spec 2.4: an outer array with {brands, business} of the credential only', async () => {
    const r = await call(s, 'GET', '/v1/partner/brands');
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(1);
    const [entry] = r.body.data;
    expect(Object.keys(entry).sort()).toEqual(['brands', 'business']);
    expect(Object.keys(entry.business).sort()).toEqual(['address', 'id', 'logo', 'title']);
    expect(entry.business.id).toBe(s.credential.businessId);
    for (const b of entry.brands) {
      expect(Object.keys(b).sort()).toEqual(['banner', 'business_id', 'id', 'logo', 'title']);
      expect(b.business_id).toBe(s.credential.businessId);
    }
    const other = await call(s, 'GET', '/v1/partner/brands', { cred: s.other });
    const mine = new Set(entry.brands.map((b: { id: number }) => b.id));
    expect(other.body.data[0].brands.some((b: { id: number }) => mine.has(b.id))).toBe(false);
  });

  it('creates (201, id at data.id) and updates a brand; brand_titles of branches follow', async () => {
    const c = await call(s, 'POST', '/v1/partner/brands', {
      body: { title: 'Teh Tarik Co', business_id: 999 },
    });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({
      title: 'Teh Tarik Co',
      logo: '',
      banner: '',
      business_id: s.credential.businessId,
    });
    expect(typeof c.body.data.id).toBe('number');

    const u = await call(s, 'PATCH', '/v1/partner/brands/1', { body: { title: 'Kopi Kita Baru' } });
    expect(u.status).toBe(200);
    expect(u.body.data.title).toBe('Kopi Kita Baru');
    const br = await call(s, 'GET', '/v1/partner/branches/1');
    expect(br.body.data.brand_titles).toContain('Kopi Kita Baru');
  });

  it("another business's brand → 404 resource_not_found (never 403)", async () => {
    const theirs = (await call(s, 'GET', '/v1/partner/brands', { cred: s.other })).body.data[0].brands[0].id;
    const r = await call(s, 'PATCH', `/v1/partner/brands/${theirs}`, { body: { title: 'mine now' } });
    expect(r.status).toBe(404);
    expect(r.body.error?.code).toBe('resource_not_found');
  });

  it('visibility: keyed by provider ids that exist', async () => {
    const ok = await call(s, 'PATCH', '/v1/partner/brands/1/visibility', {
      body: { visibilities: { '1': true, '2': false } },
    });
    expect(ok.body.data).toEqual({ id: 1, visibilities: { '1': true, '2': false } });
    const bad = await call(s, 'PATCH', '/v1/partner/brands/1/visibility', {
      body: { visibilities: { '777': true } },
    });
    expect(bad.status).toBe(400);
  });
});

describe('branches', () => {
  it('lists spec 2.3 payload with spec 2.5 records and echoes page/size', async () => {
    const r = await call(s, 'GET', '/v1/partner/branches?page=1&size=2');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual(['page', 'results', 'size', 'total']);
    expect(r.body.data.page).toBe(1);
    expect(r.body.data.size).toBe(2);
    expect(r.body.data.results).toHaveLength(2);
    expect(r.body.data.total).toBeGreaterThanOrEqual(3);
    for (const b of r.body.data.results) {
      expect(Branch.safeParse(b).success).toBe(true);
      expect(b.business_id).toBe(s.credential.businessId);
      expect(b).toHaveProperty('business_vat_label'); // a pass-through extra of the seed
    }
  });

  it('defaults page 1 size 20; out-of-range or non-integer page/size → 400 request_invalid', async () => {
    const d = await call(s, 'GET', '/v1/partner/branches');
    expect([d.body.data.page, d.body.data.size]).toEqual([1, 20]);
    for (const q of ['page=0', 'size=0', 'size=101', 'page=1.5', 'size=abc', 'page=-1']) {
      const r = await call(s, 'GET', `/v1/partner/branches?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error?.code).toBe('request_invalid');
    }
    const far = await call(s, 'GET', '/v1/partner/branches?page=99&size=100');
    expect(far.body.data.results).toEqual([]);
  });

  it('the list reflects every change at once (pages are cached per business)', async () => {
    const first = await call(s, 'GET', '/v1/partner/branches?size=100');
    const target = first.body.data.results[0];
    await call(s, 'PATCH', `/v1/partner/branches/${target.id}`, { body: { title: 'Renamed in place' } });
    const second = await call(s, 'GET', '/v1/partner/branches?size=100');
    expect(second.body.data.results[0].title).toBe('Renamed in place');
    const created = await call(s, 'POST', '/v1/partner/branches', { body: newBranch({ title: 'Newest' }) });
    const third = await call(s, 'GET', '/v1/partner/branches?size=100');
    expect(third.body.data.total).toBe(second.body.data.total + 1);
    expect(third.body.data.results.at(-1).id).toBe(created.body.data.id);
    await call(s, 'PATCH', '/v1/partner/brands/2', { body: { title: 'Brand renamed' } });
    const fourth = await call(s, 'GET', '/v1/partner/branches?size=100');
    expect(
      fourth.body.data.results.some((b: { brand_titles: string[] }) =>
        b.brand_titles.includes('Brand renamed'),
      ),
    ).toBe(true);
  });

  it('business_id in the query is overwritten by the credential business', async () => {
    const r = await call(s, 'GET', `/v1/partner/branches?business_id=${s.other.businessId}`);
    expect(r.status).toBe(200);
    expect(
      r.body.data.results.every((b: { business_id: number }) => b.business_id === s.credential.businessId),
    ).toBe(true);
  });

  it("get: another business's branch → 404", async () => {
    const theirs = (await call(s, 'GET', '/v1/partner/branches', { cred: s.other })).body.data.results[0].id;
    const r = await call(s, 'GET', `/v1/partner/branches/${theirs}`);
    expect(r.status).toBe(404);
    expect(r.body.error?.code).toBe('resource_not_found');
    expect((await call(s, 'GET', '/v1/partner/branches/abc')).body.error?.code).toBe('request_invalid');
  });

  it('creates a branch: computed fields, derived schedule fields, extras pass through, start_time accepted', async () => {
    const times = week();
    times['3'] = { slots: [{ start_time: 1000, end_time: 1400 } as never] };
    const r = await call(s, 'POST', '/v1/partner/branches', {
      body: newBranch({
        available_times: times,
        bir_config: { tin: '000-123' },
        vat_custom_title: 'PB1',
        business_id: 2,
      }),
    });
    expect(r.status).toBe(201);
    const b = r.body.data;
    expect(Branch.safeParse(b).success).toBe(true);
    expect(b).toMatchObject({
      title: 'Kopi Kita Blok M',
      business_id: s.credential.businessId,
      brand_ids: [1],
      country_code: 'ID',
      currency_code: 'IDR',
      availability_mask: 127,
      day_availability: [0, 1, 2, 3, 4, 5, 6],
      bir_config: { tin: '000-123' },
      vat_custom_title: 'PB1',
      deleted_at: null,
    });
    expect(b.available_times['3'].slots[0]).toEqual({ startTime: 1000, endTime: 1400 });
    const again = await call(s, 'GET', `/v1/partner/branches/${b.id}`);
    expect(again.body.data).toEqual(b);
  });

  it('validates (country_id, city_id), references, required fields and AvailableTimes', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [newBranch({ city_id: 201 }), 'body.city_id'],
      [newBranch({ country_id: 99 }), 'body.country_id'],
      [newBranch({ brand_ids: [999] }), 'body.brand_ids.0'],
      [newBranch({ title: undefined }), 'body.title'],
      [newBranch({ available_times: { ...week(), '6': undefined } }), 'body.available_times.6'],
      [newBranch({ available_times: { ...week(), '2': { slots: [] } } }), 'body.available_times.2.slots'],
      [
        newBranch({ available_times: { ...week(), '2': day(960, 1700) } }),
        'body.available_times.2.slots.0.startTime',
      ],
      [
        newBranch({ available_times: { ...week(), '2': day(900, 2400) } }),
        'body.available_times.2.slots.0.endTime',
      ],
      [newBranch({ id: 5 }), 'body.id'],
      [newBranch({ phone: '0812' }), 'body.phone'],
    ];
    for (const [body, path] of cases) {
      const r = await call(s, 'POST', '/v1/partner/branches', { body });
      expect(r.status, path).toBe(400);
      expect(r.body.error?.code).toBe('request_invalid');
      const paths = (r.body.error!.details as { path: unknown[] }[]).map((d) => d.path.join('.'));
      expect(paths, path).toContain(path);
    }
  });

  it('a disabled day still needs a slot, and darkens the day', async () => {
    const times = week();
    times['0'] = { disabled: true, slots: [{ startTime: 0, endTime: 0 }] } as never;
    const r = await call(s, 'POST', '/v1/partner/branches', { body: newBranch({ available_times: times }) });
    expect(r.status).toBe(201);
    expect(r.body.data.day_availability).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('updates a branch: keeps unspecified fields, re-checks the country/city pair', async () => {
    const c = (await call(s, 'POST', '/v1/partner/branches', { body: newBranch({ extra_flag: 'x' }) })).body
      .data;
    const u = await call(s, 'PATCH', `/v1/partner/branches/${c.id}`, {
      body: { is_busy: true, title: 'Renamed' },
    });
    expect(u.status).toBe(200);
    expect(u.body.data).toMatchObject({ is_busy: true, title: 'Renamed', extra_flag: 'x', city_id: 101 });
    expect(u.body.data.busy_mode_updated_at).not.toBeNull();
    expect(u.body.data.updated_at >= c.updated_at).toBe(true);
    const bad = await call(s, 'PATCH', `/v1/partner/branches/${c.id}`, { body: { city_id: 201 } });
    expect(bad.status).toBe(400);
    const theirs = (await call(s, 'GET', '/v1/partner/branches', { cred: s.other })).body.data.results[0].id;
    expect(
      (await call(s, 'PATCH', `/v1/partner/branches/${theirs}`, { body: { is_busy: true } })).status,
    ).toBe(404);
  });
});

describe('providers, price groups, dictionaries', () => {
  it('lists providers', async () => {
    const r = await call(s, 'GET', '/v1/partner/providers');
    expect(r.body.data.length).toBeGreaterThan(3);
    expect(r.body.data[0]).toHaveProperty('title');
  });

  it('price groups: create, put, patch, delete; in use → 409; tenancy 404', async () => {
    const c = await call(s, 'POST', '/v1/partner/price/groups', {
      body: { title: 'Airport', description: 'pricey' },
    });
    expect(c.status).toBe(201);
    const id = c.body.data.id;
    const put = await call(s, 'PUT', `/v1/partner/price/groups/${id}`, { body: { title: 'Airport T3' } });
    expect(put.body.data).toMatchObject({ title: 'Airport T3', description: '' });
    const patch = await call(s, 'PATCH', `/v1/partner/price/groups/${id}`, {
      body: { description: 'T3 only' },
    });
    expect(patch.body.data).toMatchObject({ title: 'Airport T3', description: 'T3 only' });
    const list = await call(s, 'GET', '/v1/partner/price/groups');
    expect(list.body.data.some((g: { id: number }) => g.id === id)).toBe(true);

    const used = await call(s, 'POST', '/v1/partner/branches', { body: newBranch({ price_group_id: id }) });
    expect(used.status).toBe(201);
    const del = await call(s, 'DELETE', `/v1/partner/price/groups/${id}`);
    expect(del.status).toBe(409);
    expect(del.body.error?.code).toBe('state_resource_in_use');
    await call(s, 'PATCH', `/v1/partner/branches/${used.body.data.id}`, { body: { price_group_id: null } });
    const ok = await call(s, 'DELETE', `/v1/partner/price/groups/${id}`);
    expect(ok.body.data).toEqual({ id, deleted: true });
    expect((await call(s, 'PATCH', `/v1/partner/price/groups/${id}`, { body: { title: 'x' } })).status).toBe(
      404,
    );
    const theirs = (await call(s, 'GET', '/v1/partner/price/groups', { cred: s.other })).body.data[0].id;
    expect((await call(s, 'DELETE', `/v1/partner/price/groups/${theirs}`)).status).toBe(404);
  });

  it('order statuses: the 11 rows of spec 2.7, translation_btn only on CANCELLED, READY, DELIVERED', async () => {
    const r = await call(s, 'GET', '/v1/partner/orders/statuses');
    expect(r.body.data.map((x: { id: number; status: string }) => `${x.id}:${x.status}`)).toEqual([
      '1:PLACED',
      '2:ACCEPTED',
      '3:CANCELLED',
      '4:READY',
      '5:DELIVERED',
      '6:SCHEDULED',
      '7:DRIVER ASSIGNED',
      '8:DRIVER ARRIVED',
      '9:PICKED UP',
      '10:PENDING',
      '11:VOID',
    ]);
    const withBtn = r.body.data
      .filter((x: { translation_btn?: unknown }) => x.translation_btn)
      .map((x: { status: string }) => x.status);
    expect(withBtn).toEqual(['CANCELLED', 'READY', 'DELIVERED']);
    for (const row of r.body.data) expect(row.translation.en).toBeTruthy();
    const ready = r.body.data[3];
    expect(ready.translation_btn.map((b: { order_type_id: number }) => b.order_type_id)).toEqual([1, 2, 3]);
  });

  it('country, city, currency and payment dictionaries', async () => {
    for (const d of ['countries', 'currencies', 'payment-statuses', 'payment-methods', 'payment-channels']) {
      const r = await call(s, 'GET', `/v1/partner/dictionaries/${d}`);
      expect(r.status, d).toBe(200);
      expect(r.body.data.length, d).toBeGreaterThan(3);
    }
    const cities = await call(s, 'GET', '/v1/partner/dictionaries/cities?country_id=2');
    expect(cities.body.data.length).toBeGreaterThan(0);
    expect(cities.body.data.every((c: { country_id: number }) => c.country_id === 2)).toBe(true);
  });
});
