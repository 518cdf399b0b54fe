// Linking the menu definition together, table-driven: one function links or unlinks for all
// four link operations, each described by one row of LINK_OPS.
import { checkGroupLink } from '../../domain/menus.js';
import { type FieldIssue, invalid } from '../../errors.js';
import type { ItemRow } from '../../store/menus/catalogue-repo.js';
import type { LinkKind } from '../../store/menus/links-repo.js';
import type { TenantTx } from '../../store/store.js';
import { type EntityKind, requireEntities, requireEntity, type RowOf, throwIf } from './catalogue.js';

interface Owned {
  id: number;
  brand_id: number;
}

interface LinkOp {
  /** The entity named by the request (`section_id`, `item_id`, `group_id`); answered with it. */
  anchor: EntityKind;
  /** The entities listed in the body, and the field that lists them. */
  others: EntityKind;
  field: string;
  noun: string;
  kind: LinkKind;
  /** Whether the anchor is the parent of the link (else the listed entities are). */
  anchorIsParent: boolean;
  /** A rule on the anchor, checked before the listed entities are looked up (links only). */
  anchorRule?: (a: Owned & Partial<ItemRow>) => void;
  /** A rule on each listed entity (links only). */
  otherRule?: (o: Owned & Partial<ItemRow>, path: (string | number)[]) => FieldIssue | undefined;
}

export const LINK_OPS = {
  /** POST /menus/categories/link: categories into a section. */
  sectionCategories: {
    anchor: 'sections',
    others: 'categories',
    field: 'category_ids',
    noun: 'category',
    kind: 'section-categories',
    anchorIsParent: true,
  },
  /** POST /menus/items/categories/link: an item into categories. */
  itemCategories: {
    anchor: 'items',
    others: 'categories',
    field: 'category_ids',
    noun: 'category',
    kind: 'category-items',
    anchorIsParent: false,
    anchorRule: (item) => {
      if (item.only_modifier) {
        throw invalid(
          [
            {
              path: ['body', 'item_id'],
              message: `item ${item.id} is a modifier (onlyModifier:true); add it to a modifier group instead`,
            },
          ],
          `item ${item.id} is a modifier (onlyModifier:true) and cannot be put into categories`,
        );
      }
    },
  },
  /** POST /menus/modifier-groups/modifiers: modifiers into a group. */
  groupModifiers: {
    anchor: 'groups',
    others: 'items',
    field: 'modifier_ids',
    noun: 'modifier',
    kind: 'group-modifiers',
    anchorIsParent: true,
    otherRule: (m, path) =>
      m.only_modifier
        ? undefined
        : { path, message: `item ${m.id} is not a modifier (onlyModifier is false)` },
  },
  /** POST /menus/modifier-groups/link: a group offered on items. */
  groupItems: {
    anchor: 'groups',
    others: 'items',
    field: 'item_ids',
    noun: 'item',
    kind: 'item-groups',
    anchorIsParent: false,
    otherRule: (it, path) =>
      it.only_modifier
        ? { path, message: `item ${it.id} is a modifier (onlyModifier:true); groups are offered on items` }
        : undefined,
  },
} as const satisfies Record<string, LinkOp>;

type LinkOpName = keyof typeof LINK_OPS;

/**
 * Links (or unlinks) the listed entities to the anchor. Everything named must be of this
 * business (else 404); a link also checks the op's rules and that all are of the anchor's brand
 * (else 400). Links keep the order they were made in; linking twice is a no-op. Returns the anchor.
 */
export async function changeLinks<N extends LinkOpName>(
  t: TenantTx,
  name: N,
  action: 'link' | 'unlink',
  anchorId: number,
  otherIds: readonly number[],
): Promise<RowOf<(typeof LINK_OPS)[N]['anchor']>> {
  const op: LinkOp = LINK_OPS[name];
  const anchor = (await requireEntity(t, op.anchor, anchorId)) as Owned;
  if (action === 'link') op.anchorRule?.(anchor);
  const others = (await requireEntities(t, op.others, otherIds)) as Owned[];
  if (action === 'link') {
    const ruled: FieldIssue[] = [];
    others.forEach((o, i) => {
      const bad = op.otherRule?.(o, ['body', op.field, i]);
      if (bad) ruled.push(bad);
    });
    throwIf(ruled);
    throwIf(
      others.flatMap((o, i) =>
        o.brand_id === anchor.brand_id
          ? []
          : [
              {
                path: ['body', op.field, i],
                message: `${op.noun} ${o.id} belongs to brand ${o.brand_id}, not ${anchor.brand_id}`,
              },
            ],
      ),
    );
  }
  const ids = others.map((o) => o.id);
  if (op.anchorIsParent) await t.links[action](op.kind, anchor.id, ids);
  else for (const id of ids) await t.links[action](op.kind, id, [anchor.id]);
  return anchor as RowOf<(typeof LINK_OPS)[N]['anchor']>;
}

/**
 * linkModifierGroupToItem: the group's min, max and modifiers must be restated (and match) before
 * it is offered on the items.
 */
export async function offerGroupOnItems(
  t: TenantTx,
  b: {
    group_id: number;
    item_ids: readonly number[];
    min: number;
    max: number;
    modifier_ids: readonly number[];
  },
) {
  const g = await requireEntity(t, 'groups', b.group_id);
  // The restated modifiers must exist in this business (else 404) before they can be compared.
  const mods = await requireEntities(t, 'items', b.modifier_ids);
  throwIf(
    checkGroupLink(
      { id: g.id, min: g.min, max: g.max, modifier_ids: await t.links.children('group-modifiers', g.id) },
      b,
      new Map(mods.map((m) => [m.id, m.only_modifier])),
    ),
  );
  await changeLinks(t, 'groupItems', 'link', g.id, b.item_ids);
  return requireEntity(t, 'groups', g.id);
}
