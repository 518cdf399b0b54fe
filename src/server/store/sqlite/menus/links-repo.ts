import { LINKS, type LinkKind, type MenuLinks } from '../../menus/links-repo.js';
import type { SqliteTx } from '../tx.js';

/** Every statement of one kind, built from LINKS. Each is confined to the business through the parent. */
const queries = Object.fromEntries(
  Object.entries(LINKS).map(([kind, l]) => [
    kind,
    {
      owns: `SELECT 1 FROM ${l.parentTable} WHERE id = ? AND business_id = ?`,
      link: `INSERT OR IGNORE INTO ${l.table} (${l.parent}, ${l.child}) VALUES (?, ?)`,
      unlink: `DELETE FROM ${l.table} WHERE ${l.parent} = ? AND ${l.child} = ?`,
      children: `SELECT l.${l.child} FROM ${l.table} l JOIN ${l.parentTable} p ON p.id = l.${l.parent}
                 WHERE l.${l.parent} = ? AND p.business_id = ? ORDER BY l.seq`,
      parents: `SELECT l.${l.parent} FROM ${l.table} l JOIN ${l.parentTable} p ON p.id = l.${l.parent}
                WHERE l.${l.child} = ? AND p.business_id = ? ORDER BY l.${l.parent}`,
      ofBrand: `SELECT l.${l.parent}, l.${l.child} FROM ${l.table} l JOIN ${l.parentTable} p ON p.id = l.${l.parent}
                WHERE p.brand_id = ? AND p.business_id = ? ORDER BY l.seq`,
    },
  ]),
) as Record<LinkKind, Record<'owns' | 'link' | 'unlink' | 'children' | 'parents' | 'ofBrand', string>>;

export class SqliteMenuLinks implements MenuLinks {
  constructor(
    private readonly tx: SqliteTx,
    private readonly businessId: number,
  ) {}

  private owns(kind: LinkKind, parentId: number): boolean {
    return this.tx.select(queries[kind].owns).get(parentId, this.businessId) !== undefined;
  }

  async link(kind: LinkKind, parentId: number, childIds: readonly number[]): Promise<void> {
    if (!this.owns(kind, parentId)) return;
    const s = this.tx.change(queries[kind].link);
    for (const c of childIds) s.run(parentId, c);
  }

  async unlink(kind: LinkKind, parentId: number, childIds: readonly number[]): Promise<void> {
    if (!this.owns(kind, parentId)) return;
    const s = this.tx.change(queries[kind].unlink);
    for (const c of childIds) s.run(parentId, c);
  }

  async children(kind: LinkKind, parentId: number): Promise<number[]> {
    return this.tx.select(queries[kind].children).pluck().all(parentId, this.businessId) as number[];
  }

  async parents(kind: LinkKind, childId: number): Promise<number[]> {
    return this.tx.select(queries[kind].parents).pluck().all(childId, this.businessId) as number[];
  }

  async ofBrand(kind: LinkKind, brandId: number): Promise<[number, number][]> {
    return this.tx.select(queries[kind].ofBrand).raw().all(brandId, this.businessId) as [number, number][];
  }
}
