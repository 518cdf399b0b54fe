import type {
  BranchPage,
  BranchRow,
  BranchUpdate,
  BrandFields,
  BrandRow,
  NewBranch,
  Visibilities,
} from '../brands-repo.js';
import { iso, Lockable, q, type Sql } from './query.js';

type StoredBrand = Omit<BrandRow, 'visibilities'> & { visibilities: string };
const BRAND = 'id, business_id, title, logo, banner, visibilities';
const brandOf = (r: StoredBrand): BrandRow => ({
  ...r,
  visibilities: JSON.parse(r.visibilities) as Visibilities,
});

const B = {
  list: q(`SELECT ${BRAND} FROM brands WHERE business_id = ? ORDER BY id`),
  get: new Lockable(`SELECT ${BRAND} FROM brands WHERE id = ? AND business_id = ?`),
  ids: q('SELECT id FROM brands WHERE business_id = ? ORDER BY id'),
  create: q(
    `INSERT INTO brands (business_id, title, logo, banner, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${BRAND}`,
  ),
  update: q(
    'UPDATE brands SET title = ?, logo = ?, banner = ?, updated_at = ? WHERE id = ? AND business_id = ?',
  ),
  visibilities: q('UPDATE brands SET visibilities = ?, updated_at = ? WHERE id = ? AND business_id = ?'),
};

export class SqlBrands {
  constructor(
    private readonly db: Sql,
    private readonly businessId: number,
  ) {}

  /** By id. */
  async list(): Promise<BrandRow[]> {
    return (await this.db.all<StoredBrand>(B.list, [this.businessId])).map(brandOf);
  }

  /** `forUpdate`: the caller writes the row back from what it read (a merge: Lockable). */
  async get(id: number, forUpdate = false): Promise<BrandRow | undefined> {
    const r = await this.db.get<StoredBrand>(B.get.in(this.db, forUpdate), [id, this.businessId]);
    return r && brandOf(r);
  }

  ids(): Promise<number[]> {
    return this.db.column<number>(B.ids, [this.businessId]);
  }

  async create(b: BrandFields, now: number): Promise<BrandRow> {
    const at = iso(now);
    const [r] = await this.db.write<StoredBrand>(B.create, [
      this.businessId,
      b.title,
      b.logo,
      b.banner,
      at,
      at,
    ]);
    return brandOf(r!);
  }

  async update(id: number, b: BrandFields, now: number): Promise<void> {
    await this.db.run(B.update, [b.title, b.logo, b.banner, iso(now), id, this.businessId]);
  }

  async setVisibilities(id: number, v: Visibilities, now: number): Promise<void> {
    await this.db.run(B.visibilities, [JSON.stringify(v), iso(now), id, this.businessId]);
  }
}

type StoredBranch = Omit<BranchRow, 'fields' | 'visibilities'> & { fields: string; visibilities: string };
const BRANCH =
  'id, business_id, fields, visibilities, record, price_group_id, busy_mode_updated_at, created_at, updated_at, deleted_at';
const branchOf = (r: StoredBranch): BranchRow => ({
  ...r,
  fields: JSON.parse(r.fields) as Record<string, unknown>,
  visibilities: JSON.parse(r.visibilities) as Visibilities,
});

const LIVE = 'id = ? AND business_id = ? AND deleted_at IS NULL';
const R = {
  get: new Lockable(`SELECT ${BRANCH} FROM branches WHERE ${LIVE}`),
  getAny: new Lockable(`SELECT ${BRANCH} FROM branches WHERE id = ? AND business_id = ?`),
  // The total rides along as a window count: one statement (one round trip on PostgreSQL).
  page: q(
    `SELECT record, count(*) OVER () AS total FROM branches WHERE business_id = ? AND deleted_at IS NULL
     ORDER BY id LIMIT ? OFFSET ?`,
  ),
  count: q('SELECT count(*) FROM branches WHERE business_id = ? AND deleted_at IS NULL'),
  insert: q(
    `INSERT INTO branches (business_id, fields, visibilities, record, price_group_id, busy_mode_updated_at, created_at, updated_at)
     VALUES (?, ?, '{}', '', ?, ?, ?, ?) RETURNING id`,
  ),
  update: q(
    `UPDATE branches SET fields = ?, price_group_id = ?, updated_at = ?, busy_mode_updated_at = ?
     WHERE id = ? AND business_id = ?`,
  ),
  unlink: q('DELETE FROM branch_brands WHERE branch_id = ?'),
  // One statement for the set; a repeated id is one link. (`WHERE true`: SQLite's parser needs a
  // WHERE before ON CONFLICT in an INSERT … SELECT.)
  link: q(
    (d) =>
      `INSERT INTO branch_brands (branch_id, brand_id) SELECT CAST(? AS BIGINT), value FROM ${d.setOf('bigint')} AS v
       WHERE true ON CONFLICT DO NOTHING`,
  ),
  visibilities: q('UPDATE branches SET visibilities = ?, updated_at = ? WHERE id = ? AND business_id = ?'),
  brandsOf: q(
    `SELECT b.id, b.title FROM branch_brands bb JOIN brands b ON b.id = bb.brand_id
     WHERE bb.branch_id = ? AND b.business_id = ? ORDER BY b.id`,
  ),
  record: q('UPDATE branches SET record = ? WHERE id = ? AND business_id = ?'),
  linkedTo: q(
    `SELECT bb.branch_id FROM branch_brands bb JOIN branches b ON b.id = bb.branch_id
     WHERE bb.brand_id = ? AND b.business_id = ? ORDER BY bb.branch_id`,
  ),
  carrying: q(
    `SELECT bb.branch_id FROM branch_brands bb JOIN branches b ON b.id = bb.branch_id
     WHERE bb.brand_id = ? AND b.business_id = ? AND b.deleted_at IS NULL ORDER BY bb.branch_id`,
  ),
  carries: q(
    `SELECT 1 FROM branch_brands bb JOIN branches b ON b.id = bb.branch_id
     WHERE bb.branch_id = ? AND bb.brand_id = ? AND b.business_id = ?`,
  ),
  usingPriceGroup: q(
    'SELECT id FROM branches WHERE price_group_id = ? AND business_id = ? AND deleted_at IS NULL ORDER BY id',
  ),
};

const OWNED = q('SELECT 1 FROM branches WHERE id = ? AND business_id = ?');

/** Whether the branch (deleted or not) is the business's: a write that names one checks first. */
export async function ownsBranch(db: Sql, businessId: number, id: number): Promise<boolean> {
  return (await db.get(OWNED, [id, businessId])) !== undefined;
}

/**
 * Branch-list pages, the API's hot read, kept per business where one process owns the data
 * (SQLite; another instance may write a shared store) until a branch of it is inserted or its
 * record rewritten: every change. Frozen, so the caller may cache their serialisation by identity.
 */
export class BranchPageCache {
  private readonly byBusiness = new Map<number, Map<string, BranchPage>>();

  get(businessId: number, key: string): BranchPage | undefined {
    return this.byBusiness.get(businessId)?.get(key);
  }

  set(businessId: number, key: string, page: BranchPage): void {
    let pages = this.byBusiness.get(businessId);
    if (!pages) {
      pages = new Map();
      this.byBusiness.set(businessId, pages);
    }
    if (pages.size < 1000) pages.set(key, page);
  }

  drop(businessId: number): void {
    this.byBusiness.delete(businessId);
  }

  clear(): void {
    this.byBusiness.clear();
  }
}

type PageRow = { record: string; total: number };

export class SqlBranches {
  constructor(
    private readonly db: Sql,
    private readonly businessId: number,
    private readonly pages?: BranchPageCache,
  ) {}

  /** A live (not deleted) branch. `forUpdate`: as `BrandsRepo.get`. */
  async get(id: number, forUpdate = false): Promise<BranchRow | undefined> {
    const r = await this.db.get<StoredBranch>(R.get.in(this.db, forUpdate), [id, this.businessId]);
    return r && branchOf(r);
  }

  /** A branch, deleted or not. `forUpdate`: as `BrandsRepo.get`. */
  async getAny(id: number, forUpdate = false): Promise<BranchRow | undefined> {
    const r = await this.db.get<StoredBranch>(R.getAny.in(this.db, forUpdate), [id, this.businessId]);
    return r && branchOf(r);
  }

  /** Live branches by id. */
  async page(limit: number, offset: number): Promise<BranchPage> {
    const key = `${limit}:${offset}`;
    const cached = this.pages?.get(this.businessId, key);
    if (cached) return cached;
    const rows = await this.db.all<PageRow>(R.page, [this.businessId, limit, offset]);
    // A page past the end has no row to carry the total: count apart.
    const total = rows.length
      ? rows[0]!.total
      : ((await this.db.value<number>(R.count, [this.businessId])) ?? 0);
    const page: BranchPage = Object.freeze({ total, records: Object.freeze(rows.map((r) => r.record)) });
    this.pages?.set(this.businessId, key, page);
    return page;
  }

  /** Inserts with an empty record; the caller composes and saves the record next. */
  async insert(b: NewBranch, now: number): Promise<number> {
    const at = iso(now);
    this.pages?.drop(this.businessId);
    const [r] = await this.db.write<{ id: number }>(R.insert, [
      this.businessId,
      JSON.stringify(b.fields),
      b.price_group_id,
      at,
      at,
      at,
    ]);
    await this.setBrands(r!.id, b.brand_ids);
    return r!.id;
  }

  async update(id: number, b: BranchUpdate, now: number): Promise<void> {
    await this.db.run(R.update, [
      JSON.stringify(b.fields),
      b.price_group_id,
      iso(now),
      b.busy_mode_updated_at,
      id,
      this.businessId,
    ]);
  }

  async setBrands(id: number, brandIds: readonly number[]): Promise<void> {
    if (!(await ownsBranch(this.db, this.businessId, id))) return;
    await this.db.run(R.unlink, [id]);
    if (brandIds.length) await this.db.run(R.link, [id, this.db.list(brandIds)]);
  }

  async setVisibilities(id: number, v: Visibilities, now: number): Promise<void> {
    await this.db.run(R.visibilities, [JSON.stringify(v), iso(now), id, this.businessId]);
  }

  /** The brands a branch carries, by id (for its record's brand_ids and brand_titles). */
  brandsOf(id: number): Promise<{ id: number; title: string }[]> {
    return this.db.all(R.brandsOf, [id, this.businessId]);
  }

  async saveRecord(id: number, record: string): Promise<void> {
    this.pages?.drop(this.businessId);
    await this.db.run(R.record, [record, id, this.businessId]);
  }

  /** Every branch (deleted ones too) linked to the brand: their records name it. */
  linkedTo(brandId: number): Promise<number[]> {
    return this.db.column(R.linkedTo, [brandId, this.businessId]);
  }

  /** Live branches carrying the brand, by id. */
  carrying(brandId: number): Promise<number[]> {
    return this.db.column(R.carrying, [brandId, this.businessId]);
  }

  async carries(branchId: number, brandId: number): Promise<boolean> {
    return (await this.db.get(R.carries, [branchId, brandId, this.businessId])) !== undefined;
  }

  /** Live branches on the price group. */
  usingPriceGroup(groupId: number): Promise<number[]> {
    return this.db.column(R.usingPriceGroup, [groupId, this.businessId]);
  }
}
