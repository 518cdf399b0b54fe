// The catalogue repositories on PostgreSQL answer exactly what the SQLite ones answer: one
// scenario touches every method of brands, branches, price groups, menus (catalogue, links,
// layers) and stock, run against both backends; the answers are compared as the JSON the API
// would send (key order included). Then the brand lock that serialises sync/publish across
// instances, seen from two connections.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MenuDef } from '../../domain/menus.js';
import { openDb } from '../sqlite/db.js';
import { SqliteStore } from '../sqlite/store.js';
import type { TenantTx } from '../store.js';
import { openClient } from './pool.js';
import { CATALOG_SCHEMA } from './schema/catalog.js';
import { PgTx } from './tx.js';

const url = process.env.PARTNER_TEST_DATABASE_URL;
const required = process.env.PARTNER_TEST_POSTGRES === 'required';
if (!url) {
  if (required) throw new Error('PARTNER_TEST_POSTGRES=required but PARTNER_TEST_DATABASE_URL is not set');
  console.warn(
    'catalog-repos.test.ts: PARTNER_TEST_DATABASE_URL is not set: the PostgreSQL half was NOT run',
  );
}

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const layer = (title: string) =>
  ({
    brand_id: 0,
    sections: [{ id: 9, title, z: 1, a: 2 }],
    categories: [],
    items: [],
    modifierGroups: [],
  }) as unknown as MenuDef;

/** Every method of the tenant's catalogue repositories; what each answers, in order. */
async function scenario(t: TenantTx, other: TenantTx): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  let now = T0;
  const tick = () => (now += 1001);

  // Brands
  const b1 = await t.brands.create({ title: 'One', logo: 'l', banner: 'b' }, tick());
  const b2 = await t.brands.create({ title: 'Two', logo: '', banner: '' }, tick());
  await t.brands.update(b2.id, { title: 'Two!', logo: 'L', banner: 'B' }, tick());
  await t.brands.setVisibilities(b1.id, { zomato: false, talabat: true, ab: true }, tick());
  out.brands = [b1, b2, await t.brands.list(), await t.brands.get(b1.id), await t.brands.ids()];
  out.brandsElsewhere = [await other.brands.get(b1.id), await other.brands.list()];

  // Price groups: a deleted id is never handed out again
  const g1 = await t.priceGroups.create({ title: 'G1', description: 'd' }, tick());
  const g2 = await t.priceGroups.create({ title: 'G2', description: '' }, tick());
  await t.priceGroups.update(g1.id, { title: 'G1!', description: 'dd' }, tick());
  await t.priceGroups.delete(g2.id);
  const g3 = await t.priceGroups.create({ title: 'G3', description: '' }, tick());
  out.priceGroups = [
    g1,
    g2,
    g3,
    await t.priceGroups.list(),
    await t.priceGroups.get(g1.id),
    await t.priceGroups.ids(),
  ];
  out.priceGroupsElsewhere = [await other.priceGroups.get(g1.id), await other.priceGroups.ids()];

  // Branches
  const fields = { name: 'Main', zeta: { y: 1, b: [1, 'x'] }, alpha: null, price: '10.50' };
  const r1 = await t.branches.insert(
    { fields, price_group_id: g1.id, brand_ids: [b2.id, b1.id, b2.id] },
    tick(),
  );
  const r2 = await t.branches.insert(
    { fields: { name: 'Second' }, price_group_id: null, brand_ids: [b1.id] },
    tick(),
  );
  await t.branches.saveRecord(r1, '{"id":1,"z":"record as given"}');
  await t.branches.saveRecord(r2, '{"id":2}');
  await t.branches.update(
    r2,
    {
      fields: { name: 'Second!', extra: 1 },
      price_group_id: g3.id,
      busy_mode_updated_at: new Date(tick()).toISOString(),
    },
    tick(),
  );
  await t.branches.setVisibilities(r1, { uber: false, deliveroo: true }, tick());
  await t.branches.setBrands(r2, [b2.id]);
  out.branches = [
    r1,
    r2,
    await t.branches.get(r1),
    await t.branches.getAny(r2),
    await t.branches.page(10, 0),
    await t.branches.page(1, 1),
    await t.branches.page(10, 5),
    await t.branches.brandsOf(r1),
    await t.branches.linkedTo(b1.id),
    await t.branches.carrying(b2.id),
    await t.branches.carries(r1, b1.id),
    await t.branches.carries(r2, b1.id),
    await t.branches.usingPriceGroup(g1.id),
    await t.branches.usingPriceGroup(g3.id),
  ];
  out.branchesElsewhere = [
    await other.branches.get(r1),
    await other.branches.page(10, 0),
    await other.branches.carries(r1, b1.id),
    await other.branches.linkedTo(b1.id),
  ];
  await other.branches.setBrands(r1, []);
  out.setBrandsElsewhere = await t.branches.brandsOf(r1);

  // Menu catalogue
  const m = t.menus;
  const s1 = await m.sections.create(
    b1.id,
    {
      title: 'S',
      description: '',
      available_times: null,
      is_enabled: true,
      visibilities: { z: true, a: false },
      blackout_dates: ['2026-12-25'],
    },
    tick(),
  );
  const times = { monday: [{ from: '09:00', to: '17:00' }] } as never;
  const s2 = await m.sections.create(
    b1.id,
    {
      title: 'S2',
      description: 'x',
      available_times: times,
      is_enabled: false,
      visibilities: {},
      blackout_dates: [],
    },
    tick(),
  );
  const c1 = await m.categories.create(b1.id, { title: 'C1', description: '', is_enabled: true }, tick());
  const c2 = await m.categories.create(b1.id, { title: 'C2', description: 'd', is_enabled: false }, tick());
  const item = (title: string, sku: string, only = false) => ({
    title,
    partner_item_id: sku,
    description: '',
    prices: { '7': '12.50', '2': '0.1' },
    group_prices: { [String(g1.id)]: '11.00' },
    visibilities: { b: true, a: false },
    enabled: true,
    only_modifier: only,
  });
  const i1 = await m.items.create(b1.id, item('I1', 'SKU-1'), tick());
  const i2 = await m.items.create(b1.id, item('I2', 'SKU-2'), tick());
  const mod = await m.items.create(b1.id, item('M', 'MOD-1', true), tick());
  const gr = await m.groups.create(b1.id, { title: 'G', min: 0, max: 2 }, tick());
  await m.sections.update(s1.id, { ...s1, title: 'S!', available_times: times }, tick());
  await m.items.update(i2.id, { ...item('I2!', 'SKU-2'), enabled: false }, tick());
  await m.items.delete(i2.id);
  const i3 = await m.items.create(b1.id, item('I3', 'SKU-3'), tick());
  out.catalogue = [
    s1,
    s2,
    c1,
    c2,
    i1,
    mod,
    gr,
    i3,
    await m.sections.get(s1.id),
    await m.sections.getMany([s2.id, 999, s1.id, s2.id]),
    await m.sections.ofBrand(b1.id),
    await m.categories.ofBrand(b1.id),
    await m.items.ofBrand(b1.id),
    await m.groups.get(gr.id),
    await m.items.withSku(b1.id, 'SKU-1'),
    await m.items.withSku(b1.id, 'SKU-1', i1.id),
    await m.items.atBranch(r1, 'SKU-1'),
    await m.items.atBranch(r2, 'SKU-1'),
  ];
  out.catalogueElsewhere = [await other.menus.items.get(i1.id), await other.menus.sections.getMany([s1.id])];

  // Links, table-driven
  const l = t.links;
  await l.link('section-categories', s1.id, [c2.id, c1.id, c2.id]);
  await l.link('category-items', c1.id, [i3.id, i1.id]);
  await l.link('category-items', c2.id, [i1.id]);
  await l.link('item-groups', i1.id, [gr.id]);
  await l.link('group-modifiers', gr.id, [mod.id]);
  await l.unlink('category-items', c1.id, [i3.id]);
  await l.link('category-items', c1.id, [i3.id]);
  await other.links.link('section-categories', s2.id, [c1.id]);
  await other.links.unlink('category-items', c1.id, [i1.id]);
  out.links = [
    await l.children('section-categories', s1.id),
    await l.children('category-items', c1.id),
    await l.children('section-categories', s2.id),
    await l.parents('category-items', i1.id),
    await l.ofBrand('category-items', b1.id),
    await l.ofBrand('item-groups', b1.id),
    await l.ofBrand('group-modifiers', b1.id),
    await other.links.children('category-items', c1.id),
  ];
  await m.categories.delete(c2.id);
  out.linksAfterDelete = [
    await l.children('section-categories', s1.id),
    await l.parents('category-items', i1.id),
  ];

  // Layers
  const y = t.layers;
  out.layersBefore = [
    await y.storeLayer(b1.id, r1),
    await y.snapshotHead(b1.id, r1),
    await y.snapshot(b1.id, r1),
  ];
  await y.saveStoreLayer(b1.id, r1, layer('synced'), tick(), true);
  await y.saveStoreLayer(b1.id, r1, layer('edited'), tick(), false);
  const v1 = await y.nextVersion(b1.id);
  const publishedAt = new Date(tick()).toISOString();
  await y.writeSnapshot(b1.id, r1, {
    version: v1,
    published_at: publishedAt,
    source: layer('s'),
    template: '{"x":@1@}',
  });
  const head1 = await y.snapshotHead(b1.id, r1);
  const v2 = await y.nextVersion(b1.id);
  await y.writeSnapshot(b1.id, r1, {
    version: v2,
    published_at: publishedAt,
    source: layer('t'),
    template: 'tpl 2',
  });
  await y.logPublish({
    brand_id: b1.id,
    branch_id: r1,
    version: v2,
    provider_id: 3,
    items: 4,
    published_at: publishedAt,
  });
  await y.logPublish({
    brand_id: b1.id,
    branch_id: r2,
    version: v2,
    provider_id: 1,
    items: 0,
    published_at: publishedAt,
  });
  out.layers = [
    await y.storeLayer(b1.id, r1),
    v1,
    v2,
    head1,
    await y.snapshotHead(b1.id, r1),
    await y.snapshotTemplate(b1.id, r1),
    await y.snapshot(b1.id, r1),
    await y.publications({}, 10, 0),
    await y.publications({ branchId: r2 }, 10, 0),
    await y.publications({ brandId: b1.id }, 1, 1),
    await y.nextVersion(9999),
  ];
  out.layersElsewhere = [
    await other.layers.storeLayer(b1.id, r1),
    await other.layers.snapshotHead(b1.id, r1),
    await other.layers.publications({}, 10, 0),
  ];

  // Stock
  const k = t.stock;
  const snooze = T0 + 3_600_000;
  await k.setState(r1, i1.id, { available: false, stock: null, snoozedUntil: null }, tick());
  await k.setState(r1, i3.id, { available: true, stock: 5, snoozedUntil: snooze }, tick());
  await k.setState(r2, i1.id, { available: true, stock: 0, snoozedUntil: null }, tick());
  await k.setState(r2, i1.id, { available: true, stock: null, snoozedUntil: null }, tick());
  await other.stock.setState(r2, i3.id, { available: false, stock: null, snoozedUntil: null }, tick());
  await k.bumpBranch(r1);
  await k.bumpBranch(r1);
  await other.stock.bumpBranch(r2);
  out.headAfterBumps = await y.snapshotHead(b1.id, r1);
  const act = (
    n: number,
    branch: number | null,
    action: 'availability' | 'snooze',
    entity: 'item' | 'section' = 'item',
  ) => ({
    brand_id: b1.id,
    branch_id: branch,
    entity_type: entity,
    entity_id: entity === 'item' ? i1.id : s1.id,
    partner_item_id: entity === 'item' ? 'SKU-1' : null,
    title: `change ${n}`,
    action,
    before: { isAvailable: true, z: 1, a: 2 },
    after: { isAvailable: false },
    until: action === 'snooze' ? new Date(snooze).toISOString() : null,
    went_out: n % 2 === 1,
    came_back: n % 2 === 0,
    actor: 'partner:key',
    at_ms: T0 + n * 1000,
  });
  await k.record(act(1, r1, 'availability'));
  await k.record(act(2, r1, 'snooze'));
  await k.record(act(3, r2, 'availability'));
  await k.record(act(3, null, 'availability', 'section'));
  await k.record(act(5, r1, 'availability'));
  const all = { fromMs: T0, toMs: T0 + 10_000 };
  out.stock = [
    await k.states(r1),
    await k.state(r1, i3.id),
    await k.state(r2, i1.id),
    await k.branchesWithState(i1.id),
    await k.activity('item', all, 10, 0),
    await k.activity('item', { ...all, branchId: r1 }, 2, 1),
    await k.activity('section', { ...all, brandId: b1.id }, 10, 0),
    await k.activity('item', { fromMs: T0 + 2000, toMs: T0 + 3000 }, 10, 0),
    await k.summaries(all, 10, 0),
    await k.summaries({ ...all, branchId: r1 }, 1, 0),
    await k.summaries({ ...all, brandId: 9999 }, 10, 0),
  ];
  out.stockElsewhere = [await other.stock.states(r1), await other.stock.activity('item', all, 10, 0)];
  return out;
}

/** As the API would send it: Maps as entries, everything else as JSON (key order counts). */
const wire = (v: unknown) =>
  JSON.stringify(v, (_k, x) =>
    x instanceof Map ? { map: [...x.entries()] } : x === undefined ? '<undefined>' : x,
  );

let dir: string;
let sqlite: SqliteStore;
let admin: pg.Client;
const schema = `pgb_parity_${process.pid}_${Date.now()}`;
const pgClients: pg.Client[] = [];

async function pgClient(): Promise<pg.Client> {
  // The store's own client settings (type parsers, UTC), on this test's schema.
  const c = openClient(url!);
  await c.connect();
  await c.query(`SET search_path = ${schema}`);
  pgClients.push(c);
  return c;
}

/** Whether the backend `pid` comes to wait for an advisory lock (a bounded look: 5 s at most). */
async function parkedOnLock(watch: pg.Client, pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const r = await watch.query(
      "SELECT 1 FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND NOT granted",
      [pid],
    );
    if (r.rowCount === 1) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

const pidOf = async (c: pg.Client) =>
  (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

/** One business's catalogue repositories in a write unit on `c`, built as the PG TenantTx builds them. */
function pgTenant(c: pg.Client, businessId: number): TenantTx {
  return new PgTx(c as unknown as pg.PoolClient, 'write', { deliveryPerUrl: 1 }).tenant(businessId);
}

describe.skipIf(!url)('catalogue repositories on PostgreSQL', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'partner-parity-'));
    sqlite = new SqliteStore(openDb(join(dir, 'parity.db')));
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    // The core schema's businesses table, as much of it as the catalogue references.
    await admin.query(
      `SET search_path = ${schema};
       CREATE TABLE businesses (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, title text NOT NULL);
       INSERT INTO businesses (title) VALUES ('one'), ('two');
       ${CATALOG_SCHEMA}`,
    );
  });

  afterAll(async () => {
    for (const c of pgClients) await c.end();
    if (admin) {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
    await sqlite?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answer what the SQLite repositories answer, byte for byte, tenant by tenant', async () => {
    const onSqlite = await sqlite.write(async (tx) => {
      for (const title of ['one', 'two']) await tx.businesses.create({ title, address: '', logo: '' }, T0);
      return scenario(tx.tenant(1), tx.tenant(2));
    });
    const c = await pgClient();
    await c.query('BEGIN');
    const onPg = await scenario(pgTenant(c, 1), pgTenant(c, 2));
    await c.query('COMMIT');
    for (const key of Object.keys(onSqlite))
      expect([key, wire(onPg[key])]).toEqual([key, wire(onSqlite[key])]);
    expect(Object.keys(onPg)).toEqual(Object.keys(onSqlite));
  });

  it("a brand's layers are locked for the unit that read them: a concurrent sync waits and then sees the commit", async () => {
    const [a, b, watch] = [await pgClient(), await pgClient(), await pgClient()];
    const bPid = await pidOf(b);
    await a.query('BEGIN');
    await b.query('BEGIN');
    const ta = pgTenant(a, 1);
    const tb = pgTenant(b, 1);
    const [brand] = await ta.brands.ids();
    const [branch] = await ta.branches.carrying(brand!);
    expect((await ta.layers.storeLayer(brand!, branch!))?.sections[0]?.title).toBe('edited');
    await ta.layers.saveStoreLayer(brand!, branch!, layer('from A'), T0, true);

    let seen: string | undefined;
    const waiting = tb.layers.storeLayer(brand!, branch!).then((l) => {
      seen = l?.sections[0]?.title;
    });
    // B is parked on the advisory lock.
    const locked = await parkedOnLock(watch, bPid);
    expect(locked).toBe(true);
    expect(seen).toBeUndefined();
    await a.query('COMMIT');
    await waiting;
    expect(seen).toBe('from A');
    await b.query('ROLLBACK');
  });
  it('a SKU checked in a write unit is locked: a concurrent create of it waits, then finds the first', async () => {
    const [a, b, watch] = [await pgClient(), await pgClient(), await pgClient()];
    const bPid = await pidOf(b);
    await a.query('BEGIN');
    await b.query('BEGIN');
    const ta = pgTenant(a, 1);
    const tb = pgTenant(b, 1);
    const [brand] = await ta.brands.ids();
    expect(await ta.menus.items.withSku(brand!, 'RACE-1')).toBeUndefined();
    const made = await ta.menus.items.create(
      brand!,
      {
        title: 'first',
        partner_item_id: 'RACE-1',
        description: '',
        prices: {},
        group_prices: {},
        visibilities: {},
        enabled: true,
        only_modifier: false,
      },
      T0,
    );
    let seen: number | undefined | 'pending' = 'pending';
    const waiting = tb.menus.items.withSku(brand!, 'RACE-1').then((id) => {
      seen = id;
    });
    expect(await parkedOnLock(watch, bPid)).toBe(true);
    expect(seen).toBe('pending');
    await a.query('COMMIT');
    await waiting;
    expect(seen).toBe(made.id);
    await b.query('ROLLBACK');
  });
  it("an item state read in a write unit locks the branch's states: a concurrent change waits, then starts from the commit", async () => {
    const [a, b, watch] = [await pgClient(), await pgClient(), await pgClient()];
    const bPid = await pidOf(b);
    await a.query('BEGIN');
    await b.query('BEGIN');
    const ta = pgTenant(a, 1);
    const tb = pgTenant(b, 1);
    const [brand] = await ta.brands.ids();
    const [branch] = await ta.branches.carrying(brand!);
    const [item] = await ta.menus.items.ofBrand(brand!);
    expect(await ta.stock.state(branch!, item!.id)).toEqual({
      available: false,
      stock: null,
      snoozedUntil: null,
    });
    await ta.stock.setState(branch!, item!.id, { available: true, stock: 7, snoozedUntil: null }, T0);
    let seen: unknown = 'pending';
    const waiting = tb.stock.state(branch!, item!.id).then((s) => {
      seen = s;
    });
    expect(await parkedOnLock(watch, bPid)).toBe(true);
    expect(seen).toBe('pending');
    await a.query('COMMIT');
    await waiting;
    expect(seen).toEqual({ available: true, stock: 7, snoozedUntil: null });
    await b.query('ROLLBACK');
  });
});
