// The business-level menu definition, table-driven: each table's statements built once from its descriptor.
import type {
  CategoryFields,
  CategoryRow,
  GroupFields,
  GroupRow,
  ItemFields,
  ItemRow,
  Owned,
  SectionFields,
  SectionRow,
} from '../../menus/catalogue-repo.js';
import { iso, json, Lockable, q, type Sql } from '../query.js';

/** How a field is kept in a column: JSON text, a boolean (0/1 on SQLite), or as it is. */
type Codec = 'json' | 'json?' | 'bool' | 'plain';
const encode = (c: Codec, v: unknown) =>
  c === 'plain' || (c === 'json?' && v === null) ? v : c === 'bool' ? (v ? 1 : 0) : JSON.stringify(v);
const decode = (c: Codec, v: unknown) =>
  c === 'plain' || (c === 'json?' && v === null) ? v : c === 'bool' ? Boolean(v) : json(v);

type Stored = Record<string, unknown>;
type Field = [key: string, column: string, codec: Codec];

/** A menu table's fields and statements, made once when this module loads. */
type Table = ReturnType<typeof table>;

/** The table `name`, from its column and codec per field of the row. */
function table<Fields>(name: string, columns: { [K in keyof Fields]: [column: string, codec: Codec] }) {
  const fields = (Object.entries(columns) as [string, [string, Codec]][]).map(
    ([k, [col, codec]]): Field => [k, col, codec],
  );
  const cols = fields.map((f) => f[1]);
  const select = `id, business_id, brand_id, ${cols.join(', ')}`;
  const from = `SELECT ${select} FROM ${name}`;
  return {
    fields,
    select,
    get: new Lockable(`${from} WHERE id = ? AND business_id = ?`),
    getMany: q((d) => `${from} WHERE id ${d.inList('bigint')} AND business_id = ?`),
    ofBrand: q(`${from} WHERE brand_id = ? AND business_id = ? ORDER BY id`),
    insert: q(`INSERT INTO ${name} (business_id, brand_id, ${cols.join(', ')}, created_at, updated_at)
               VALUES (?, ?, ${cols.map(() => '?').join(', ')}, ?, ?) RETURNING ${select}`),
    update: q(`UPDATE ${name} SET ${cols.map((c) => `${c} = ?`).join(', ')}, updated_at = ?
               WHERE id = ? AND business_id = ?`),
    delete: q(`DELETE FROM ${name} WHERE id = ? AND business_id = ?`),
  };
}

const SECTIONS = table<SectionFields>('menu_sections', {
  title: ['title', 'plain'],
  description: ['description', 'plain'],
  available_times: ['available_times', 'json?'],
  is_enabled: ['is_enabled', 'bool'],
  visibilities: ['visibilities', 'json'],
  blackout_dates: ['blackout_dates', 'json'],
});
const CATEGORIES = table<CategoryFields>('menu_categories', {
  title: ['title', 'plain'],
  description: ['description', 'plain'],
  is_enabled: ['is_enabled', 'bool'],
});
const ITEMS = table<ItemFields>('menu_items', {
  title: ['title', 'plain'],
  partner_item_id: ['partner_item_id', 'plain'],
  description: ['description', 'plain'],
  prices: ['prices', 'json'],
  group_prices: ['group_prices', 'json'],
  visibilities: ['visibilities', 'json'],
  enabled: ['enabled', 'bool'],
  only_modifier: ['only_modifier', 'bool'],
});
const GROUPS = table<GroupFields>('menu_modifier_groups', {
  title: ['title', 'plain'],
  min: ['min_choices', 'plain'],
  max: ['max_choices', 'plain'],
});

/** One menu table, table-driven, confined to the tenant's business. */
export class SqlMenuEntities<Row extends Owned, Fields> {
  constructor(
    protected readonly db: Sql,
    protected readonly businessId: number,
    protected readonly c: Table,
  ) {}

  protected row(r: Stored): Row {
    const out: Record<string, unknown> = { id: r.id, business_id: r.business_id, brand_id: r.brand_id };
    for (const [k, col, codec] of this.c.fields) out[k] = decode(codec, r[col]);
    return out as Row;
  }

  private values(f: Fields): unknown[] {
    return this.c.fields.map(([k, , codec]) => encode(codec, (f as Record<string, unknown>)[k]));
  }

  /** `forUpdate`: as `BrandsRepo.get`. */
  async get(id: number, forUpdate = false): Promise<Row | undefined> {
    const r = await this.db.get<Stored>(this.c.get.in(this.db, forUpdate), [id, this.businessId]);
    return r && this.row(r);
  }

  /** The rows of `ids` in the order given; ids not of this business go to `missing`. */
  async getMany(ids: readonly number[]): Promise<{ rows: Row[]; missing: number[] }> {
    // One statement, then the rows in the order asked (a repeated id comes back twice).
    const stored = ids.length
      ? await this.db.all<Stored>(this.c.getMany, [this.db.list(ids), this.businessId])
      : [];
    const found = new Map(stored.map((r) => [r.id as number, this.row(r)]));
    return { rows: ids.flatMap((id) => found.get(id) ?? []), missing: ids.filter((id) => !found.has(id)) };
  }

  /** The brand's rows, by id. */
  async ofBrand(brandId: number): Promise<Row[]> {
    return (await this.db.all<Stored>(this.c.ofBrand, [brandId, this.businessId])).map((r) => this.row(r));
  }

  async create(brandId: number, f: Fields, now: number): Promise<Row> {
    const at = iso(now);
    const [r] = await this.db.write<Stored>(this.c.insert, [
      this.businessId,
      brandId,
      ...this.values(f),
      at,
      at,
    ]);
    return this.row(r!);
  }

  /** Writes every field (the caller merges a patch first). */
  async update(id: number, f: Fields, now: number): Promise<void> {
    await this.db.run(this.c.update, [...this.values(f), iso(now), id, this.businessId]);
  }

  /** Its links go with it. */
  async delete(id: number): Promise<void> {
    await this.db.run(this.c.delete, [id, this.businessId]);
  }
}

const I = {
  withSku: q(
    'SELECT id FROM menu_items WHERE brand_id = ? AND partner_item_id = ? AND id <> ? AND business_id = ?',
  ),
  atBranch: q(`SELECT ${ITEMS.select.replace(/(^|, )/g, '$1i.')} FROM menu_items i
               JOIN branch_brands bb ON bb.brand_id = i.brand_id AND bb.branch_id = ?
               WHERE i.partner_item_id = ? AND i.business_id = ? ORDER BY i.id`),
};

class SqlMenuItems extends SqlMenuEntities<ItemRow, ItemFields> {
  constructor(db: Sql, businessId: number) {
    super(db, businessId, ITEMS);
  }

  /** Another item of the brand with this SKU (a SKU is unique within a brand; locked first: Sql.lockSku). */
  async withSku(brandId: number, sku: string, exceptId = 0): Promise<number | undefined> {
    if (this.db.writing) await this.db.lockSku?.(brandId, sku);
    return this.db.value<number>(I.withSku, [brandId, sku, exceptId, this.businessId]);
  }

  /** The items carrying a SKU in the brands the branch carries, by id. */
  async atBranch(branchId: number, sku: string): Promise<ItemRow[]> {
    return (await this.db.all<Stored>(I.atBranch, [branchId, sku, this.businessId])).map((r) => this.row(r));
  }
}

export class SqlMenuCatalogue {
  readonly sections: SqlMenuEntities<SectionRow, SectionFields>;
  readonly categories: SqlMenuEntities<CategoryRow, CategoryFields>;
  readonly items: SqlMenuItems;
  readonly groups: SqlMenuEntities<GroupRow, GroupFields>;

  constructor(db: Sql, businessId: number) {
    this.sections = new SqlMenuEntities(db, businessId, SECTIONS);
    this.categories = new SqlMenuEntities(db, businessId, CATEGORIES);
    this.items = new SqlMenuItems(db, businessId);
    this.groups = new SqlMenuEntities(db, businessId, GROUPS);
  }
}
