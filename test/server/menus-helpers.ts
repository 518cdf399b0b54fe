import { expect } from 'vitest';
import { call, type CallResult, type TestServer } from '../helpers/server.js';

// Helpers for the menu tests: a fresh brand carried by two demo branches, and a small menu
// authored through the API in the spec's push order.

export const day = (startTime: number, endTime: number) => ({ slots: [{ startTime, endTime }] });
export const everyDay = (startTime: number, endTime: number) =>
  Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, day(startTime, endTime)]));

export function ok(r: CallResult, status = 200) {
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`);
  return r.body.data;
}

export function expectError(r: CallResult, status: number, code: string) {
  expect(r.status, r.text).toBe(status);
  expect(r.body.error?.code).toBe(code);
}

type Cred = { key: string; secret: string };

/** Creates a brand and adds it to the first two branches of the credential's business. */
export async function freshBrand(s: TestServer, cred: Cred = s.credential, title = 'Test Kitchen') {
  const brand = ok(await call(s, 'POST', '/v1/partner/brands', { cred, body: { title } }), 201);
  const list = ok(await call(s, 'GET', '/v1/partner/branches', { cred }));
  const branches: number[] = [];
  for (const b of list.results.slice(0, 2)) {
    ok(
      await call(s, 'PATCH', `/v1/partner/branches/${b.id}`, {
        cred,
        body: { brand_ids: [...b.brand_ids, brand.id] },
      }),
    );
    branches.push(b.id);
  }
  return { brandId: brand.id as number, branches };
}

export interface SmallMenu {
  brandId: number;
  branches: number[];
  section: number;
  category: number;
  item: number;
  item2: number;
  group: number;
  mods: number[];
}

/** Section → category → two items → a modifier group with two modifiers, linked in the spec's order. */
export async function authorSmallMenu(
  s: TestServer,
  cred: Cred = s.credential,
  sku = 'SKU',
): Promise<SmallMenu> {
  const { brandId, branches } = await freshBrand(s, cred);
  const post = async (path: string, body: unknown, status = 201) =>
    ok(await call(s, 'POST', `/v1/partner/menus${path}`, { cred, body }), status);
  const section = await post('/sections', {
    brand_id: brandId,
    title: 'Mains',
    availableTimes: everyDay(900, 2100),
  });
  const category = await post('/categories', { brand_id: brandId, title: 'Rice' });
  await post('/categories/link', { section_id: section.id, category_ids: [category.id] }, 200);
  const item = await post('/items', {
    brand_id: brandId,
    title: 'Nasi goreng',
    partner_item_id: `${sku}-NG`,
    prices: { '1': '35000.00', '2': '38000.00' },
    onlyModifier: false,
  });
  const item2 = await post('/items', {
    brand_id: brandId,
    title: 'Nasi uduk',
    partner_item_id: `${sku}-NU`,
    prices: { '1': '30000.00' },
    onlyModifier: false,
  });
  await post('/items/categories/link', { item_id: item.id, category_ids: [category.id] }, 200);
  await post('/items/categories/link', { item_id: item2.id, category_ids: [category.id] }, 200);
  const group = await post('/modifier-groups', { brand_id: brandId, title: 'Extras', min: 0, max: 2 });
  const egg = await post('/items', {
    brand_id: brandId,
    title: 'Egg',
    partner_item_id: `${sku}-EGG`,
    prices: { '1': '5000.00' },
    onlyModifier: true,
  });
  const krupuk = await post('/items', {
    brand_id: brandId,
    title: 'Krupuk',
    partner_item_id: `${sku}-KRUPUK`,
    prices: { '1': '3000.00' },
    onlyModifier: true,
  });
  await post('/modifier-groups/modifiers', { group_id: group.id, modifier_ids: [egg.id, krupuk.id] }, 200);
  await post(
    '/modifier-groups/link',
    { group_id: group.id, item_ids: [item.id], min: 0, max: 2, modifier_ids: [egg.id, krupuk.id] },
    200,
  );
  return {
    brandId,
    branches,
    section: section.id,
    category: category.id,
    item: item.id,
    item2: item2.id,
    group: group.id,
    mods: [egg.id, krupuk.id],
  };
}

export async function syncAndPublish(
  s: TestServer,
  brandId: number,
  cred: Cred = s.credential,
  extra: Record<string, unknown> = {},
) {
  ok(await call(s, 'POST', '/v1/partner/menus/sync', { cred, body: { brand_id: brandId, ...extra } }));
  return ok(await call(s, 'POST', '/v1/partner/menus/publish', { cred, body: { brand_id: brandId } }));
}

export async function getMenu(s: TestServer, brandId: number, branchId: number, cred: Cred = s.credential) {
  return call(s, 'GET', `/v1/partner/menus?brand_id=${brandId}&branch_id=${branchId}`, { cred });
}

// biome-ignore lint/suspicious/noExplicitAny: walks the snapshot payload
export function findItem(menu: any, id: number): any {
  for (const s of menu.sections)
    for (const c of s.categories) for (const i of c.items) if (i.id === id) return i;
  return undefined;
}
