import type {
  BranchesRepo,
  BranchPage,
  BranchRow,
  BranchUpdate,
  BrandFields,
  BrandRow,
  BrandsRepo,
  NewBranch,
  Visibilities,
} from '../brands-repo.js';
import type { SqliteTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();

type StoredBrand = Omit<BrandRow, 'visibilities'> & { visibilities: string };
const BRAND = 'id, business_id, title, logo, banner, visibilities';
const brandOf = (r: StoredBrand): BrandRow => ({
  ...r,
  visibilities: JSON.parse(r.visibilities) as Visibilities,
});

export class SqliteBrands implements BrandsRepo {
  constructor(
    private readonly tx: SqliteTx,
    private readonly businessId: number,
  ) {}

  async list(): Promise<BrandRow[]> {
    return (
      this.tx
        .select(`SELECT ${BRAND} FROM brands WHERE business_id = ? ORDER BY id`)
        .all(this.businessId) as StoredBrand[]
    ).map(brandOf);
  }

  async get(id: number): Promise<BrandRow | undefined> {
    const r = this.tx
      .select(`SELECT ${BRAND} FROM brands WHERE id = ? AND business_id = ?`)
      .get(id, this.businessId) as StoredBrand | undefined;
    return r && brandOf(r);
  }

  async ids(): Promise<number[]> {
    return this.tx
      .select('SELECT id FROM brands WHERE business_id = ?')
      .pluck()
      .all(this.businessId) as number[];
  }

  async create(b: BrandFields, now: number): Promise<BrandRow> {
    const at = iso(now);
    return brandOf(
      this.tx
        .change(
          `INSERT INTO brands (business_id, title, logo, banner, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${BRAND}`,
        )
        .get(this.businessId, b.title, b.logo, b.banner, at, at) as StoredBrand,
    );
  }

  async update(id: number, b: BrandFields, now: number): Promise<void> {
    this.tx
      .change(
        'UPDATE brands SET title = ?, logo = ?, banner = ?, updated_at = ? WHERE id = ? AND business_id = ?',
      )
      .run(b.title, b.logo, b.banner, iso(now), id, this.businessId);
  }

  async setVisibilities(id: number, v: Visibilities, now: number): Promise<void> {
    this.tx
      .change('UPDATE brands SET visibilities = ?, updated_at = ? WHERE id = ? AND business_id = ?')
      .run(JSON.stringify(v), iso(now), id, this.businessId);
  }
}

type StoredBranch = Omit<BranchRow, 'fields' | 'visibilities'> & { fields: string; visibilities: string };
const branchOf = (r: StoredBranch): BranchRow => ({
  ...r,
  fields: JSON.parse(r.fields) as Record<string, unknown>,
  visibilities: JSON.parse(r.visibilities) as Visibilities,
});

/**
 * Branch-list pages are the hot read of the API: pages are kept per business (frozen, so the
 * caller may cache their serialisation by identity) until a branch of that business is inserted
 * or its record rewritten. Only this process writes the file, so that is every change.
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

export class SqliteBranches implements BranchesRepo {
  constructor(
    private readonly tx: SqliteTx,
    private readonly businessId: number,
    private readonly pages: BranchPageCache,
  ) {}

  async get(id: number): Promise<BranchRow | undefined> {
    const r = this.tx
      .select('SELECT * FROM branches WHERE id = ? AND business_id = ? AND deleted_at IS NULL')
      .get(id, this.businessId) as StoredBranch | undefined;
    return r && branchOf(r);
  }

  async getAny(id: number): Promise<BranchRow | undefined> {
    const r = this.tx
      .select('SELECT * FROM branches WHERE id = ? AND business_id = ?')
      .get(id, this.businessId) as StoredBranch | undefined;
    return r && branchOf(r);
  }

  async page(limit: number, offset: number): Promise<BranchPage> {
    const key = `${limit}:${offset}`;
    const cached = this.pages.get(this.businessId, key);
    if (cached) return cached;
    const total = this.tx
      .select('SELECT count(*) FROM branches WHERE business_id = ? AND deleted_at IS NULL')
      .pluck()
      .get(this.businessId) as number;
    const records = this.tx
      .select(
        'SELECT record FROM branches WHERE business_id = ? AND deleted_at IS NULL ORDER BY id LIMIT ? OFFSET ?',
      )
      .pluck()
      .all(this.businessId, limit, offset) as string[];
    const page: BranchPage = Object.freeze({ total, records: Object.freeze(records) });
    this.pages.set(this.businessId, key, page);
    return page;
  }

  async insert(b: NewBranch, now: number): Promise<number> {
    const at = iso(now);
    this.pages.drop(this.businessId);
    const id = Number(
      this.tx
        .change(
          "INSERT INTO branches (business_id, fields, visibilities, record, price_group_id, busy_mode_updated_at, created_at, updated_at) VALUES (?, ?, '{}', '', ?, ?, ?, ?)",
        )
        .run(this.businessId, JSON.stringify(b.fields), b.price_group_id, at, at, at).lastInsertRowid,
    );
    await this.setBrands(id, b.brand_ids);
    return id;
  }

  async update(id: number, b: BranchUpdate, now: number): Promise<void> {
    this.tx
      .change(
        'UPDATE branches SET fields = ?, price_group_id = ?, updated_at = ?, busy_mode_updated_at = ? WHERE id = ? AND business_id = ?',
      )
      .run(JSON.stringify(b.fields), b.price_group_id, iso(now), b.busy_mode_updated_at, id, this.businessId);
  }

  async setBrands(id: number, brandIds: readonly number[]): Promise<void> {
    if (!(await this.owned(id))) return;
    this.tx.change('DELETE FROM branch_brands WHERE branch_id = ?').run(id);
    for (const b of brandIds) this.tx.change('INSERT OR IGNORE INTO branch_brands VALUES (?, ?)').run(id, b);
  }

  async setVisibilities(id: number, v: Visibilities, now: number): Promise<void> {
    this.tx
      .change('UPDATE branches SET visibilities = ?, updated_at = ? WHERE id = ? AND business_id = ?')
      .run(JSON.stringify(v), iso(now), id, this.businessId);
  }

  async brandsOf(id: number): Promise<{ id: number; title: string }[]> {
    return this.tx
      .select(
        `SELECT b.id, b.title FROM branch_brands bb JOIN brands b ON b.id = bb.brand_id
         WHERE bb.branch_id = ? AND b.business_id = ? ORDER BY b.id`,
      )
      .all(id, this.businessId) as { id: number; title: string }[];
  }

  async saveRecord(id: number, record: string): Promise<void> {
    this.pages.drop(this.businessId);
    this.tx
      .change('UPDATE branches SET record = ? WHERE id = ? AND business_id = ?')
      .run(record, id, this.businessId);
  }

  async linkedTo(brandId: number): Promise<number[]> {
    return this.tx
      .select(
        `SELECT bb.branch_id FROM branch_brands bb JOIN branches b ON b.id = bb.branch_id
         WHERE bb.brand_id = ? AND b.business_id = ? ORDER BY bb.branch_id`,
      )
      .pluck()
      .all(brandId, this.businessId) as number[];
  }

  async carrying(brandId: number): Promise<number[]> {
    return this.tx
      .select(
        `SELECT bb.branch_id FROM branch_brands bb JOIN branches b ON b.id = bb.branch_id
         WHERE bb.brand_id = ? AND b.business_id = ? AND b.deleted_at IS NULL ORDER BY bb.branch_id`,
      )
      .pluck()
      .all(brandId, this.businessId) as number[];
  }

  async carries(branchId: number, brandId: number): Promise<boolean> {
    return (
      this.tx
        .select(
          `SELECT 1 FROM branch_brands bb JOIN branches b ON b.id = bb.branch_id
           WHERE bb.branch_id = ? AND bb.brand_id = ? AND b.business_id = ?`,
        )
        .get(branchId, brandId, this.businessId) !== undefined
    );
  }

  async usingPriceGroup(groupId: number): Promise<number[]> {
    return this.tx
      .select('SELECT id FROM branches WHERE price_group_id = ? AND business_id = ? AND deleted_at IS NULL')
      .pluck()
      .all(groupId, this.businessId) as number[];
  }

  private async owned(id: number): Promise<boolean> {
    return (
      this.tx.select('SELECT 1 FROM branches WHERE id = ? AND business_id = ?').get(id, this.businessId) !==
      undefined
    );
  }
}
