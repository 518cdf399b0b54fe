// The business-level menu definition on PostgreSQL: store/sqlite/menus/catalogue-repo.ts one to
// one, table-driven the same way.
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
import { json, num } from '../schema/catalog.js';
import type { PgTx } from '../tx.js';

const at = (ms: number) => new Date(ms).toISOString();

/** How a field is kept in a column: json (text in, parsed out), nullable json, or as it is. */
type Codec = 'json' | 'json?' | 'plain';
const encode = (c: Codec, v: unknown) =>
  c === 'plain' || (c === 'json?' && v === null) ? v : JSON.stringify(v);
const decode = (c: Codec, v: unknown) => (c === 'plain' || (c === 'json?' && v === null) ? v : json(v));

/** A menu table: its name and, per field of the row, its column and codec. */
interface Table<Fields> {
  name: string;
  columns: { [K in keyof Fields]: [column: string, codec: Codec] };
}

// Booleans are PostgreSQL booleans and small counts integers: both come back as JS values.
const SECTIONS: Table<SectionFields> = {
  name: 'menu_sections',
  columns: {
    title: ['title', 'plain'],
    description: ['description', 'plain'],
    available_times: ['available_times', 'json?'],
    is_enabled: ['is_enabled', 'plain'],
    visibilities: ['visibilities', 'json'],
    blackout_dates: ['blackout_dates', 'json'],
  },
};
const CATEGORIES: Table<CategoryFields> = {
  name: 'menu_categories',
  columns: {
    title: ['title', 'plain'],
    description: ['description', 'plain'],
    is_enabled: ['is_enabled', 'plain'],
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
    enabled: ['enabled', 'plain'],
    only_modifier: ['only_modifier', 'plain'],
  },
};
const GROUPS: Table<GroupFields> = {
  name: 'menu_modifier_groups',
  columns: { title: ['title', 'plain'], min: ['min_choices', 'plain'], max: ['max_choices', 'plain'] },
};

type Stored = Record<string, unknown>;

/** One menu table, table-driven: every query is built once from its descriptor. */
class PgMenuEntities<Fields extends object, Row extends { id: number; business_id: number; brand_id: number }>
  implements MenuEntities<Row, Fields>
{
  private readonly fields: [keyof Fields, string, Codec][];
  protected readonly select: string;
  private readonly q: {
    get: string;
    getMany: string;
    ofBrand: string;
    insert: string;
    update: string;
    delete: string;
  };

  constructor(
    protected readonly tx: PgTx,
    protected readonly businessId: number,
    table: Table<Fields>,
  ) {
    this.fields = (Object.entries(table.columns) as [string, [string, Codec]][]).map(([k, [col, codec]]) => [
      k as keyof Fields,
      col,
      codec,
    ]);
    const cols = this.fields.map((f) => f[1]);
    const n = cols.length;
    const params = (from: number, count: number) => Array.from({ length: count }, (_, i) => `$${from + i}`);
    this.select = `id, business_id, brand_id, ${cols.join(', ')}`;
    const select = `SELECT ${this.select} FROM ${table.name}`;
    this.q = {
      get: `${select} WHERE id = $1 AND business_id = $2`,
      getMany: `${select} WHERE id = ANY($1::bigint[]) AND business_id = $2`,
      ofBrand: `${select} WHERE brand_id = $1 AND business_id = $2 ORDER BY id`,
      insert: `INSERT INTO ${table.name} (business_id, brand_id, ${cols.join(', ')}, created_at, updated_at)
               VALUES ($1, $2, ${params(3, n).join(', ')}, $${n + 3}, $${n + 3}) RETURNING ${this.select}`,
      update: `UPDATE ${table.name} SET ${cols.map((c, i) => `${c} = $${i + 1}`).join(', ')}, updated_at = $${n + 1}
               WHERE id = $${n + 2} AND business_id = $${n + 3}`,
      delete: `DELETE FROM ${table.name} WHERE id = $1 AND business_id = $2`,
    };
  }

  protected row(r: Stored): Row {
    const out: Record<string, unknown> = {
      id: num(r.id),
      business_id: num(r.business_id),
      brand_id: num(r.brand_id),
    };
    for (const [k, col, codec] of this.fields) out[k as string] = decode(codec, r[col]);
    return out as Row;
  }

  private values(f: Fields): unknown[] {
    return this.fields.map(([k, , codec]) => encode(codec, f[k]));
  }

  async get(id: number): Promise<Row | undefined> {
    const r = await this.tx.row<Stored>(this.q.get, [id, this.businessId]);
    return r && this.row(r);
  }

  async getMany(ids: readonly number[]): Promise<{ rows: Row[]; missing: number[] }> {
    // One round trip, then the rows in the order asked (a repeated id comes back twice).
    const found = new Map<number, Row>();
    if (ids.length) {
      for (const r of await this.tx.rows<Stored>(this.q.getMany, [ids, this.businessId])) {
        const row = this.row(r);
        found.set(row.id, row);
      }
    }
    const rows: Row[] = [];
    const missing: number[] = [];
    for (const id of ids) {
      const r = found.get(id);
      if (r) rows.push(r);
      else missing.push(id);
    }
    return { rows, missing };
  }

  async ofBrand(brandId: number): Promise<Row[]> {
    return (await this.tx.rows<Stored>(this.q.ofBrand, [brandId, this.businessId])).map((r) => this.row(r));
  }

  async create(brandId: number, f: Fields, now: number): Promise<Row> {
    const [r] = await this.tx.change<Stored>(this.q.insert, [
      this.businessId,
      brandId,
      ...this.values(f),
      at(now),
    ]);
    return this.row(r!);
  }

  async update(id: number, f: Fields, now: number): Promise<void> {
    await this.tx.exec(this.q.update, [...this.values(f), at(now), id, this.businessId]);
  }

  async delete(id: number): Promise<void> {
    await this.tx.exec(this.q.delete, [id, this.businessId]);
  }
}

/** The advisory-lock class of "a SKU of a brand" ('sku ' in ASCII). */
const SKU_LOCK = 0x736b7520;

class PgMenuItems extends PgMenuEntities<ItemFields, ItemRow> {
  /**
   * In a write unit the SKU is locked first (until the unit ends): the caller checks here that no
   * other item has it and then writes, and two instances doing that at once for one SKU would both
   * pass the check; the second would then hit the unique index (a 500) where SQLite's single
   * writer gives the caller's own "already uses" answer. The lock is its own statement, so the
   * look after it sees what the unit that held it committed.
   */
  async withSku(brandId: number, sku: string, exceptId = 0): Promise<number | undefined> {
    if (this.tx.mode === 'write') {
      await this.tx.exec('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [
        SKU_LOCK,
        `${brandId}:${sku}`,
      ]);
    }
    const r = await this.tx.row<{ id: string }>(
      'SELECT id FROM menu_items WHERE brand_id = $1 AND partner_item_id = $2 AND id <> $3 AND business_id = $4',
      [brandId, sku, exceptId, this.businessId],
    );
    return r && num(r.id);
  }

  async atBranch(branchId: number, sku: string): Promise<ItemRow[]> {
    const rows = await this.tx.rows<Stored>(
      `SELECT ${this.select.replace(/(^|, )/g, '$1i.')} FROM menu_items i
       JOIN branch_brands bb ON bb.brand_id = i.brand_id AND bb.branch_id = $1
       WHERE i.partner_item_id = $2 AND i.business_id = $3 ORDER BY i.id`,
      [branchId, sku, this.businessId],
    );
    return rows.map((r) => this.row(r));
  }
}

export class PgMenuCatalogue implements MenuCatalogue {
  readonly sections: PgMenuEntities<SectionFields, SectionRow>;
  readonly categories: PgMenuEntities<CategoryFields, CategoryRow>;
  readonly items: PgMenuItems;
  readonly groups: PgMenuEntities<GroupFields, GroupRow>;

  constructor(tx: PgTx, businessId: number) {
    this.sections = new PgMenuEntities(tx, businessId, SECTIONS);
    this.categories = new PgMenuEntities(tx, businessId, CATEGORIES);
    this.items = new PgMenuItems(tx, businessId, ITEMS);
    this.groups = new PgMenuEntities(tx, businessId, GROUPS);
  }
}
