import type { PriceGroupFields, PriceGroupRow, PriceGroupsRepo } from '../catalog-repo.js';
import type { SqliteTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();
const GROUP = 'id, business_id, title, description, created_at, updated_at';

export class SqlitePriceGroups implements PriceGroupsRepo {
  constructor(
    private readonly tx: SqliteTx,
    private readonly businessId: number,
  ) {}

  async list(): Promise<PriceGroupRow[]> {
    return this.tx
      .select(`SELECT ${GROUP} FROM price_groups WHERE business_id = ? ORDER BY id`)
      .all(this.businessId) as PriceGroupRow[];
  }

  async get(id: number): Promise<PriceGroupRow | undefined> {
    return this.tx
      .select(`SELECT ${GROUP} FROM price_groups WHERE id = ? AND business_id = ?`)
      .get(id, this.businessId) as PriceGroupRow | undefined;
  }

  async ids(): Promise<number[]> {
    return this.tx
      .select('SELECT id FROM price_groups WHERE business_id = ?')
      .pluck()
      .all(this.businessId) as number[];
  }

  async create(g: PriceGroupFields, now: number): Promise<PriceGroupRow> {
    const at = iso(now);
    return this.tx
      .change(
        `INSERT INTO price_groups (business_id, title, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?) RETURNING ${GROUP}`,
      )
      .get(this.businessId, g.title, g.description, at, at) as PriceGroupRow;
  }

  async update(id: number, g: PriceGroupFields, now: number): Promise<void> {
    this.tx
      .change(
        'UPDATE price_groups SET title = ?, description = ?, updated_at = ? WHERE id = ? AND business_id = ?',
      )
      .run(g.title, g.description, iso(now), id, this.businessId);
  }

  async delete(id: number): Promise<void> {
    this.tx.change('DELETE FROM price_groups WHERE id = ? AND business_id = ?').run(id, this.businessId);
  }
}
