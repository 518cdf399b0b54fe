// The links of the menu definition, one table-driven repository for all four kinds. A link
// keeps the order it was made in (the order shown in menus).

/** parent → child: section → category, category → item, group → modifier, item → group. */
export type LinkKind = 'section-categories' | 'category-items' | 'group-modifiers' | 'item-groups';

export interface MenuLinks {
  /** Links each child not yet linked, after the existing ones. */
  link(kind: LinkKind, parentId: number, childIds: readonly number[]): Promise<void>;
  unlink(kind: LinkKind, parentId: number, childIds: readonly number[]): Promise<void>;
  /** Children of a parent, in link order. */
  children(kind: LinkKind, parentId: number): Promise<number[]>;
  /** Parents of a child, by parent id. */
  parents(kind: LinkKind, childId: number): Promise<number[]>;
  /** Every link whose parent is of the brand, in link order: [parent, child]. */
  ofBrand(kind: LinkKind, brandId: number): Promise<[number, number][]>;
}
