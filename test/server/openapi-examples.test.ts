import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATION_EXAMPLES, type OperationExample } from '../../src/contract/openapi.js';
import { fillPath, type OperationSpec } from '../../src/contract/operation.js';
import { OPERATIONS, OPERATION_LIST } from '../../src/contract/operations.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

// The example request and answer of every operation in the OpenAPI document, run against the
// demo server. `UPDATE_OPENAPI_EXAMPLES=1 npx vitest run test/server/openapi-examples.test.ts`
// writes what the server answered to src/contract/openapi-examples.json; without it, the test
// checks that every documented example request still gets its documented status, and that the
// stored examples fit the contract's schemas.

const FILE = new URL('../../src/contract/openapi-examples.json', import.meta.url);
const UPDATE = process.env.UPDATE_OPENAPI_EXAMPLES === '1';

type Input = Omit<OperationExample, 'status' | 'response'>;
// biome-ignore lint/suspicious/noExplicitAny: answers of every shape
type Got = Record<string, any>;

const week = (startTime: number, endTime: number) =>
  Object.fromEntries(
    ['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, { slots: [{ startTime, endTime }] }]),
  );

/** One example per operation, in an order where each succeeds on a fresh demo server. */
function steps(now: number): [string, (got: Got) => Input][] {
  return [
    ['listBrands', () => ({})],
    [
      'createBrand',
      () => ({ body: { title: 'Kopi Kita Express', logo: 'brands/kopi-kita-express/logo.png' } }),
    ],
    [
      'updateBrand',
      (g) => ({ params: { id: g.createBrand.id }, body: { banner: 'brands/kopi-kita-express/banner.jpg' } }),
    ],
    [
      'setBrandVisibility',
      () => ({ params: { id: 1 }, body: { visibilities: { '1': true, '2': true, '3': false } } }),
    ],
    ['listBranches', () => ({ query: { page: 1, size: 2 } })],
    ['getBranch', () => ({ params: { id: 1 } })],
    [
      'createBranch',
      () => ({
        body: {
          title: 'Kopi Kita Blok M',
          brand_ids: [1],
          country_id: 1,
          city_id: 101,
          currency_id: 1,
          address: 'Jl. Melawai Raya No. 12, Kebayoran Baru, Jakarta Selatan 12160',
          phone: '+622172001234',
          available_times: week(700, 2200),
        },
      }),
    ],
    ['updateBranch', () => ({ params: { id: 1 }, body: { is_busy: true, preparation_time: 20 } })],
    ['setBranchVisibility', () => ({ params: { id: 1 }, body: { visibilities: { '1': true, '2': false } } })],
    ['listProviders', () => ({})],
    ['listPriceGroups', () => ({})],
    [
      'createPriceGroup',
      () => ({ body: { title: 'Airport pricing', description: 'Soekarno-Hatta terminal outlets' } }),
    ],
    [
      'replacePriceGroup',
      (g) => ({
        params: { id: g.createPriceGroup.id },
        body: { title: 'Airport pricing', description: 'Terminal 3' },
      }),
    ],
    [
      'updatePriceGroup',
      (g) => ({ params: { id: g.createPriceGroup.id }, body: { description: 'Terminals 2 and 3' } }),
    ],
    ['deletePriceGroup', (g) => ({ params: { id: g.createPriceGroup.id } })],
    ['listOrderStatuses', () => ({})],
    ['listCountries', () => ({})],
    ['listCities', () => ({ query: { country_id: 1 } })],
    ['listCurrencies', () => ({})],
    ['listPaymentStatuses', () => ({})],
    ['listPaymentMethods', () => ({})],
    ['listPaymentChannels', () => ({})],
    ['listOrders', () => ({ query: { status: 'PLACED', size: 2 } })],
    ['getOrder', (g) => ({ params: { id: g.listOrders.results[0].id } })],
    [
      'patchOrderStatus',
      (g) => ({ body: { id: g.listOrders.results[0].id, status: 'ACCEPTED', platform: 'enterprise' } }),
    ],
    [
      'setOrderComment',
      (g) => ({
        params: { id: g.listOrders.results[0].id },
        body: { comment: 'Customer asked for less ice' },
      }),
    ],
    ['getMenu', () => ({ query: { brand_id: 1, branch_id: 1 } })],
    [
      'createSection',
      () => ({ body: { brand_id: 1, title: 'Musiman', description: 'Seasonal drinks, while they last' } }),
    ],
    [
      'updateSection',
      (g) => ({ params: { id: g.createSection.id }, body: { blackoutDates: ['2026-12-25'] } }),
    ],
    ['createCategory', () => ({ body: { brand_id: 1, title: 'Es Teh' } })],
    [
      'updateCategory',
      (g) => ({ params: { id: g.createCategory.id }, body: { description: 'Iced tea, brewed daily' } }),
    ],
    [
      'linkCategoryToSection',
      (g) => ({ body: { section_id: g.createSection.id, category_ids: [g.createCategory.id] } }),
    ],
    [
      'createItem',
      () => ({
        body: {
          brand_id: 1,
          title: 'Es Teh Leci',
          partner_item_id: 'KK-ETL',
          prices: { '1': '22000', '2': '22000' },
          onlyModifier: false,
          description: 'Jasmine tea, lychee, ice',
        },
      }),
    ],
    [
      'updateItem',
      (g) => ({ params: { id: g.createItem.id }, body: { prices: { '1': '23000', '2': '23000' } } }),
    ],
    [
      'linkCategoriesToItem',
      (g) => ({ body: { item_id: g.createItem.id, category_ids: [g.createCategory.id] } }),
    ],
    ['createModifierGroup', () => ({ body: { brand_id: 1, title: 'Topping', min: 0, max: 2 } })],
    ['updateModifierGroup', (g) => ({ params: { id: g.createModifierGroup.id }, body: { max: 1 } })],
    [
      'linkModifiersToGroup',
      (g) => ({ body: { group_id: g.createModifierGroup.id, modifier_ids: g.modifierIds.slice(0, 2) } }),
    ],
    [
      'linkModifierGroupToItem',
      (g) => ({
        body: {
          group_id: g.createModifierGroup.id,
          item_ids: [g.createItem.id],
          min: 0,
          max: 1,
          modifier_ids: g.modifierIds.slice(0, 2),
        },
      }),
    ],
    [
      'syncMenuToStores',
      () => ({ body: { brand_id: 1, branch_ids: [1], fieldIncludeOnSync: ['availableTimes'] } }),
    ],
    ['publishMenu', () => ({ body: { brand_id: 1, branch_ids: [1] } })],
    ['listMenuPublications', () => ({ query: { brand_id: 1, size: 2 } })],
    ['enableSections', (g) => ({ body: { ids: [g.createSection.id], isEnabled: false, branch_ids: [1] } })],
    ['enableCategories', (g) => ({ body: { ids: [g.createCategory.id], isEnabled: true, branch_ids: [1] } })],
    ['enableItems', (g) => ({ body: { ids: [g.createItem.id], isEnabled: true, branch_ids: [1] } })],
    [
      'setItemAvailability',
      () => ({ params: { partner_item_id: 'KK-EKS' }, body: { branch_id: 1, isAvailable: false } }),
    ],
    [
      'setItemsAvailability',
      () => ({
        body: {
          branch_id: 1,
          items: [
            { partner_item_id: 'KK-EKS', isAvailable: true },
            { partner_item_id: 'KK-ETL', isAvailable: false },
          ],
        },
      }),
    ],
    [
      'snoozeItem',
      () => ({
        params: { partner_item_id: 'KK-EKS' },
        body: { branch_id: 1, until: new Date(now + 30 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z') },
      }),
    ],
    [
      'updateItemStocks',
      () => ({
        body: {
          branch_id: 1,
          items: [
            { partner_item_id: 'KK-EKS', stock: 24 },
            { partner_item_id: 'KK-ETL', stock: 0 },
          ],
        },
      }),
    ],
    ['listOOSActivitySummaries', () => ({ query: { branch_id: 1, size: 2 } })],
    ['listOOSActivitySections', () => ({ query: { branch_id: 1, size: 2 } })],
    ['listOOSActivityCategories', () => ({ query: { branch_id: 1, size: 2 } })],
    ['listOOSActivityItems', () => ({ query: { branch_id: 1, size: 2 } })],
    ['listWebhooks', () => ({})],
    [
      'unlinkModifierGroupFromItems',
      (g) => ({ body: { group_id: g.createModifierGroup.id, item_ids: [g.createItem.id] } }),
    ],
    [
      'unlinkModifiersFromGroup',
      (g) => ({ body: { group_id: g.createModifierGroup.id, modifier_ids: g.modifierIds.slice(1, 2) } }),
    ],
    [
      'unlinkCategoriesFromItem',
      (g) => ({ body: { item_id: g.createItem.id, category_ids: [g.createCategory.id] } }),
    ],
    [
      'unlinkCategoryFromSection',
      (g) => ({ body: { section_id: g.createSection.id, category_ids: [g.createCategory.id] } }),
    ],
    ['deleteModifierGroup', (g) => ({ params: { id: g.createModifierGroup.id } })],
    ['deleteItem', (g) => ({ params: { id: g.createItem.id } })],
    ['deleteCategory', (g) => ({ params: { id: g.createCategory.id } })],
    ['deleteSection', (g) => ({ params: { id: g.createSection.id } })],
  ];
}

/** Arrays cut to their first two elements (three for the status dictionary's rows kept whole). */
function trim(v: unknown, keepAll: boolean): unknown {
  if (Array.isArray(v)) return (keepAll ? v : v.slice(0, 2)).map((x) => trim(x, false));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, trim(x, false)]));
  return v;
}

let s: TestServer;
const captured: Record<string, OperationExample> = {};
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

it('every example request gets its documented answer from the demo server', async () => {
  // A receiver URL as `partner listen --local` would register it (nothing listens: deliveries fail).
  await s.operator('POST', '/v1/operator/webhooks', {
    business_id: s.credential.businessId,
    url: 'http://127.0.0.1:4242/',
    event: 'service.order.status.updated',
  });
  const got: Got = {};
  const tree = await call(s, 'GET', '/v1/partner/menus');
  got.modifierIds =
    tree.body.data.brands[0].sections[0].categories[0].items[0].modifierGroups[0].modifiers.map(
      (m: { id: number }) => m.id,
    );
  for (const [id, make] of steps(Date.now())) {
    const op: OperationSpec = OPERATIONS[id as keyof typeof OPERATIONS];
    const input = make(got);
    const qs = new URLSearchParams(
      Object.entries(input.query ?? {}).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    const r = await call(s, op.method, `${fillPath(op.path, input.params ?? {})}${qs ? `?${qs}` : ''}`, {
      ...(input.body !== undefined ? { body: input.body } : {}),
    });
    expect(r.status, `${id}: ${r.text.slice(0, 300)}`).toBe(op.status ?? 200);
    got[id] = r.body.data;
    captured[id] = { ...input, status: r.status, response: trim(r.body.data, id === 'listOrderStatuses') };
    if (!UPDATE) expect(OPERATION_EXAMPLES[id]?.status, `${id} has a stored example`).toBe(r.status);
  }
  if (UPDATE) writeFileSync(FILE, `${JSON.stringify(captured, null, 2)}\n`);
});

it('there is one example for every partner operation, and each fits the contract', () => {
  const documented = OPERATION_LIST.filter((o) => o.auth === 'partner').map((o) => o.id);
  expect(Object.keys(OPERATION_EXAMPLES).sort()).toEqual(documented.sort());
  for (const [id, ex] of Object.entries(OPERATION_EXAMPLES)) {
    const op: OperationSpec = OPERATIONS[id as keyof typeof OPERATIONS];
    if (op.params) expect(op.params.safeParse(ex.params).success, `${id} params`).toBe(true);
    if (op.query) expect(op.query.safeParse(ex.query ?? {}).success, `${id} query`).toBe(true);
    if (op.body) expect(op.body.safeParse(ex.body).success, `${id} body`).toBe(true);
    const out = op.response.safeParse(ex.response);
    expect(out.success, `${id} response: ${out.error?.message}`).toBe(true);
  }
});
