// Brands and branches on PostgreSQL: store/sqlite/brands-repo.ts one to one (same rows, same
// order, same JSON text), confined to one business.
import type {
  BranchesRepo,
  BranchPage,
  BranchRow,
  BrandFields,
  BrandRow,
  BrandsRepo,
  NewBranch,
  Visibilities,
} from '../brands-repo.js';
import { iso, json, num, numOrNull } from './schema/catalog.js';
import type { PgTx } from './tx.js';

const at = (ms: number) => new Date(ms).toISOString();

interface StoredBrand {
  id: string | number;
  business_id: string | number;
  title: string;
  logo: string;
  banner: string;
  visibilities: unknown;
}
const BRAND = 'id, business_id, title, logo, banner, visibilities';
const brandOf = (r: StoredBrand): BrandRow => ({
  id: num(r.id),
  business_id: num(r.business_id),
  title: r.title,
  logo: r.logo,
  banner: r.banner,
  visibilities: json<Visibilities>(r.visibilities),
});

export class PgBrands implements BrandsRepo {
  constructor(
    private readonly tx: PgTx,
    private readonly businessId: number,
  ) {}

  async list(): Promise<BrandRow[]> {
    const rows = await this.tx.rows<StoredBrand>(
      `SELECT ${BRAND} FROM brands WHERE business_id = $1 ORDER BY id`,
      [this.businessId],
    );
    return rows.map(brandOf);
  }

  async get(id: number): Promise<BrandRow | undefined> {
    const r = await this.tx.row<StoredBrand>(
      `SELECT ${BRAND} FROM brands WHERE id = $1 AND business_id = $2`,
      [id, this.businessId],
    );
    return r && brandOf(r);
  }

  async ids(): Promise<number[]> {
    const rows = await this.tx.rows<{ id: string }>(
      'SELECT id FROM brands WHERE business_id = $1 ORDER BY id',
      [this.businessId],
    );
    return rows.map((r) => num(r.id));
  }

  async create(b: BrandFields, now: number): Promise<BrandRow> {
    const [r] = await this.tx.change<StoredBrand>(
      `INSERT INTO brands (business_id, title, logo, banner, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5) RETURNING ${BRAND}`,
      [this.businessId, b.title, b.logo, b.banner, at(now)],
    );
    return brandOf(r!);
  }

  async update(id: number, b: BrandFields, now: number): Promise<void> {
    await this.tx.exec(
      'UPDATE brands SET title = $1, logo = $2, banner = $3, updated_at = $4 WHERE id = $5 AND business_id = $6',
      [b.title, b.logo, b.banner, at(now), id, this.businessId],
    );
  }

  async setVisibilities(id: number, v: Visibilities, now: number): Promise<void> {
    await this.tx.exec(
      'UPDATE brands SET visibilities = $1, updated_at = $2 WHERE id = $3 AND business_id = $4',
      [JSON.stringify(v), at(now), id, this.businessId],
    );
  }
}

interface StoredBranch {
  id: string | number;
  business_id: string | number;
  fields: unknown;
  visibilities: unknown;
  record: string;
  price_group_id: string | number | null;
  busy_mode_updated_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}
// The columns in SQLite's table order (its `SELECT *`), times as SQLite keeps them.
const BRANCH = `id, business_id, fields, visibilities, record, price_group_id, ${iso('busy_mode_updated_at')},
  ${iso('created_at')}, ${iso('updated_at')}, ${iso('deleted_at')}`;
const branchOf = (r: StoredBranch): BranchRow => ({
  id: num(r.id),
  business_id: num(r.business_id),
  fields: json<Record<string, unknown>>(r.fields),
  visibilities: json<Visibilities>(r.visibilities),
  record: r.record,
  price_group_id: numOrNull(r.price_group_id),
  busy_mode_updated_at: r.busy_mode_updated_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

const ids = (rows: { id: string | number }[]) => rows.map((r) => num(r.id));

/**
 * No page cache here, unlike SQLite: another instance may write the same branches, so every
 * page is read from the database (one round trip: the total rides along as a window count).
 */
export class PgBranches implements BranchesRepo {
  constructor(
    private readonly tx: PgTx,
    private readonly businessId: number,
  ) {}

  async get(id: number): Promise<BranchRow | undefined> {
    const r = await this.tx.row<StoredBranch>(
      `SELECT ${BRANCH} FROM branches WHERE id = $1 AND business_id = $2 AND deleted_at IS NULL`,
      [id, this.businessId],
    );
    return r && branchOf(r);
  }

  async getAny(id: number): Promise<BranchRow | undefined> {
    const r = await this.tx.row<StoredBranch>(
      `SELECT ${BRANCH} FROM branches WHERE id = $1 AND business_id = $2`,
      [id, this.businessId],
    );
    return r && branchOf(r);
  }

  async page(limit: number, offset: number): Promise<BranchPage> {
    const rows = await this.tx.rows<{ record: string; total: string | number }>(
      `SELECT record, count(*) OVER () AS total FROM branches WHERE business_id = $1 AND deleted_at IS NULL
       ORDER BY id LIMIT $2 OFFSET $3`,
      [this.businessId, limit, offset],
    );
    // A page past the end has no row to carry the total: count apart.
    const total = rows.length
      ? num(rows[0]!.total)
      : num(
          (await this.tx.row<{ n: string }>(
            'SELECT count(*) AS n FROM branches WHERE business_id = $1 AND deleted_at IS NULL',
            [this.businessId],
          ))!.n,
        );
    return Object.freeze({ total, records: Object.freeze(rows.map((r) => r.record)) });
  }

  async insert(b: NewBranch, now: number): Promise<number> {
    const t = at(now);
    const [r] = await this.tx.change<{ id: string }>(
      `INSERT INTO branches (business_id, fields, visibilities, record, price_group_id, busy_mode_updated_at, created_at, updated_at)
       VALUES ($1, $2, '{}', '', $3, $4, $4, $4) RETURNING id`,
      [this.businessId, JSON.stringify(b.fields), b.price_group_id, t],
    );
    const id = num(r!.id);
    await this.setBrands(id, b.brand_ids);
    return id;
  }

  async update(
    id: number,
    b: {
      fields: Record<string, unknown>;
      price_group_id: number | null;
      busy_mode_updated_at: string | null;
    },
    now: number,
  ): Promise<void> {
    await this.tx.exec(
      `UPDATE branches SET fields = $1, price_group_id = $2, updated_at = $3, busy_mode_updated_at = $4
       WHERE id = $5 AND business_id = $6`,
      [JSON.stringify(b.fields), b.price_group_id, at(now), b.busy_mode_updated_at, id, this.businessId],
    );
  }

  async setBrands(id: number, brandIds: readonly number[]): Promise<void> {
    if (!(await this.owned(id))) return;
    await this.tx.exec('DELETE FROM branch_brands WHERE branch_id = $1', [id]);
    if (brandIds.length === 0) return;
    // One statement for the set; a repeated id is one link, as with SQLite's INSERT OR IGNORE.
    await this.tx.exec(
      'INSERT INTO branch_brands (branch_id, brand_id) SELECT $1::bigint, unnest($2::bigint[]) ON CONFLICT DO NOTHING',
      [id, brandIds],
    );
  }

  async setVisibilities(id: number, v: Visibilities, now: number): Promise<void> {
    await this.tx.exec(
      'UPDATE branches SET visibilities = $1, updated_at = $2 WHERE id = $3 AND business_id = $4',
      [JSON.stringify(v), at(now), id, this.businessId],
    );
  }

  async brandsOf(id: number): Promise<{ id: number; title: string }[]> {
    const rows = await this.tx.rows<{ id: string; title: string }>(
      `SELECT b.id, b.title FROM branch_brands bb JOIN brands b ON b.id = bb.brand_id
       WHERE bb.branch_id = $1 AND b.business_id = $2 ORDER BY b.id`,
      [id, this.businessId],
    );
    return rows.map((r) => ({ id: num(r.id), title: r.title }));
  }

  async saveRecord(id: number, record: string): Promise<void> {
    await this.tx.exec('UPDATE branches SET record = $1 WHERE id = $2 AND business_id = $3', [
      record,
      id,
      this.businessId,
    ]);
  }

  async linkedTo(brandId: number): Promise<number[]> {
    return ids(
      await this.tx.rows(
        `SELECT bb.branch_id AS id FROM branch_brands bb JOIN branches b ON b.id = bb.branch_id
         WHERE bb.brand_id = $1 AND b.business_id = $2 ORDER BY bb.branch_id`,
        [brandId, this.businessId],
      ),
    );
  }

  async carrying(brandId: number): Promise<number[]> {
    return ids(
      await this.tx.rows(
        `SELECT bb.branch_id AS id FROM branch_brands bb JOIN branches b ON b.id = bb.branch_id
         WHERE bb.brand_id = $1 AND b.business_id = $2 AND b.deleted_at IS NULL ORDER BY bb.branch_id`,
        [brandId, this.businessId],
      ),
    );
  }

  async carries(branchId: number, brandId: number): Promise<boolean> {
    const r = await this.tx.row(
      `SELECT 1 FROM branch_brands bb JOIN branches b ON b.id = bb.branch_id
       WHERE bb.branch_id = $1 AND bb.brand_id = $2 AND b.business_id = $3`,
      [branchId, brandId, this.businessId],
    );
    return r !== undefined;
  }

  async usingPriceGroup(groupId: number): Promise<number[]> {
    return ids(
      await this.tx.rows(
        'SELECT id FROM branches WHERE price_group_id = $1 AND business_id = $2 AND deleted_at IS NULL ORDER BY id',
        [groupId, this.businessId],
      ),
    );
  }

  private async owned(id: number): Promise<boolean> {
    return (
      (await this.tx.row('SELECT 1 FROM branches WHERE id = $1 AND business_id = $2', [
        id,
        this.businessId,
      ])) !== undefined
    );
  }
}
