// Price groups on PostgreSQL: store/sqlite/catalog-repo.ts one to one.
import type { PriceGroupFields, PriceGroupRow, PriceGroupsRepo } from '../catalog-repo.js';
import { iso, num } from './schema/catalog.js';
import type { PgTx } from './tx.js';

const at = (ms: number) => new Date(ms).toISOString();
const GROUP = `id, business_id, title, description, ${iso('created_at')}, ${iso('updated_at')}`;

type StoredGroup = Omit<PriceGroupRow, 'id' | 'business_id'> & { id: string; business_id: string };
const groupOf = (r: StoredGroup): PriceGroupRow => ({ ...r, id: num(r.id), business_id: num(r.business_id) });

export class PgPriceGroups implements PriceGroupsRepo {
  constructor(
    private readonly tx: PgTx,
    private readonly businessId: number,
  ) {}

  async list(): Promise<PriceGroupRow[]> {
    const rows = await this.tx.rows<StoredGroup>(
      `SELECT ${GROUP} FROM price_groups WHERE business_id = $1 ORDER BY id`,
      [this.businessId],
    );
    return rows.map(groupOf);
  }

  async get(id: number): Promise<PriceGroupRow | undefined> {
    const r = await this.tx.row<StoredGroup>(
      `SELECT ${GROUP} FROM price_groups WHERE id = $1 AND business_id = $2`,
      [id, this.businessId],
    );
    return r && groupOf(r);
  }

  async ids(): Promise<number[]> {
    const rows = await this.tx.rows<{ id: string }>(
      'SELECT id FROM price_groups WHERE business_id = $1 ORDER BY id',
      [this.businessId],
    );
    return rows.map((r) => num(r.id));
  }

  async create(g: PriceGroupFields, now: number): Promise<PriceGroupRow> {
    const [r] = await this.tx.change<StoredGroup>(
      `INSERT INTO price_groups (business_id, title, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
       RETURNING ${GROUP}`,
      [this.businessId, g.title, g.description, at(now)],
    );
    return groupOf(r!);
  }

  async update(id: number, g: PriceGroupFields, now: number): Promise<void> {
    await this.tx.exec(
      'UPDATE price_groups SET title = $1, description = $2, updated_at = $3 WHERE id = $4 AND business_id = $5',
      [g.title, g.description, at(now), id, this.businessId],
    );
  }

  async delete(id: number): Promise<void> {
    await this.tx.exec('DELETE FROM price_groups WHERE id = $1 AND business_id = $2', [id, this.businessId]);
  }
}
