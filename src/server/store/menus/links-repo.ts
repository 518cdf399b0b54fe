// The links of the menu definition, one table-driven repository for all four kinds. A link
// keeps the order it was made in (the order shown in menus).
import type { SqlMenuLinks } from '../sql/menus/links-repo.js';

/** parent → child: section → category, category → item, group → modifier, item → group. */
export type LinkKind = 'section-categories' | 'category-items' | 'group-modifiers' | 'item-groups';

/**
 * Per kind: the link table, its parent and child columns, and the parent's table — the same
 * names in both backends' schemas, so each backend builds its statements from this one table.
 */
export const LINKS: Record<LinkKind, { table: string; parent: string; child: string; parentTable: string }> =
  {
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

export type MenuLinks = SqlMenuLinks;
