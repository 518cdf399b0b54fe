// The locks the catalogue repositories take on PostgreSQL (PgTx's lock methods on the Sql seam:
// a brand's menu layers, a SKU, a branch's item states), each seen from two connections. (The
// repositories themselves are written once, store/sql/, and run on both backends through every server suite.)
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MenuDef } from '../../domain/menus.js';
import type { TenantTx } from '../store.js';
import { schemaSql } from '../sql/schema.js';
import { openClient } from './pool.js';
import { PgTx } from './tx.js';

const url = process.env.PARTNER_TEST_DATABASE_URL;
const required = process.env.PARTNER_TEST_POSTGRES === 'required';
if (!url) {
  if (required) throw new Error('PARTNER_TEST_POSTGRES=required but PARTNER_TEST_DATABASE_URL is not set');
  console.warn('locks.test.ts: PARTNER_TEST_DATABASE_URL is not set: the PostgreSQL half was NOT run');
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
const item = (title: string, sku: string) => ({
  title,
  partner_item_id: sku,
  description: '',
  prices: {},
  group_prices: {},
  visibilities: {},
  enabled: true,
  only_modifier: false,
});

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

/** One business's catalogue repositories in a write unit on `c`, as a PgTx builds them. */
function pgTenant(c: pg.Client, businessId: number): TenantTx {
  // Level 1, the path inside BEGIN … COMMIT: these tests hold row locks in transactions they begin.
  return new PgTx(c as unknown as pg.PoolClient, 'write', undefined, 1).tenant(businessId);
}

/**
 * Two write units of business 1 begun on their own connections (A first, then B), and a third
 * connection to watch B's wait from.
 */
async function twoUnits() {
  const [a, b, watch] = [await pgClient(), await pgClient(), await pgClient()];
  const bPid = await pidOf(b);
  await a.query('BEGIN');
  await b.query('BEGIN');
  return { a, b, watch, bPid, ta: pgTenant(a, 1), tb: pgTenant(b, 1) };
}

/**
 * B's `read`, begun while A holds a lock it needs: B is seen parked on it, unanswered, until A
 * commits; then what B read (A's change). Both units end.
 */
async function readByBAfterA<T>(u: Awaited<ReturnType<typeof twoUnits>>, read: () => Promise<T>): Promise<T> {
  let answered = false;
  const waiting = read().finally(() => {
    answered = true;
  });
  expect(await parkedOnLock(u.watch, u.bPid)).toBe(true);
  expect(answered).toBe(false);
  await u.a.query('COMMIT');
  const seen = await waiting;
  await u.b.query('ROLLBACK');
  return seen;
}

describe.skipIf(!url)('catalogue repositories on PostgreSQL', () => {
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(
      `SET search_path = ${schema};
       ${schemaSql('postgres')}
       INSERT INTO businesses (title, created_at) VALUES ('one', now()), ('two', now());`,
    );
    // What the tests start from: a brand carried by a branch, its store layer, an item out of stock there.
    const c = await pgClient();
    await c.query('BEGIN');
    const t = pgTenant(c, 1);
    const brand = await t.brands.create({ title: 'B', logo: '', banner: '' }, T0);
    const branch = await t.branches.insert({ fields: {}, price_group_id: null, brand_ids: [brand.id] }, T0);
    await t.layers.saveStoreLayer(brand.id, branch, layer('edited'), T0, true);
    const made = await t.menus.items.create(brand.id, item('i', 'SKU-0'), T0);
    await t.stock.setState(branch, made.id, { available: false, stock: null, snoozedUntil: null }, T0);
    await c.query('COMMIT');
  });

  afterAll(async () => {
    for (const c of pgClients) await c.end();
    if (admin) {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });

  it("a brand's layers are locked for the unit that read them: a concurrent sync waits and then sees the commit", async () => {
    const u = await twoUnits();
    const [brand] = await u.ta.brands.ids();
    const [branch] = await u.ta.branches.carrying(brand!);
    expect((await u.ta.layers.storeLayer(brand!, branch!))?.sections[0]?.title).toBe('edited');
    await u.ta.layers.saveStoreLayer(brand!, branch!, layer('from A'), T0, true);
    const seen = await readByBAfterA(u, () => u.tb.layers.storeLayer(brand!, branch!));
    expect(seen?.sections[0]?.title).toBe('from A');
  });
  it('a SKU checked in a write unit is locked: a concurrent create of it waits, then finds the first', async () => {
    const u = await twoUnits();
    const [brand] = await u.ta.brands.ids();
    expect(await u.ta.menus.items.withSku(brand!, 'RACE-1')).toBeUndefined();
    const made = await u.ta.menus.items.create(brand!, item('first', 'RACE-1'), T0);
    expect(await readByBAfterA(u, () => u.tb.menus.items.withSku(brand!, 'RACE-1'))).toBe(made.id);
  });
  it("an item state read in a write unit locks the branch's states: a concurrent change waits, then starts from the commit", async () => {
    const u = await twoUnits();
    const [brand] = await u.ta.brands.ids();
    const [branch] = await u.ta.branches.carrying(brand!);
    const [one] = await u.ta.menus.items.ofBrand(brand!);
    expect(await u.ta.stock.state(branch!, one!.id)).toEqual({
      available: false,
      stock: null,
      snoozedUntil: null,
    });
    const seven = { available: true, stock: 7, snoozedUntil: null };
    await u.ta.stock.setState(branch!, one!.id, seven, T0);
    expect(await readByBAfterA(u, () => u.tb.stock.state(branch!, one!.id))).toEqual(seven);
  });
});
