import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MenuSnapshot } from '../../src/contract/schemas/menus.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import {
  authorSmallMenu,
  everyDay,
  expectError,
  findItem,
  freshBrand,
  getMenu,
  ok,
  type SmallMenu,
  syncAndPublish,
} from './menus-helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ rateLimit: 100_000 });
});
afterAll(() => s.close());

const M = '/v1/partner/menus';
const LUNCH = everyDay(1100, 1400);

describe('the three layers', () => {
  let m: SmallMenu;
  let b1: number;
  let b2: number;
  beforeAll(async () => {
    m = await authorSmallMenu(s, s.credential, 'LAYER');
    [b1, b2] = m.branches as [number, number];
  });

  it('before the first publish GET /menus answers 404 resource_not_found, even after a sync', async () => {
    expectError(await getMenu(s, m.brandId, b1), 404, 'resource_not_found');
    const sync = ok(await call(s, 'POST', `${M}/sync`, { body: { brand_id: m.brandId } }));
    expect(sync).toMatchObject({ brand_id: m.brandId, branches: [b1, b2], fieldIncludeOnSync: [] });
    expectError(await getMenu(s, m.brandId, b1), 404, 'resource_not_found');
  });

  it('publish builds the snapshot of the pinned shape and logs one shipment per provider', async () => {
    const pub = ok(await call(s, 'POST', `${M}/publish`, { body: { brand_id: m.brandId } }));
    expect(Object.keys(pub).sort()).toEqual(['branches', 'providers', 'published_at', 'version']);
    expect(pub).toMatchObject({ version: 1, branches: [b1, b2], providers: [1, 2] });

    const menu = ok(await getMenu(s, m.brandId, b1));
    expect(MenuSnapshot.safeParse(menu).success).toBe(true);
    expect(menu).toMatchObject({
      brand_id: m.brandId,
      branch_id: b1,
      version: 1,
      published_at: pub.published_at,
    });
    const section = menu.sections[0];
    expect(section).toMatchObject({
      id: m.section,
      title: 'Mains',
      availableTimes: everyDay(900, 2100),
      isEnabled: true,
      visibilities: {},
      blackoutDates: [],
    });
    expect(section.categories.map((c: { id: number }) => c.id)).toEqual([m.category]);
    const ng = findItem(menu, m.item);
    expect(ng).toEqual({
      id: m.item,
      title: 'Nasi goreng',
      partner_item_id: 'LAYER-NG',
      prices: { '1': '35000.00', '2': '38000.00' },
      groupPrices: {},
      visibilities: {},
      enabled: true,
      isAvailable: true,
      stock: null,
      snoozed_until: null,
      modifierGroups: [
        {
          id: m.group,
          title: 'Extras',
          min: 0,
          max: 2,
          modifiers: [
            {
              id: m.mods[0],
              title: 'Egg',
              partner_item_id: 'LAYER-EGG',
              prices: { '1': '5000.00' },
              isAvailable: true,
            },
            {
              id: m.mods[1],
              title: 'Krupuk',
              partner_item_id: 'LAYER-KRUPUK',
              prices: { '1': '3000.00' },
              isAvailable: true,
            },
          ],
        },
      ],
    });
    // Modifiers appear only inside their groups.
    expect(findItem(menu, m.mods[0]!)).toBeUndefined();

    const log = ok(await call(s, 'GET', `${M}/publications?brand_id=${m.brandId}&size=100`));
    expect(log.total).toBe(4);
    expect(
      log.results.every(
        (r: { status: string; version: number }) => r.status === 'shipped' && r.version === 1,
      ),
    ).toBe(true);
  });

  it('a business edit is invisible until sync AND publish', async () => {
    ok(
      await call(s, 'PATCH', `${M}/items/${m.item}`, {
        body: { prices: { '1': '36000.00', '2': '39000.00' }, title: 'Nasi goreng kampung' },
      }),
    );
    const before = findItem(ok(await getMenu(s, m.brandId, b1)), m.item);
    expect(before.prices['1']).toBe('35000.00');

    ok(await call(s, 'POST', `${M}/sync`, { body: { brand_id: m.brandId } }));
    expect(findItem(ok(await getMenu(s, m.brandId, b1)), m.item).prices['1']).toBe('35000.00');

    const pub = ok(await call(s, 'POST', `${M}/publish`, { body: { brand_id: m.brandId } }));
    expect(pub.version).toBe(2);
    const after = ok(await getMenu(s, m.brandId, b1));
    expect(after.version).toBe(2);
    expect(findItem(after, m.item)).toMatchObject({
      title: 'Nasi goreng kampung',
      prices: { '1': '36000.00', '2': '39000.00' },
    });
  });

  it('publish without sync ships nothing new', async () => {
    ok(await call(s, 'PATCH', `${M}/items/${m.item}`, { body: { prices: { '1': '37000.00' } } }));
    ok(await call(s, 'POST', `${M}/publish`, { body: { brand_id: m.brandId } }));
    expect(findItem(ok(await getMenu(s, m.brandId, b1)), m.item).prices['1']).toBe('36000.00');
  });

  it('a store override (PATCH section with branch_id) reaches GET /menus on publish, only at that store', async () => {
    const edited = ok(
      await call(s, 'PATCH', `${M}/sections/${m.section}`, {
        body: { branch_id: b1, availableTimes: LUNCH, isEnabled: false },
      }),
    );
    expect(edited).toMatchObject({ id: m.section, branch_id: b1, availableTimes: LUNCH, isEnabled: false });
    expect(ok(await getMenu(s, m.brandId, b1)).sections[0].availableTimes).toEqual(everyDay(900, 2100));

    ok(await call(s, 'POST', `${M}/publish`, { body: { brand_id: m.brandId, branch_ids: [b1] } }));
    expect(ok(await getMenu(s, m.brandId, b1)).sections[0]).toMatchObject({
      availableTimes: LUNCH,
      isEnabled: false,
    });
    expect(ok(await getMenu(s, m.brandId, b2)).sections[0]).toMatchObject({
      availableTimes: everyDay(900, 2100),
      isEnabled: true,
    });
    // The business definition is untouched.
    const tree = ok(await call(s, 'GET', M));
    const brand = tree.brands.find((b: { brand_id: number }) => b.brand_id === m.brandId);
    expect(brand.sections[0]).toMatchObject({ availableTimes: everyDay(900, 2100), isEnabled: true });
  });

  it('sync preserves store overrides of the four fields but replays everything else', async () => {
    ok(
      await call(s, 'PATCH', `${M}/sections/${m.section}`, {
        body: {
          title: 'Main dishes',
          availableTimes: everyDay(800, 2200),
          isEnabled: true,
          blackoutDates: ['2025-12-25'],
        },
      }),
    );
    await syncAndPublish(s, m.brandId);
    const at1 = ok(await getMenu(s, m.brandId, b1)).sections[0];
    expect(at1).toMatchObject({
      title: 'Main dishes',
      availableTimes: LUNCH,
      isEnabled: false,
      blackoutDates: [],
    });
    const at2 = ok(await getMenu(s, m.brandId, b2)).sections[0];
    // b2 never overrode anything, but its store layer holds what the first sync copied: preserved too.
    expect(at2).toMatchObject({
      title: 'Main dishes',
      availableTimes: everyDay(900, 2100),
      isEnabled: true,
      blackoutDates: [],
    });
  });

  it('fieldIncludeOnSync overwrites exactly the listed fields', async () => {
    await syncAndPublish(s, m.brandId, s.credential, {
      branch_ids: [b1],
      fieldIncludeOnSync: ['availableTimes'],
    });
    const at1 = ok(await getMenu(s, m.brandId, b1)).sections[0];
    expect(at1).toMatchObject({ availableTimes: everyDay(800, 2200), isEnabled: false, blackoutDates: [] });
    await syncAndPublish(s, m.brandId, s.credential, {
      fieldIncludeOnSync: ['isEnabled', 'blackoutDates', 'availableTimes'],
    });
    for (const b of [b1, b2]) {
      expect(ok(await getMenu(s, m.brandId, b)).sections[0]).toMatchObject({
        availableTimes: everyDay(800, 2200),
        isEnabled: true,
        blackoutDates: ['2025-12-25'],
      });
    }
  });

  it('deleting from the business definition reaches stores after sync and publish', async () => {
    ok(await call(s, 'DELETE', `${M}/items/${m.item2}`));
    expect(findItem(ok(await getMenu(s, m.brandId, b1)), m.item2)).toBeDefined();
    await syncAndPublish(s, m.brandId);
    expect(findItem(ok(await getMenu(s, m.brandId, b1)), m.item2)).toBeUndefined();
  });

  it('GET /menus with only one of brand_id, branch_id → 400; neither → the business tree', async () => {
    expectError(await call(s, 'GET', `${M}?brand_id=${m.brandId}`), 400, 'request_invalid');
    expectError(await call(s, 'GET', `${M}?branch_id=${b1}`), 400, 'request_invalid');
    const tree = ok(await call(s, 'GET', M));
    expect(tree.business_id).toBe(s.credential.businessId);
    const brand = tree.brands.find((b: { brand_id: number }) => b.brand_id === m.brandId);
    expect(brand.sections[0].categories[0].items[0]).toMatchObject({
      id: m.item,
      partner_item_id: 'LAYER-NG',
    });
    expect(brand.unlinked).toEqual({ categories: [], items: [], modifierGroups: [] });
  });

  it('publish of a store that was never synced → 400; a branch not carrying the brand → 400', async () => {
    const other = await freshBrand(s, s.credential, 'Never synced');
    expectError(
      await call(s, 'POST', `${M}/publish`, { body: { brand_id: other.brandId } }),
      400,
      'request_invalid',
    );
    expectError(
      await call(s, 'POST', `${M}/publish`, {
        body: { brand_id: other.brandId, branch_ids: [other.branches[0]] },
      }),
      400,
      'request_invalid',
    );
    const list = ok(await call(s, 'GET', '/v1/partner/branches'));
    const notCarrying = list.results.find(
      (b: { brand_ids: number[] }) => !b.brand_ids.includes(other.brandId),
    );
    if (notCarrying) {
      expectError(
        await call(s, 'POST', `${M}/sync`, {
          body: { brand_id: other.brandId, branch_ids: [notCarrying.id] },
        }),
        400,
        'request_invalid',
      );
    }
  });
});

describe('authoring', () => {
  let brandId: number;
  beforeAll(async () => {
    ({ brandId } = await freshBrand(s, s.credential, 'Authoring'));
  });

  it('created ids come back at data.id with 201', async () => {
    const r = await call(s, 'POST', `${M}/sections`, {
      body: { brand_id: brandId, title: 'Breakfast', business_id: 999 },
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      id: expect.any(Number),
      brand_id: brandId,
      title: 'Breakfast',
      isEnabled: true,
      availableTimes: null,
    });
    const c = await call(s, 'POST', `${M}/categories`, { body: { brand_id: brandId, title: 'Eggs' } });
    expect(c.status).toBe(201);
    expect(typeof c.body.data.id).toBe('number');
  });

  it('unknown body fields → 400 request_invalid; business_id is accepted and ignored', async () => {
    expectError(
      await call(s, 'POST', `${M}/sections`, { body: { brand_id: brandId, title: 'X', colour: 'red' } }),
      400,
      'request_invalid',
    );
    expectError(
      await call(s, 'POST', `${M}/items`, {
        body: {
          brand_id: brandId,
          title: 'X',
          partner_item_id: 'X',
          prices: {},
          onlyModifier: false,
          price: 1,
        },
      }),
      400,
      'request_invalid',
    );
  });

  it('PriceMap and VisibilitiesMap keys must be providers; groupPrices keys price groups of the business', async () => {
    const base = { brand_id: brandId, title: 'Toast', onlyModifier: false };
    expectError(
      await call(s, 'POST', `${M}/items`, {
        body: { ...base, partner_item_id: 'T1', prices: { '999': '1.00' } },
      }),
      400,
      'request_invalid',
    );
    expectError(
      await call(s, 'POST', `${M}/items`, {
        body: { ...base, partner_item_id: 'T1', prices: { '1': '1.5x' } },
      }),
      400,
      'request_invalid',
    );
    expectError(
      await call(s, 'POST', `${M}/items`, {
        body: { ...base, partner_item_id: 'T1', prices: {}, visibilities: { '999': true } },
      }),
      400,
      'request_invalid',
    );
    const groups = ok(await call(s, 'GET', '/v1/partner/price/groups'));
    const otherGroups = ok(await call(s, 'GET', '/v1/partner/price/groups', { cred: s.other }));
    expectError(
      await call(s, 'POST', `${M}/items`, {
        body: { ...base, partner_item_id: 'T1', prices: {}, groupPrices: { [otherGroups[0].id]: '1.00' } },
      }),
      400,
      'request_invalid',
    );
    const okItem = ok(
      await call(s, 'POST', `${M}/items`, {
        body: {
          ...base,
          partner_item_id: 'T1',
          prices: { '1': '12000' },
          groupPrices: { [groups[0].id]: '11000' },
        },
      }),
      201,
    );
    expect(okItem.groupPrices).toEqual({ [groups[0].id]: '11000' });
    // A SKU is unique within a brand.
    expectError(
      await call(s, 'POST', `${M}/items`, { body: { ...base, partner_item_id: 'T1', prices: {} } }),
      400,
      'request_invalid',
    );
  });

  it('update and delete correct mistakes', async () => {
    const sec = ok(
      await call(s, 'POST', `${M}/sections`, { body: { brand_id: brandId, title: 'Typo' } }),
      201,
    );
    expect(
      ok(
        await call(s, 'PATCH', `${M}/sections/${sec.id}`, {
          body: { title: 'Lunch', availableTimes: LUNCH },
        }),
      ),
    ).toMatchObject({
      title: 'Lunch',
      availableTimes: LUNCH,
      branch_id: null,
    });
    expect(
      ok(await call(s, 'PATCH', `${M}/sections/${sec.id}`, { body: { availableTimes: null } }))
        .availableTimes,
    ).toBeNull();
    expectError(await call(s, 'PATCH', `${M}/sections/${sec.id}`, { body: {} }), 400, 'request_invalid');
    const cat = ok(
      await call(s, 'POST', `${M}/categories`, { body: { brand_id: brandId, title: 'Sandwhiches' } }),
      201,
    );
    expect(
      ok(await call(s, 'PATCH', `${M}/categories/${cat.id}`, { body: { title: 'Sandwiches' } })).title,
    ).toBe('Sandwiches');
    const g = ok(
      await call(s, 'POST', `${M}/modifier-groups`, {
        body: { brand_id: brandId, title: 'Bread', min: 1, max: 1 },
      }),
      201,
    );
    expectError(
      await call(s, 'PATCH', `${M}/modifier-groups/${g.id}`, { body: { min: 2 } }),
      400,
      'request_invalid',
    );
    expect(ok(await call(s, 'PATCH', `${M}/modifier-groups/${g.id}`, { body: { max: 2 } })).max).toBe(2);
    ok(
      await call(s, 'POST', `${M}/categories/link`, { body: { section_id: sec.id, category_ids: [cat.id] } }),
    );
    expect(
      ok(
        await call(s, 'POST', `${M}/categories/unlink`, {
          body: { section_id: sec.id, category_ids: [cat.id] },
        }),
      ).category_ids,
    ).toEqual([]);
    for (const [path, id] of [
      ['sections', sec.id],
      ['categories', cat.id],
      ['modifier-groups', g.id],
    ] as const) {
      expect(ok(await call(s, 'DELETE', `${M}/${path}/${id}`))).toEqual({ id, deleted: true });
      expectError(await call(s, 'DELETE', `${M}/${path}/${id}`), 404, 'resource_not_found');
    }
  });

  it('write scopes: menus:create, menus:update, menus:delete', async () => {
    const reader = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['menus:read'] });
    const r = await call(s, 'POST', `${M}/sections`, {
      cred: reader,
      body: { brand_id: brandId, title: 'No' },
    });
    expectError(r, 403, 'auth_forbidden');
    expect((r.body.error?.details as { required_scope?: unknown })?.required_scope).toBeDefined();
    expectError(
      await call(s, 'POST', `${M}/sync`, { cred: reader, body: { brand_id: brandId } }),
      403,
      'auth_forbidden',
    );
    expectError(await call(s, 'DELETE', `${M}/items/1`, { cred: reader }), 403, 'auth_forbidden');
    expect((await call(s, 'GET', M, { cred: reader })).status).toBe(200);
  });

  it('every write needs an Idempotency-Key; a replay returns the same id', async () => {
    expectError(
      await call(s, 'POST', `${M}/categories`, { key: null, body: { brand_id: brandId, title: 'K' } }),
      400,
      'request_missing_idempotency_key',
    );
    const a = await call(s, 'POST', `${M}/categories`, {
      key: 'menu-idem-1',
      body: { brand_id: brandId, title: 'K' },
    });
    const b = await call(s, 'POST', `${M}/categories`, {
      key: 'menu-idem-1',
      body: { brand_id: brandId, title: 'K' },
    });
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.data.id).toBe(a.body.data.id);
  });
});

describe('link validation', () => {
  let m: SmallMenu;
  beforeAll(async () => {
    m = await authorSmallMenu(s, s.credential, 'LINK');
  });
  const link = (body: Record<string, unknown>) => call(s, 'POST', `${M}/modifier-groups/link`, { body });

  it('min > max → 400 on create', async () => {
    expectError(
      await call(s, 'POST', `${M}/modifier-groups`, {
        body: { brand_id: m.brandId, title: 'Bad', min: 3, max: 2 },
      }),
      400,
      'request_invalid',
    );
  });

  it('restated min, max and modifier_ids must match the group', async () => {
    const good = {
      group_id: m.group,
      item_ids: [m.item2],
      min: 0,
      max: 2,
      modifier_ids: [m.mods[1], m.mods[0]],
    };
    expectError(await link({ ...good, min: 1 }), 400, 'request_invalid');
    expectError(await link({ ...good, max: 3 }), 400, 'request_invalid');
    expectError(await link({ ...good, min: 3, max: 2 }), 400, 'request_invalid');
    expectError(await link({ ...good, modifier_ids: [m.mods[0]] }), 400, 'request_invalid');
    expectError(
      await link({ ...good, modifier_ids: [m.mods[0], m.mods[1], m.item] }),
      400,
      'request_invalid',
    );
    const { max: _max, ...noMax } = good;
    expectError(await link(noMax), 400, 'request_invalid');
    const r = ok(await link(good));
    expect(r.item_ids).toEqual([m.item, m.item2].sort((a, b) => a - b));
  });

  it('modifiers must be onlyModifier:true; items offered a group must not be', async () => {
    const r = await call(s, 'POST', `${M}/modifier-groups/modifiers`, {
      body: { group_id: m.group, modifier_ids: [m.item] },
    });
    expectError(r, 400, 'request_invalid');
    expect(JSON.stringify(r.body.error?.details)).toContain('modifier_ids');
    expectError(
      await link({ group_id: m.group, item_ids: [m.mods[0]], min: 0, max: 2, modifier_ids: m.mods }),
      400,
      'request_invalid',
    );
    expectError(
      await call(s, 'POST', `${M}/items/categories/link`, {
        body: { item_id: m.mods[0], category_ids: [m.category] },
      }),
      400,
      'request_invalid',
    );
  });

  it('links stay within one brand', async () => {
    const other = await freshBrand(s, s.credential, 'Other brand');
    const cat = ok(
      await call(s, 'POST', `${M}/categories`, { body: { brand_id: other.brandId, title: 'Elsewhere' } }),
      201,
    );
    expectError(
      await call(s, 'POST', `${M}/categories/link`, {
        body: { section_id: m.section, category_ids: [cat.id] },
      }),
      400,
      'request_invalid',
    );
  });
});

describe('tenancy', () => {
  let m: SmallMenu;
  beforeAll(async () => {
    m = await authorSmallMenu(s, s.credential, 'TEN');
    await syncAndPublish(s, m.brandId);
  });
  const o = () => ({ cred: s.other });

  it("another business's brand, branch, section, category, item and group ids → 404 resource_not_found", async () => {
    expect((await getMenu(s, m.brandId, m.branches[0]!)).status).toBe(200);
    expectError(await getMenu(s, m.brandId, m.branches[0]!, s.other), 404, 'resource_not_found');
    expectError(
      await call(s, 'PATCH', `${M}/sections/${m.section}`, { ...o(), body: { title: 'Mine' } }),
      404,
      'resource_not_found',
    );
    expectError(await call(s, 'DELETE', `${M}/sections/${m.section}`, o()), 404, 'resource_not_found');
    expectError(
      await call(s, 'PATCH', `${M}/items/${m.item}`, { ...o(), body: { title: 'Mine' } }),
      404,
      'resource_not_found',
    );
    expectError(await call(s, 'DELETE', `${M}/modifier-groups/${m.group}`, o()), 404, 'resource_not_found');
    expectError(
      await call(s, 'POST', `${M}/sections`, { ...o(), body: { brand_id: m.brandId, title: 'Mine' } }),
      404,
      'resource_not_found',
    );
    expectError(
      await call(s, 'POST', `${M}/sync`, { ...o(), body: { brand_id: m.brandId } }),
      404,
      'resource_not_found',
    );
    expectError(
      await call(s, 'POST', `${M}/publish`, { ...o(), body: { brand_id: m.brandId } }),
      404,
      'resource_not_found',
    );
    expectError(
      await call(s, 'POST', `${M}/categories/link`, {
        ...o(),
        body: { section_id: m.section, category_ids: [m.category] },
      }),
      404,
      'resource_not_found',
    );
    expectError(
      await call(s, 'PATCH', `${M}/items/enable`, { ...o(), body: { ids: [m.item], isEnabled: false } }),
      404,
      'resource_not_found',
    );
    expectError(
      await call(s, 'PATCH', '/v1/partner/items/TEN-NG/availability', {
        ...o(),
        body: { branch_id: m.branches[0], isAvailable: false },
      }),
      404,
      'resource_not_found',
    );
  });

  it('their own brand with our section id is still 404; their business tree does not list ours', async () => {
    const theirs = await freshBrand(s, s.other, 'Theirs');
    const cat = ok(
      await call(s, 'POST', `${M}/categories`, { ...o(), body: { brand_id: theirs.brandId, title: 'C' } }),
      201,
    );
    expectError(
      await call(s, 'POST', `${M}/categories/link`, {
        ...o(),
        body: { section_id: m.section, category_ids: [cat.id] },
      }),
      404,
      'resource_not_found',
    );
    expectError(
      await call(s, 'POST', `${M}/categories/link`, {
        body: { section_id: m.section, category_ids: [cat.id] },
      }),
      404,
      'resource_not_found',
    );
    const tree = ok(await call(s, 'GET', M, o()));
    expect(tree.business_id).toBe(s.other.businessId);
    expect(tree.brands.some((b: { brand_id: number }) => b.brand_id === m.brandId)).toBe(false);
  });
});

describe('demo seed', () => {
  it('every demo store has a published menu with ~30 items and prices for each provider', async () => {
    const fresh = await startTestServer();
    try {
      for (const cred of [fresh.credential, fresh.other]) {
        const branches = ok(await call(fresh, 'GET', '/v1/partner/branches?size=100', { cred })).results;
        for (const br of branches) {
          for (const brandId of br.brand_ids as number[]) {
            const menu = ok(await getMenu(fresh, brandId, br.id, cred));
            expect(MenuSnapshot.safeParse(menu).success).toBe(true);
            const items = menu.sections.flatMap((x: { categories: { items: unknown[] }[] }) =>
              x.categories.flatMap((c) => c.items),
            );
            expect(items.length).toBeGreaterThanOrEqual(28);
            expect(Object.keys((items[0] as { prices: object }).prices).length).toBeGreaterThanOrEqual(5);
          }
        }
      }
    } finally {
      await fresh.close();
    }
  });
});
