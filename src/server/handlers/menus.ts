import type { MenuDef } from '../domain/menus.js';
import { offsetOf } from '../domain/pagination.js';
import { invalid } from '../errors.js';
import {
  categoryOut,
  createCategory,
  createItem,
  createModifierGroup,
  createSection,
  deleteEntity,
  groupOut,
  itemOut,
  loadBusinessMenu,
  providerKeyIssues,
  requireEntity,
  sameBrandOrThrow,
  sectionOut,
  throwIf,
  updateCategory,
  updateItem,
  updateModifierGroup,
  updateSection,
} from '../services/menus/catalogue.js';
import { changeLinks, offerGroupOnItems } from '../services/menus/links.js';
import { editStoreSection, publishedMenu, publishMenu, syncMenu } from '../services/menus/publish.js';
import type { TenantTx } from '../store/store.js';
import { type HandlersFor, RawJson } from './context.js';

/** The business-level tree of every brand (what the next sync would replay) plus what is not linked anywhere. */
async function businessTree(t: TenantTx) {
  const brands = await t.brands.list();
  const out = [];
  for (const b of brands)
    out.push({ brand_id: b.id, title: b.title, ...nested(await loadBusinessMenu(t, b.id)) });
  return { business_id: t.businessId, brands: out };
}

function nested(m: MenuDef) {
  const cats = new Map(m.categories.map((c) => [c.id, c]));
  const items = new Map(m.items.map((i) => [i.id, i]));
  const groups = new Map(m.modifierGroups.map((g) => [g.id, g]));
  const inSection = new Set(m.sections.flatMap((s) => s.category_ids));
  const inCategory = new Set(m.categories.flatMap((c) => c.item_ids));
  const inGroup = new Set(m.modifierGroups.flatMap((g) => g.modifier_ids));
  const offered = new Set(m.items.flatMap((i) => i.modifier_group_ids));
  const def = <T>(x: T | undefined): x is T => x !== undefined;
  const sections = m.sections.map((s) => ({
    id: s.id,
    title: s.title,
    description: s.description,
    availableTimes: s.availableTimes,
    isEnabled: s.isEnabled,
    visibilities: s.visibilities,
    blackoutDates: s.blackoutDates,
    categories: s.category_ids
      .map((id) => cats.get(id))
      .filter(def)
      .map((c) => ({
        id: c.id,
        title: c.title,
        description: c.description,
        isEnabled: c.isEnabled,
        items: c.item_ids
          .map((id) => items.get(id))
          .filter(def)
          .map((i) => ({
            id: i.id,
            title: i.title,
            partner_item_id: i.partner_item_id,
            description: i.description,
            prices: i.prices,
            groupPrices: i.groupPrices,
            visibilities: i.visibilities,
            enabled: i.enabled,
            modifierGroups: i.modifier_group_ids
              .map((id) => groups.get(id))
              .filter(def)
              .map((g) => ({
                id: g.id,
                title: g.title,
                min: g.min,
                max: g.max,
                modifiers: g.modifier_ids
                  .map((id) => items.get(id))
                  .filter(def)
                  .map((x) => ({
                    id: x.id,
                    title: x.title,
                    partner_item_id: x.partner_item_id,
                    prices: x.prices,
                    enabled: x.enabled,
                  })),
              })),
          })),
      })),
  }));
  const sectionIdsOf = (cid: number) =>
    m.sections.filter((s) => s.category_ids.includes(cid)).map((s) => s.id);
  const unlinked = {
    categories: m.categories
      .filter((c) => !inSection.has(c.id))
      .map((c) => ({
        id: c.id,
        brand_id: m.brand_id,
        title: c.title,
        description: c.description,
        isEnabled: c.isEnabled,
        section_ids: sectionIdsOf(c.id),
        item_ids: c.item_ids,
      })),
    items: m.items
      .filter((i) => (i.onlyModifier ? !inGroup.has(i.id) : !inCategory.has(i.id)))
      .map((i) => ({
        id: i.id,
        brand_id: m.brand_id,
        title: i.title,
        partner_item_id: i.partner_item_id,
        description: i.description,
        prices: i.prices,
        groupPrices: i.groupPrices,
        visibilities: i.visibilities,
        enabled: i.enabled,
        onlyModifier: i.onlyModifier,
        category_ids: m.categories.filter((c) => c.item_ids.includes(i.id)).map((c) => c.id),
        modifier_group_ids: i.modifier_group_ids,
        member_of_group_ids: m.modifierGroups.filter((g) => g.modifier_ids.includes(i.id)).map((g) => g.id),
      })),
    modifierGroups: m.modifierGroups
      .filter((g) => !offered.has(g.id))
      .map((g) => ({
        id: g.id,
        brand_id: m.brand_id,
        title: g.title,
        min: g.min,
        max: g.max,
        modifier_ids: g.modifier_ids,
        item_ids: [],
      })),
  };
  return { sections, unlinked };
}

export const menuHandlers: HandlersFor<
  | 'getMenu'
  | 'syncMenuToStores'
  | 'publishMenu'
  | 'listMenuPublications'
  | 'createSection'
  | 'updateSection'
  | 'deleteSection'
  | 'createCategory'
  | 'updateCategory'
  | 'deleteCategory'
  | 'linkCategoryToSection'
  | 'unlinkCategoryFromSection'
  | 'createItem'
  | 'updateItem'
  | 'deleteItem'
  | 'linkCategoriesToItem'
  | 'unlinkCategoriesFromItem'
  | 'createModifierGroup'
  | 'updateModifierGroup'
  | 'deleteModifierGroup'
  | 'linkModifiersToGroup'
  | 'unlinkModifiersFromGroup'
  | 'linkModifierGroupToItem'
  | 'unlinkModifierGroupFromItems'
> = {
  getMenu: async ({ store, services, now }, { query }) => {
    const { brand_id, branch_id } = query;
    if (brand_id === undefined && branch_id === undefined) return businessTree(store);
    if (brand_id === undefined || branch_id === undefined) {
      const missing = brand_id === undefined ? 'brand_id' : 'branch_id';
      throw invalid(
        [
          {
            path: ['query', missing],
            message:
              'give both brand_id and branch_id (the store menu), or neither (the business definition)',
          },
        ],
        `${missing} is missing: give both brand_id and branch_id, or neither`,
      );
    }
    return new RawJson(await publishedMenu(store, services.menuRenders, brand_id, branch_id, now));
  },

  syncMenuToStores: ({ store, now }, { body }) => syncMenu(store, body, now),

  publishMenu: ({ store, now }, { body }) => publishMenu(store, body, now),

  listMenuPublications: async ({ store }, { query }) => {
    const { total, results } = await store.layers.publications(
      { brandId: query.brand_id, branchId: query.branch_id },
      query.size,
      offsetOf(query),
    );
    return { results, page: query.page, size: query.size, total };
  },

  // ── sections ──
  createSection: async ({ store, now }, { body }) => sectionOut(store, await createSection(store, body, now)),

  updateSection: async ({ store, now }, { params, body }) => {
    const { branch_id, brand_id, business_id: _ignored, ...patch } = body;
    const s = await requireEntity(store, 'sections', params.id, true);
    sameBrandOrThrow(brand_id, s.brand_id, 'section', s.id);
    throwIf(providerKeyIssues(patch.visibilities, 'visibilities'));
    if (branch_id !== undefined) return editStoreSection(store, s.id, branch_id, patch, now);
    return sectionOut(store, await updateSection(store, s, patch, now));
  },

  deleteSection: ({ store }, { params }) => deleteEntity(store, 'sections', params.id),

  // ── categories ──
  createCategory: async ({ store, now }, { body }) =>
    categoryOut(store, await createCategory(store, body, now)),

  updateCategory: async ({ store, now }, { params, body }) =>
    categoryOut(store, await updateCategory(store, params.id, body, now)),

  deleteCategory: ({ store }, { params }) => deleteEntity(store, 'categories', params.id),

  linkCategoryToSection: async ({ store }, { body }) =>
    sectionOut(
      store,
      await changeLinks(store, 'sectionCategories', 'link', body.section_id, body.category_ids),
    ),

  unlinkCategoryFromSection: async ({ store }, { body }) =>
    sectionOut(
      store,
      await changeLinks(store, 'sectionCategories', 'unlink', body.section_id, body.category_ids),
    ),

  // ── items ──
  createItem: async ({ store, now }, { body }) => itemOut(store, await createItem(store, body, now)),

  updateItem: async ({ store, now }, { params, body }) =>
    itemOut(store, await updateItem(store, params.id, body, now)),

  deleteItem: ({ store }, { params }) => deleteEntity(store, 'items', params.id),

  linkCategoriesToItem: async ({ store }, { body }) =>
    itemOut(store, await changeLinks(store, 'itemCategories', 'link', body.item_id, body.category_ids)),

  unlinkCategoriesFromItem: async ({ store }, { body }) =>
    itemOut(store, await changeLinks(store, 'itemCategories', 'unlink', body.item_id, body.category_ids)),

  // ── modifier groups ──
  createModifierGroup: async ({ store, now }, { body }) =>
    groupOut(store, await createModifierGroup(store, body, now)),

  updateModifierGroup: async ({ store, now }, { params, body }) =>
    groupOut(store, await updateModifierGroup(store, params.id, body, now)),

  deleteModifierGroup: ({ store }, { params }) => deleteEntity(store, 'groups', params.id),

  linkModifiersToGroup: async ({ store }, { body }) =>
    groupOut(store, await changeLinks(store, 'groupModifiers', 'link', body.group_id, body.modifier_ids)),

  unlinkModifiersFromGroup: async ({ store }, { body }) =>
    groupOut(store, await changeLinks(store, 'groupModifiers', 'unlink', body.group_id, body.modifier_ids)),

  linkModifierGroupToItem: async ({ store }, { body }) =>
    groupOut(store, await offerGroupOnItems(store, body)),

  unlinkModifierGroupFromItems: async ({ store }, { body }) =>
    groupOut(store, await changeLinks(store, 'groupItems', 'unlink', body.group_id, body.item_ids)),
};
