import type {
  CategoryFields,
  CategoryRow,
  GroupFields,
  GroupRow,
  ItemFields,
  ItemRow,
  MenuCatalogue,
  MenuEntities,
  SectionFields,
  SectionRow,
} from '../../menus/catalogue-repo.js';
import type { SqliteTx } from '../tx.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** How a field is kept in a column: JSON text, 0/1, or as it is. */
type Codec = 'json' | 'json?' | 'bool' | 'plain';
const encode = (c: Codec, v: unknown) =>
  c === 'bool'
    ? v
      ? 1
      : 0
    : c === 'json'
      ? JSON.stringify(v)
      : c === 'json?'
        ? v === null
          ? null
          : JSON.stringify(v)
        : v;
const decode = (c: Codec, v: unknown) =>
  c === 'bool'
    ? v === 1
    : c === 'json'
      ? JSON.parse(v as string)
      : c === 'json?'
        ? v === null
          ? null
          : JSON.parse(v as string)
        : v;

/** A menu table: its name and, per field of the row, its column and codec. */
interface Table<Fields> {
  name: string;
  columns: { [K in keyof Fields]: [column: string, codec: Codec] };
}

const SECTIONS: Table<SectionFields> = {
  name: 'menu_sections',
  columns: {
    title: ['title', 'plain'],
    description: ['description', 'plain'],
    available_times: ['available_times', 'json?'],
    is_enabled: ['is_enabled', 'bool'],
    visibilities: ['visibilities', 'json'],
    blackout_dates: ['blackout_dates', 'json'],
  },
};
const CATEGORIES: Table<CategoryFields> = {
  name: 'menu_categories',
  columns: {
    title: ['title', 'plain'],
    description: ['description', 'plain'],
    is_enabled: ['is_enabled', 'bool'],
  },
};
const ITEMS: Table<ItemFields> = {
  name: 'menu_items',
  columns: {
    title: ['title', 'plain'],
    partner_item_id: ['partner_item_id', 'plain'],
    description: ['description', 'plain'],
    prices: ['prices', 'json'],
    group_prices: ['group_prices', 'json'],
    visibilities: ['visibilities', 'json'],
    enabled: ['enabled', 'bool'],
    only_modifier: ['only_modifier', 'bool'],
  },
};
const GROUPS: Table<GroupFields> = {
  name: 'menu_modifier_groups',
  columns: { title: ['title', 'plain'], min: ['min_choices', 'plain'], max: ['max_choices', 'plain'] },
};

/** One menu table, table-driven: every query is built once from its descriptor. */
class SqliteMenuEntities<
  Fields extends object,
  Row extends { id: number; business_id: number; brand_id: number },
> implements MenuEntities<Row, Fields>
{
  private readonly fields: [keyof Fields, string, Codec][];
  private readonly q: { get: string; ofBrand: string; insert: string; update: string; delete: string };

  constructor(
    protected readonly tx: SqliteTx,
    protected readonly businessId: number,
    table: Table<Fields>,
  ) {
    this.fields = (Object.entries(table.columns) as [string, [string, Codec]][]).map(([k, [col, codec]]) => [
      k as keyof Fields,
      col,
      codec,
    ]);
    const cols = this.fields.map((f) => f[1]);
    const select = `SELECT id, business_id, brand_id, ${cols.join(', ')} FROM ${table.name}`;
    this.q = {
      get: `${select} WHERE id = ? AND business_id = ?`,
      ofBrand: `${select} WHERE brand_id = ? AND business_id = ? ORDER BY id`,
      insert: `INSERT INTO ${table.name} (business_id, brand_id, ${cols.join(', ')}, created_at, updated_at) VALUES (?, ?, ${cols.map(() => '?').join(', ')}, ?, ?)`,
      update: `UPDATE ${table.name} SET ${cols.map((c) => `${c} = ?`).join(', ')}, updated_at = ? WHERE id = ? AND business_id = ?`,
      delete: `DELETE FROM ${table.name} WHERE id = ? AND business_id = ?`,
    };
  }

  protected row(r: Record<string, unknown>): Row {
    const out: Record<string, unknown> = { id: r.id, business_id: r.business_id, brand_id: r.brand_id };
    for (const [k, col, codec] of this.fields) out[k as string] = decode(codec, r[col]);
    return out as Row;
  }

  private values(f: Fields): unknown[] {
    return this.fields.map(([k, , codec]) => encode(codec, f[k]));
  }

  async get(id: number): Promise<Row | undefined> {
    const r = this.tx.select(this.q.get).get(id, this.businessId) as Record<string, unknown> | undefined;
    return r && this.row(r);
  }

  async getMany(ids: readonly number[]): Promise<{ rows: Row[]; missing: number[] }> {
    const rows: Row[] = [];
    const missing: number[] = [];
    for (const id of ids) {
      const r = await this.get(id);
      if (r) rows.push(r);
      else missing.push(id);
    }
    return { rows, missing };
  }

  async ofBrand(brandId: number): Promise<Row[]> {
    return (this.tx.select(this.q.ofBrand).all(brandId, this.businessId) as Record<string, unknown>[]).map(
      (r) => this.row(r),
    );
  }

  async create(brandId: number, f: Fields, now: number): Promise<Row> {
    const at = iso(now);
    const id = Number(
      this.tx.change(this.q.insert).run(this.businessId, brandId, ...this.values(f), at, at).lastInsertRowid,
    );
    return (await this.get(id))!;
  }

  async update(id: number, f: Fields, now: number): Promise<void> {
    this.tx.change(this.q.update).run(...this.values(f), iso(now), id, this.businessId);
  }

  async delete(id: number): Promise<void> {
    this.tx.change(this.q.delete).run(id, this.businessId);
  }
}

class SqliteMenuItems extends SqliteMenuEntities<ItemFields, ItemRow> {
  async withSku(brandId: number, sku: string, exceptId = 0): Promise<number | undefined> {
    return this.tx
      .select(
        'SELECT id FROM menu_items WHERE brand_id = ? AND partner_item_id = ? AND id != ? AND business_id = ?',
      )
      .pluck()
      .get(brandId, sku, exceptId, this.businessId) as number | undefined;
  }

  async atBranch(branchId: number, sku: string): Promise<ItemRow[]> {
    return (
      this.tx
        .select(
          `SELECT i.* FROM menu_items i JOIN branch_brands bb ON bb.brand_id = i.brand_id AND bb.branch_id = ?
           WHERE i.partner_item_id = ? AND i.business_id = ? ORDER BY i.id`,
        )
        .all(branchId, sku, this.businessId) as Record<string, unknown>[]
    ).map((r) => this.row(r));
  }
}

export class SqliteMenuCatalogue implements MenuCatalogue {
  readonly sections: SqliteMenuEntities<SectionFields, SectionRow>;
  readonly categories: SqliteMenuEntities<CategoryFields, CategoryRow>;
  readonly items: SqliteMenuItems;
  readonly groups: SqliteMenuEntities<GroupFields, GroupRow>;

  constructor(tx: SqliteTx, businessId: number) {
    this.sections = new SqliteMenuEntities(tx, businessId, SECTIONS);
    this.categories = new SqliteMenuEntities(tx, businessId, CATEGORIES);
    this.items = new SqliteMenuItems(tx, businessId, ITEMS);
    this.groups = new SqliteMenuEntities(tx, businessId, GROUPS);
  }
}
