import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorSmallMenu,
  expectError,
  findItem,
  getMenu,
  ok,
  type SmallMenu,
  syncAndPublish,
} from './menus-helpers.js';

// A fake clock: every request sees `t`; tests move it.
let t = Date.parse('2025-05-01T08:00:00.000Z');
let s: TestServer;
let m: SmallMenu;
let b1: number;
let b2: number;
const I = '/v1/partner/items';
const M = '/v1/partner/menus';
const MIN = 60_000;

beforeAll(async () => {
  s = await startTestServer({ now: () => t, rateLimit: 100_000 });
  m = await authorSmallMenu(s, s.credential, 'OOS');
  [b1, b2] = m.branches as [number, number];
  await syncAndPublish(s, m.brandId);
});
afterAll(() => s.close());

const item = async (id = m.item, branch = b1) => findItem(ok(await getMenu(s, m.brandId, branch)), id);
const mod = async (id: number, branch = b1) =>
  (await item(m.item, branch)).modifierGroups[0].modifiers.find((x: { id: number }) => x.id === id);
const oos = async (kind: string, q = '') =>
  ok(await call(s, 'GET', `/v1/partner/oos-activity/${kind}?size=100${q}`));

describe('availability', () => {
  it('marking a SKU unavailable shows in GET /menus at once, without publish, at that branch only', async () => {
    const r = ok(
      await call(s, 'PATCH', `${I}/OOS-NG/availability`, { body: { branch_id: b1, isAvailable: false } }),
    );
    expect(r).toEqual({
      branch_id: b1,
      partner_item_id: 'OOS-NG',
      item_ids: [m.item],
      isAvailable: false,
      stock: null,
      snoozed_until: null,
    });
    expect((await item()).isAvailable).toBe(false);
    expect((await item(m.item, b2)).isAvailable).toBe(true);
    ok(await call(s, 'PATCH', `${I}/OOS-NG/availability`, { body: { branch_id: b1, isAvailable: true } }));
    expect((await item()).isAvailable).toBe(true);
  });

  it('modifiers are SKUs too', async () => {
    ok(await call(s, 'PATCH', `${I}/OOS-EGG/availability`, { body: { branch_id: b1, isAvailable: false } }));
    expect((await mod(m.mods[0]!)).isAvailable).toBe(false);
    ok(await call(s, 'PATCH', `${I}/OOS-EGG/availability`, { body: { branch_id: b1, isAvailable: true } }));
    expect((await mod(m.mods[0]!)).isAvailable).toBe(true);
  });

  it('an unknown SKU → 404 resource_unmapped with the SKU in details', async () => {
    const r = await call(s, 'PATCH', `${I}/NOPE-1/availability`, {
      body: { branch_id: b1, isAvailable: false },
    });
    expectError(r, 404, 'resource_unmapped');
    expect(r.body.error?.details).toMatchObject({ partner_item_ids: ['NOPE-1'] });
  });

  it('bulk is all-or-nothing: one unknown SKU fails the call and changes nothing', async () => {
    const before = await oos('items');
    const r = await call(s, 'PATCH', `${I}/availability`, {
      body: {
        branch_id: b1,
        items: [
          { partner_item_id: 'OOS-NG', isAvailable: false },
          { partner_item_id: 'NOPE-A', isAvailable: false },
          { partner_item_id: 'OOS-NU', isAvailable: false },
          { partner_item_id: 'NOPE-B', isAvailable: false },
        ],
      },
    });
    expectError(r, 404, 'resource_unmapped');
    expect(r.body.error?.details).toMatchObject({ partner_item_ids: ['NOPE-A', 'NOPE-B'] });
    expect((await item()).isAvailable).toBe(true);
    expect((await item(m.item2)).isAvailable).toBe(true);
    expect((await oos('items')).total).toBe(before.total);

    const good = ok(
      await call(s, 'PATCH', `${I}/availability`, {
        body: {
          branch_id: b1,
          items: [
            { partner_item_id: 'OOS-NG', isAvailable: false },
            { partner_item_id: 'OOS-NU', isAvailable: false },
          ],
        },
      }),
    );
    expect(good.items.map((x: { isAvailable: boolean }) => x.isAvailable)).toEqual([false, false]);
    expect((await item()).isAvailable).toBe(false);
    expect((await item(m.item2)).isAvailable).toBe(false);
    ok(
      await call(s, 'PATCH', `${I}/availability`, {
        body: {
          branch_id: b1,
          items: [
            { partner_item_id: 'OOS-NG', isAvailable: true },
            { partner_item_id: 'OOS-NU', isAvailable: true },
          ],
        },
      }),
    );
  });

  it('a branch of another business → 404; needs menus:oos', async () => {
    const theirs = ok(await call(s, 'GET', '/v1/partner/branches', { cred: s.other })).results[0].id;
    expectError(
      await call(s, 'PATCH', `${I}/OOS-NG/availability`, { body: { branch_id: theirs, isAvailable: false } }),
      404,
      'resource_not_found',
    );
    const reader = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['menus:read', 'menus:update'],
    });
    expectError(
      await call(s, 'PATCH', `${I}/OOS-NG/availability`, {
        cred: reader,
        body: { branch_id: b1, isAvailable: false },
      }),
      403,
      'auth_forbidden',
    );
  });
});

describe('snooze', () => {
  it('takes the item out until its end time, then it comes back by itself', async () => {
    const until = new Date(t + 30 * MIN).toISOString();
    const r = ok(await call(s, 'POST', `${I}/OOS-NG/snooze`, { body: { branch_id: b1, until } }));
    expect(r).toMatchObject({ isAvailable: false, snoozed_until: until });
    expect(await item()).toMatchObject({ isAvailable: false, snoozed_until: until });

    t += 29 * MIN;
    expect(await item()).toMatchObject({ isAvailable: false, snoozed_until: until });
    t += 1 * MIN;
    expect(await item()).toMatchObject({ isAvailable: true, snoozed_until: null });
    t += 60 * MIN;
    expect(await item()).toMatchObject({ isAvailable: true, snoozed_until: null });

    const history = await oos('items', `&branch_id=${b1}`);
    const row = history.results.find((x: { action: string }) => x.action === 'snooze');
    expect(row).toMatchObject({
      entity_id: m.item,
      partner_item_id: 'OOS-NG',
      until,
      actor: s.credential.key,
    });
    expect(row.before).toMatchObject({ isAvailable: true });
    expect(row.after).toMatchObject({ isAvailable: false, snoozed_until: until });
  });

  it('marking the item available ends a snooze early', async () => {
    ok(
      await call(s, 'POST', `${I}/OOS-NG/snooze`, {
        body: { branch_id: b1, until: new Date(t + 10 * MIN).toISOString() },
      }),
    );
    expect((await item()).isAvailable).toBe(false);
    ok(await call(s, 'PATCH', `${I}/OOS-NG/availability`, { body: { branch_id: b1, isAvailable: true } }));
    expect(await item()).toMatchObject({ isAvailable: true, snoozed_until: null });
  });

  it('an end time in the past → 400; an unknown SKU → 404 resource_unmapped', async () => {
    expectError(
      await call(s, 'POST', `${I}/OOS-NG/snooze`, {
        body: { branch_id: b1, until: new Date(t - MIN).toISOString() },
      }),
      400,
      'request_invalid',
    );
    expectError(
      await call(s, 'POST', `${I}/OOS-NG/snooze`, { body: { branch_id: b1, until: 'tomorrow' } }),
      400,
      'request_invalid',
    );
    const r = await call(s, 'POST', `${I}/NOPE/snooze`, {
      body: { branch_id: b1, until: new Date(t + MIN).toISOString() },
    });
    expectError(r, 404, 'resource_unmapped');
    expect(r.body.error?.details).toMatchObject({ partner_item_ids: ['NOPE'] });
  });
});

describe('stock', () => {
  it('stock counts show at once; 0 makes the item unavailable; null stops counting', async () => {
    const r = ok(
      await call(s, 'PATCH', `${I}/stocks`, {
        body: {
          branch_id: b1,
          items: [
            { partner_item_id: 'OOS-NG', stock: 0 },
            { partner_item_id: 'OOS-NU', stock: 7 },
          ],
        },
      }),
    );
    expect(r.items).toEqual([
      {
        branch_id: b1,
        partner_item_id: 'OOS-NG',
        item_ids: [m.item],
        isAvailable: false,
        stock: 0,
        snoozed_until: null,
      },
      {
        branch_id: b1,
        partner_item_id: 'OOS-NU',
        item_ids: [m.item2],
        isAvailable: true,
        stock: 7,
        snoozed_until: null,
      },
    ]);
    expect(await item()).toMatchObject({ isAvailable: false, stock: 0 });
    expect(await item(m.item2)).toMatchObject({ isAvailable: true, stock: 7 });
    ok(
      await call(s, 'PATCH', `${I}/stocks`, {
        body: { branch_id: b1, items: [{ partner_item_id: 'OOS-NG', stock: 5 }] },
      }),
    );
    expect(await item()).toMatchObject({ isAvailable: true, stock: 5 });
    ok(
      await call(s, 'PATCH', `${I}/stocks`, {
        body: {
          branch_id: b1,
          items: [
            { partner_item_id: 'OOS-NG', stock: null },
            { partner_item_id: 'OOS-NU', stock: null },
          ],
        },
      }),
    );
    expect(await item()).toMatchObject({ isAvailable: true, stock: null });
  });

  it('bulk is all-or-nothing, with the unknown SKUs in details', async () => {
    const r = await call(s, 'PATCH', `${I}/stocks`, {
      body: {
        branch_id: b1,
        items: [
          { partner_item_id: 'OOS-NG', stock: 0 },
          { partner_item_id: 'GHOST', stock: 3 },
        ],
      },
    });
    expectError(r, 404, 'resource_unmapped');
    expect(r.body.error?.details).toMatchObject({ partner_item_ids: ['GHOST'] });
    expect(await item()).toMatchObject({ isAvailable: true, stock: null });
  });

  it('negative stock, duplicates and unknown fields → 400', async () => {
    expectError(
      await call(s, 'PATCH', `${I}/stocks`, {
        body: { branch_id: b1, items: [{ partner_item_id: 'OOS-NG', stock: -1 }] },
      }),
      400,
      'request_invalid',
    );
    expectError(
      await call(s, 'PATCH', `${I}/stocks`, {
        body: {
          branch_id: b1,
          items: [
            { partner_item_id: 'OOS-NG', stock: 1 },
            { partner_item_id: 'OOS-NG', stock: 2 },
          ],
        },
      }),
      400,
      'request_invalid',
    );
    expectError(
      await call(s, 'PATCH', `${I}/stocks`, { body: { branch_id: b1, items: [], extra: 1 } }),
      400,
      'request_invalid',
    );
  });

  it('stock:update is accepted instead of menus:oos', async () => {
    const pos = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['stock:update'] });
    ok(
      await call(s, 'PATCH', `${I}/stocks`, {
        cred: pos,
        body: { branch_id: b2, items: [{ partner_item_id: 'OOS-NG', stock: 3 }] },
      }),
    );
    expect(await item(m.item, b2)).toMatchObject({ stock: 3 });
    expectError(
      await call(s, 'PATCH', `${I}/OOS-NG/availability`, {
        cred: pos,
        body: { branch_id: b2, isAvailable: false },
      }),
      403,
      'auth_forbidden',
    );
    ok(
      await call(s, 'PATCH', `${I}/stocks`, {
        body: { branch_id: b2, items: [{ partner_item_id: 'OOS-NG', stock: null }] },
      }),
    );
  });
});

describe('enable toggles', () => {
  it('disabling items at one branch is live at once and survives the next sync and publish', async () => {
    const r = ok(
      await call(s, 'PATCH', `${M}/items/enable`, {
        body: { ids: [m.item], isEnabled: false, branch_ids: [b1] },
      }),
    );
    expect(r).toEqual({
      ids: [m.item],
      isEnabled: false,
      branch_ids: [b1],
      stores: [{ brand_id: m.brandId, branch_id: b1 }],
    });
    expect((await item()).enabled).toBe(false);
    expect((await item(m.item, b2)).enabled).toBe(true);
    await syncAndPublish(s, m.brandId);
    expect((await item()).enabled).toBe(false);
    ok(
      await call(s, 'PATCH', `${M}/items/enable`, {
        body: { ids: [m.item], isEnabled: true, branch_ids: [b1] },
      }),
    );
    expect((await item()).enabled).toBe(true);
  });

  it('without branch_ids: the business definition and every store', async () => {
    ok(await call(s, 'PATCH', `${M}/sections/enable`, { body: { ids: [m.section], isEnabled: false } }));
    for (const b of [b1, b2]) expect(ok(await getMenu(s, m.brandId, b)).sections[0].isEnabled).toBe(false);
    const tree = ok(await call(s, 'GET', M));
    expect(
      tree.brands.find((x: { brand_id: number }) => x.brand_id === m.brandId).sections[0].isEnabled,
    ).toBe(false);
    ok(await call(s, 'PATCH', `${M}/sections/enable`, { body: { ids: [m.section], isEnabled: true } }));
    expect(ok(await getMenu(s, m.brandId, b1)).sections[0].isEnabled).toBe(true);
  });

  it('a disabled category leaves the store menu (its shape has no flag) until enabled again', async () => {
    ok(
      await call(s, 'PATCH', `${M}/categories/enable`, {
        body: { ids: [m.category], isEnabled: false, branch_ids: [b2] },
      }),
    );
    expect(ok(await getMenu(s, m.brandId, b2)).sections[0].categories).toEqual([]);
    expect(ok(await getMenu(s, m.brandId, b1)).sections[0].categories).toHaveLength(1);
    ok(
      await call(s, 'PATCH', `${M}/categories/enable`, {
        body: { ids: [m.category], isEnabled: true, branch_ids: [b2] },
      }),
    );
    expect(ok(await getMenu(s, m.brandId, b2)).sections[0].categories).toHaveLength(1);
  });

  it('unknown ids → 404 naming them; recorded as enable activity', async () => {
    const unknown = await call(s, 'PATCH', `${M}/items/enable`, {
      body: { ids: [999_998, m.item, 999_999], isEnabled: false },
    });
    expectError(unknown, 404, 'resource_not_found');
    expect(unknown.body.error?.details).toEqual({ missing_ids: [999_998, 999_999] });
    const sections = await oos('sections');
    expect(
      sections.results.filter((x: { action: string }) => x.action === 'enable').length,
    ).toBeGreaterThanOrEqual(2);
    const cats = await oos('categories', `&branch_id=${b2}`);
    expect(cats.results[0]).toMatchObject({
      entity_type: 'category',
      entity_id: m.category,
      before: { isEnabled: false },
      after: { isEnabled: true },
    });
  });
});

describe('OOS activity', () => {
  it('records who, when, what, before and after, newest first, filtered by branch', async () => {
    const all = await oos('items', `&brand_id=${m.brandId}`);
    expect(all.total).toBeGreaterThan(5);
    const times = all.results.map((r: { at: string }) => Date.parse(r.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    for (const r of all.results) {
      expect(r).toMatchObject({ actor: expect.any(String), entity_type: 'item', brand_id: m.brandId });
      expect(Object.keys(r).sort()).toEqual(
        [
          'action',
          'actor',
          'after',
          'at',
          'before',
          'branch_id',
          'brand_id',
          'entity_id',
          'entity_type',
          'id',
          'partner_item_id',
          'title',
          'until',
        ].sort(),
      );
    }
    const atB2 = await oos('items', `&branch_id=${b2}&brand_id=${m.brandId}`);
    expect(atB2.results.every((r: { branch_id: number }) => r.branch_id === b2)).toBe(true);
    expect(atB2.total).toBeLessThan(all.total);
  });

  it('summaries count changes per entity and branch', async () => {
    const sum = await oos('summaries', `&branch_id=${b1}`);
    const ng = sum.results.find(
      (r: { entity_type: string; entity_id: number }) => r.entity_type === 'item' && r.entity_id === m.item,
    );
    expect(ng).toMatchObject({ branch_id: b1, partner_item_id: 'OOS-NG', title: 'Nasi goreng' });
    expect(ng.changes).toBeGreaterThanOrEqual(8);
    expect(ng.went_out).toBeGreaterThanOrEqual(3);
    expect(ng.came_back).toBeGreaterThanOrEqual(2);
  });

  it('paginates {results, page, size, total}', async () => {
    const p1 = ok(await call(s, 'GET', '/v1/partner/oos-activity/items?size=2&page=1'));
    const p2 = ok(await call(s, 'GET', '/v1/partner/oos-activity/items?size=2&page=2'));
    expect(p1).toMatchObject({ page: 1, size: 2 });
    expect(p1.results).toHaveLength(2);
    expect(p2.results[0].id).not.toBe(p1.results[0].id);
    expect(p2.total).toBe(p1.total);
    expectError(await call(s, 'GET', '/v1/partner/oos-activity/items?size=101'), 400, 'request_invalid');
  });

  it('ranges: default last 24 h; over 90 days → request_invalid_range; from after to → request_invalid', async () => {
    const now = t;
    const inRange = ok(
      await call(
        s,
        'GET',
        `/v1/partner/oos-activity/items?from=${new Date(now - 90 * 86_400_000).toISOString()}&to=${new Date(now).toISOString()}`,
      ),
    );
    expect(inRange.total).toBeGreaterThan(0);
    expectError(
      await call(
        s,
        'GET',
        `/v1/partner/oos-activity/items?from=${new Date(now - 91 * 86_400_000).toISOString()}&to=${new Date(now).toISOString()}`,
      ),
      400,
      'request_invalid_range',
    );
    expectError(
      await call(
        s,
        'GET',
        `/v1/partner/oos-activity/summaries?from=${new Date(now).toISOString()}&to=${new Date(now - 1000).toISOString()}`,
      ),
      400,
      'request_invalid',
    );
    expectError(
      await call(s, 'GET', '/v1/partner/oos-activity/items?from=yesterday'),
      400,
      'request_invalid',
    );
    t += 2 * 86_400_000;
    expect(ok(await call(s, 'GET', '/v1/partner/oos-activity/items')).total).toBe(0);
  });

  it('another business sees none of it', async () => {
    const q = `from=${new Date(t - 80 * 86_400_000).toISOString()}&to=${new Date(t).toISOString()}&size=100`;
    const ours = ok(await call(s, 'GET', `/v1/partner/oos-activity/items?${q}`));
    const theirs = ok(await call(s, 'GET', `/v1/partner/oos-activity/items?${q}`, { cred: s.other }));
    expect(ours.results.some((r: { brand_id: number }) => r.brand_id === m.brandId)).toBe(true);
    expect(theirs.results.some((r: { brand_id: number }) => r.brand_id === m.brandId)).toBe(false);
  });
});
