// The links of the menu definition, each kept in the order it was made (the order shown in menus).

/** parent → child: section → category, category → item, group → modifier, item → group. */
export type LinkKind = 'section-categories' | 'category-items' | 'group-modifiers' | 'item-groups';
