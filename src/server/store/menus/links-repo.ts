// The links of the menu definition, one table-driven repository for all four kinds. A link
// keeps the order it was made in (the order shown in menus).
import type { SqlMenuLinks } from '../sql/menus/links-repo.js';

/** parent → child: section → category, category → item, group → modifier, item → group. */
export type LinkKind = 'section-categories' | 'category-items' | 'group-modifiers' | 'item-groups';

export type MenuLinks = SqlMenuLinks;
