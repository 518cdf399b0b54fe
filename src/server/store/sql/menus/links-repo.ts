// One table-driven repository for the four kinds of link (LinkKind).
import type { LinkKind } from '../../menus/links-repo.js';
import { type Query, q, type Sql } from '../query.js';
import { LINKS } from '../schema.js';

type Statement = 'owns' | 'link' | 'unlink' | 'children' | 'parents' | 'ofBrand';

/**
 * Every statement of one kind, built from the schema's LINKS. Each is confined to the business through the
 * parent. link/unlink take the children as one list: one statement whatever their number, and
 * the list's positions keep the order given, so seq follows it. (`WHERE true`: SQLite's parser
 * needs a WHERE before ON CONFLICT in an INSERT … SELECT.)
 */
const queries = Object.fromEntries(
  Object.entries(LINKS).map(([kind, l]) => [
    kind,
    {
      owns: q(`SELECT 1 FROM ${l.parentTable} WHERE id = ? AND business_id = ?`),
      link: q(
        (d) => `INSERT INTO ${l.table} (${l.parent}, ${l.child})
          SELECT CAST(? AS BIGINT), value FROM ${d.setOf('bigint')} AS u WHERE true ORDER BY n
          ON CONFLICT (${l.parent}, ${l.child}) DO NOTHING`,
      ),
      unlink: q((d) => `DELETE FROM ${l.table} WHERE ${l.parent} = ? AND ${l.child} ${d.inList('bigint')}`),
      children: q(`SELECT l.${l.child} FROM ${l.table} l JOIN ${l.parentTable} p ON p.id = l.${l.parent}
                   WHERE l.${l.parent} = ? AND p.business_id = ? ORDER BY l.seq`),
      parents: q(`SELECT l.${l.parent} FROM ${l.table} l JOIN ${l.parentTable} p ON p.id = l.${l.parent}
                  WHERE l.${l.child} = ? AND p.business_id = ? ORDER BY l.${l.parent}`),
      ofBrand:
        q(`SELECT l.${l.parent} AS p, l.${l.child} AS c FROM ${l.table} l JOIN ${l.parentTable} p ON p.id = l.${l.parent}
                  WHERE p.brand_id = ? AND p.business_id = ? ORDER BY l.seq`),
    },
  ]),
) as Record<LinkKind, Record<Statement, Query>>;

type LinkRow = { p: number; c: number };

export class SqlMenuLinks {
  constructor(
    private readonly db: Sql,
    private readonly businessId: number,
  ) {}

  private async owns(kind: LinkKind, parentId: number): Promise<boolean> {
    return (await this.db.get(queries[kind].owns, [parentId, this.businessId])) !== undefined;
  }

  /** Links each child not yet linked, after the existing ones. */
  async link(kind: LinkKind, parentId: number, childIds: readonly number[]): Promise<void> {
    if (childIds.length === 0 || !(await this.owns(kind, parentId))) return;
    await this.db.run(queries[kind].link, [parentId, this.db.list(childIds)]);
  }

  async unlink(kind: LinkKind, parentId: number, childIds: readonly number[]): Promise<void> {
    if (childIds.length === 0 || !(await this.owns(kind, parentId))) return;
    await this.db.run(queries[kind].unlink, [parentId, this.db.list(childIds)]);
  }

  /** Children of a parent, in link order. */
  children(kind: LinkKind, parentId: number): Promise<number[]> {
    return this.db.column(queries[kind].children, [parentId, this.businessId]);
  }

  /** Parents of a child, by parent id. */
  parents(kind: LinkKind, childId: number): Promise<number[]> {
    return this.db.column(queries[kind].parents, [childId, this.businessId]);
  }

  /** Every link whose parent is of the brand, in link order: [parent, child]. */
  async ofBrand(kind: LinkKind, brandId: number): Promise<[number, number][]> {
    const rows = await this.db.all<LinkRow>(queries[kind].ofBrand, [brandId, this.businessId]);
    return rows.map((r) => [r.p, r.c]);
  }
}
