// The links of the menu definition, each kept in the order it was made (the order shown in menus).
import type { SqlMenuLinks } from '../sql/menus/links-repo.js';

/** parent → child: section → category, category → item, group → modifier, item → group. */
export type LinkKind = 'section-categories' | 'category-items' | 'group-modifiers' | 'item-groups';

export type MenuLinks = SqlMenuLinks;
