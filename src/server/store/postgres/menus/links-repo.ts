// The links of the menu definition on PostgreSQL, one table-driven repository for all four kinds
// (store/sqlite/menus/links-repo.ts one to one). A link keeps the order it was made in: seq.
import type { LinkKind, MenuLinks } from '../../menus/links-repo.js';
import { num } from '../schema/catalog.js';
import type { PgTx } from '../tx.js';

/** Per kind: the link table, its parent and child columns, and the parent's table. */
const LINKS: Record<LinkKind, { table: string; parent: string; child: string; parentTable: string }> = {
  'section-categories': {
    table: 'menu_section_categories',
    parent: 'section_id',
    child: 'category_id',
    parentTable: 'menu_sections',
  },
  'category-items': {
    table: 'menu_category_items',
    parent: 'category_id',
    child: 'item_id',
    parentTable: 'menu_categories',
  },
  'group-modifiers': {
    table: 'menu_group_modifiers',
    parent: 'group_id',
    child: 'modifier_id',
    parentTable: 'menu_modifier_groups',
  },
  'item-groups': {
    table: 'menu_item_groups',
    parent: 'item_id',
    child: 'group_id',
    parentTable: 'menu_items',
  },
};

/**
 * Every statement of one kind, built from LINKS. Each is confined to the business through the
 * parent. link/unlink take the children as one array: one round trip whatever their number,
 * and WITH ORDINALITY keeps the order given, so seq follows it as with one insert per child.
 */
const queries = Object.fromEntries(
  Object.entries(LINKS).map(([kind, l]) => [
    kind,
    {
      owns: `SELECT 1 FROM ${l.parentTable} WHERE id = $1 AND business_id = $2`,
      link: `INSERT INTO ${l.table} (${l.parent}, ${l.child})
             SELECT $1::bigint, c FROM unnest($2::bigint[]) WITH ORDINALITY AS u(c, n) ORDER BY n
             ON CONFLICT (${l.parent}, ${l.child}) DO NOTHING`,
      unlink: `DELETE FROM ${l.table} WHERE ${l.parent} = $1 AND ${l.child} = ANY($2::bigint[])`,
      children: `SELECT l.${l.child} AS c FROM ${l.table} l JOIN ${l.parentTable} p ON p.id = l.${l.parent}
                 WHERE l.${l.parent} = $1 AND p.business_id = $2 ORDER BY l.seq`,
      parents: `SELECT l.${l.parent} AS p FROM ${l.table} l JOIN ${l.parentTable} p ON p.id = l.${l.parent}
                WHERE l.${l.child} = $1 AND p.business_id = $2 ORDER BY l.${l.parent}`,
      ofBrand: `SELECT l.${l.parent} AS p, l.${l.child} AS c FROM ${l.table} l JOIN ${l.parentTable} p ON p.id = l.${l.parent}
                WHERE p.brand_id = $1 AND p.business_id = $2 ORDER BY l.seq`,
    },
  ]),
) as Record<LinkKind, Record<'owns' | 'link' | 'unlink' | 'children' | 'parents' | 'ofBrand', string>>;

export class PgMenuLinks implements MenuLinks {
  constructor(
    private readonly tx: PgTx,
    private readonly businessId: number,
  ) {}

  private async owns(kind: LinkKind, parentId: number): Promise<boolean> {
    return (await this.tx.row(queries[kind].owns, [parentId, this.businessId])) !== undefined;
  }

  async link(kind: LinkKind, parentId: number, childIds: readonly number[]): Promise<void> {
    if (childIds.length === 0 || !(await this.owns(kind, parentId))) return;
    await this.tx.exec(queries[kind].link, [parentId, childIds]);
  }

  async unlink(kind: LinkKind, parentId: number, childIds: readonly number[]): Promise<void> {
    if (childIds.length === 0 || !(await this.owns(kind, parentId))) return;
    await this.tx.exec(queries[kind].unlink, [parentId, childIds]);
  }

  async children(kind: LinkKind, parentId: number): Promise<number[]> {
    const rows = await this.tx.rows<{ c: string }>(queries[kind].children, [parentId, this.businessId]);
    return rows.map((r) => num(r.c));
  }

  async parents(kind: LinkKind, childId: number): Promise<number[]> {
    const rows = await this.tx.rows<{ p: string }>(queries[kind].parents, [childId, this.businessId]);
    return rows.map((r) => num(r.p));
  }

  async ofBrand(kind: LinkKind, brandId: number): Promise<[number, number][]> {
    const rows = await this.tx.rows<{ p: string; c: string }>(queries[kind].ofBrand, [
      brandId,
      this.businessId,
    ]);
    return rows.map((r) => [num(r.p), num(r.c)]);
  }
}
