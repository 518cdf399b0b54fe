import type { PriceGroupFields, PriceGroupRow } from '../catalog-repo.js';
import { iso, Lockable, q, type Sql } from './query.js';

const GROUP = 'id, business_id, title, description, created_at, updated_at';

const G = {
  list: q(`SELECT ${GROUP} FROM price_groups WHERE business_id = ? ORDER BY id`),
  get: new Lockable(`SELECT ${GROUP} FROM price_groups WHERE id = ? AND business_id = ?`),
  ids: q('SELECT id FROM price_groups WHERE business_id = ? ORDER BY id'),
  create: q(
    `INSERT INTO price_groups (business_id, title, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?) RETURNING ${GROUP}`,
  ),
  update: q(
    'UPDATE price_groups SET title = ?, description = ?, updated_at = ? WHERE id = ? AND business_id = ?',
  ),
  delete: q('DELETE FROM price_groups WHERE id = ? AND business_id = ?'),
};

export class SqlPriceGroups {
  constructor(
    private readonly db: Sql,
    private readonly businessId: number,
  ) {}

  /** By id. */
  list(): Promise<PriceGroupRow[]> {
    return this.db.all(G.list, [this.businessId]);
  }

  /** `forUpdate`: as `BrandsRepo.get`. */
  get(id: number, forUpdate = false): Promise<PriceGroupRow | undefined> {
    return this.db.get(G.get.in(this.db, forUpdate), [id, this.businessId]);
  }

  ids(): Promise<number[]> {
    return this.db.column(G.ids, [this.businessId]);
  }

  async create(g: PriceGroupFields, now: number): Promise<PriceGroupRow> {
    const at = iso(now);
    const [r] = await this.db.write<PriceGroupRow>(G.create, [
      this.businessId,
      g.title,
      g.description,
      at,
      at,
    ]);
    return r!;
  }

  async update(id: number, g: PriceGroupFields, now: number): Promise<void> {
    await this.db.run(G.update, [g.title, g.description, iso(now), id, this.businessId]);
  }

  async delete(id: number): Promise<void> {
    await this.db.run(G.delete, [id, this.businessId]);
  }
}
