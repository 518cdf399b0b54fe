import {
  type CompiledTemplate,
  compileTemplate,
  type MenuDef,
  nextChange,
  renderTemplate,
} from '../domain/menus.js';
import { offsetOf } from '../domain/pagination.js';
import { ApiError, type FieldIssue, invalid, notFound } from '../errors.js';
import { type HandlersFor, RawJson } from './context.js';
import { sql } from '../store/sqlite/statements.js';
import type { Db } from '../store/sqlite/db.js';
import { bumpBranch, loadStates } from './menu-stock.js';
import {
  branchOf,
  brandOf,
  carries,
  categoryOut,
  categoryRow,
  createCategory,
  createItem,
  createModifierGroup,
  createSection,
  groupModifierIds,
  groupOut,
  groupRow,
  iso,
  itemIssues,
  itemOut,
  itemRow,
  linkGroupItems,
  linkGroupModifiers,
  linkItemCategories,
  linkSectionCategories,
  loadBusinessMenu,
  providerKeyIssues,
  publishMenu,
  rowsOf,
  type ItemRow,
  sectionOut,
  sectionRow,
  saveStoreLayer,
  storeLayer,
  syncMenu,
  throwIf,
  unlinkGroupItems,
  unlinkGroupModifiers,
  unlinkItemCategories,
  unlinkSectionCategories,
} from './menus-repo.js';
import { checkGroupLink, checkMinMax } from '../domain/menus.js';

function sameBrandOrThrow(given: number | undefined, actual: number, noun: string, id: number): void {
  if (given !== undefined && given !== actual) {
    throw invalid(
      [
        {
          path: ['body', 'brand_id'],
          message: `${noun} ${id} belongs to brand ${actual}; it cannot move to brand ${given}`,
        },
      ],
      `${noun} ${id} belongs to brand ${actual}; it cannot move to another brand`,
    );
  }
}

// ─── GET /menus: the published snapshot with live state, cached per (revision, state version) ─

interface CachedStore {
  revision: number;
  template: CompiledTemplate;
  /** Last rendering, valid while the state version matches and `from ≤ now < until`. */
  rendered?: { stateVersion: number; from: number; until: number; json: string };
}
const storeCache = new WeakMap<Db, Map<string, CachedStore>>();

function cacheFor(db: Db): Map<string, CachedStore> {
  let m = storeCache.get(db);
  if (!m) {
    m = new Map();
    storeCache.set(db, m);
  }
  return m;
}

function publishedMenu(db: Db, businessId: number, brandId: number, branchId: number, now: number): string {
  const meta = sql(
    db,
    `SELECT s.revision, COALESCE(v.version, 0) AS sv FROM menu_snapshots s
       JOIN branches b ON b.id = s.branch_id AND b.deleted_at IS NULL
       JOIN branch_brands bb ON bb.branch_id = s.branch_id AND bb.brand_id = s.brand_id
       LEFT JOIN menu_branch_state v ON v.branch_id = s.branch_id
     WHERE s.brand_id = ? AND s.branch_id = ? AND s.business_id = ?`,
  ).get(brandId, branchId, businessId) as { revision: number; sv: number } | undefined;
  if (!meta) {
    brandOf(db, businessId, brandId);
    branchOf(db, businessId, branchId);
    if (!carries(db, branchId, brandId)) throw notFound(`brand ${brandId} at branch`, branchId);
    throw new ApiError(
      'resource_not_found',
      `brand ${brandId} has no published menu at branch ${branchId} yet: sync and publish it first`,
    );
  }
  const cache = cacheFor(db);
  const key = `${brandId}:${branchId}`;
  let entry = cache.get(key);
  if (!entry || entry.revision !== meta.revision) {
    const json = sql(db, 'SELECT json FROM menu_snapshots WHERE brand_id = ? AND branch_id = ?')
      .pluck()
      .get(brandId, branchId) as string;
    entry = { revision: meta.revision, template: compileTemplate(json) };
    cache.set(key, entry);
  }
  const r = entry.rendered;
  if (r && r.stateVersion === meta.sv && r.from <= now && now < r.until) return r.json;
  const states = loadStates(db, branchId);
  const json = renderTemplate(entry.template, states, now);
  entry.rendered = { stateVersion: meta.sv, from: now, until: nextChange(states.values(), now), json };
  return json;
}

/** The business-level tree of every brand (what the next sync would replay) plus what is not linked anywhere. */
function businessTree(db: Db, businessId: number) {
  const brands = sql(db, 'SELECT id, title FROM brands WHERE business_id = ? ORDER BY id').all(
    businessId,
  ) as { id: number; title: string }[];
  return {
    business_id: businessId,
    brands: brands.map((b) => {
      const m = loadBusinessMenu(db, b.id);
      return { brand_id: b.id, title: b.title, ...nested(m) };
    }),
  };
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

// ─── store-level section edit ───────────────────────────────────────────────────────────────

type SectionPatch = {
  title?: string | undefined;
  description?: string | undefined;
  availableTimes?: MenuDef['sections'][number]['availableTimes'] | undefined;
  isEnabled?: boolean | undefined;
  visibilities?: Record<string, boolean> | undefined;
  blackoutDates?: string[] | undefined;
};

function editStoreSection(
  db: Db,
  businessId: number,
  sectionId: number,
  branchId: number,
  patch: SectionPatch,
  now: number,
) {
  const s = sectionRow(db, businessId, sectionId);
  branchOf(db, businessId, branchId);
  if (!carries(db, branchId, s.brand_id)) {
    throw invalid(
      [{ path: ['body', 'branch_id'], message: `branch ${branchId} does not carry brand ${s.brand_id}` }],
      `branch ${branchId} does not carry brand ${s.brand_id}`,
    );
  }
  const layer = storeLayer(db, s.brand_id, branchId);
  const target = layer?.sections.find((x) => x.id === s.id);
  if (!layer || !target) {
    throw new ApiError(
      'resource_not_found',
      `section ${s.id} is not in the store menu of branch ${branchId} yet: POST /v1/partner/menus/sync first`,
    );
  }
  if (patch.title !== undefined) target.title = patch.title;
  if (patch.description !== undefined) target.description = patch.description;
  if (patch.availableTimes !== undefined) target.availableTimes = patch.availableTimes;
  if (patch.isEnabled !== undefined) target.isEnabled = patch.isEnabled;
  if (patch.visibilities !== undefined) target.visibilities = patch.visibilities;
  if (patch.blackoutDates !== undefined) target.blackoutDates = [...new Set(patch.blackoutDates)].sort();
  saveStoreLayer(db, businessId, branchId, layer, now, false);
  return {
    id: target.id,
    brand_id: s.brand_id,
    branch_id: branchId,
    title: target.title,
    description: target.description,
    availableTimes: target.availableTimes,
    isEnabled: target.isEnabled,
    visibilities: target.visibilities,
    blackoutDates: target.blackoutDates,
    category_ids: target.category_ids,
  };
}

function issuesIf(cond: boolean, path: (string | number)[], message: string): FieldIssue[] {
  return cond ? [{ path, message }] : [];
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
  getMenu: ({ db, businessId, now }, { query }) => {
    const { brand_id, branch_id } = query;
    if (brand_id === undefined && branch_id === undefined) return businessTree(db, businessId);
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
    return new RawJson(publishedMenu(db, businessId, brand_id, branch_id, now));
  },

  syncMenuToStores: ({ db, businessId, now }, { body }) => syncMenu(db, businessId, body, now),

  publishMenu: ({ db, businessId, now }, { body }) => publishMenu(db, businessId, body, now),

  listMenuPublications: ({ db, businessId }, { query }) => {
    const brand = query.brand_id ?? null;
    const branch = query.branch_id ?? null;
    const where = 'business_id = ? AND (? IS NULL OR brand_id = ?) AND (? IS NULL OR branch_id = ?)';
    const total = sql(db, `SELECT count(*) FROM menu_publish_log WHERE ${where}`)
      .pluck()
      .get(businessId, brand, brand, branch, branch) as number;
    const results = sql(
      db,
      `SELECT id, brand_id, branch_id, version, provider_id, status, items, published_at FROM menu_publish_log WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`,
    ).all(businessId, brand, brand, branch, branch, query.size, offsetOf(query)) as {
      id: number;
      brand_id: number;
      branch_id: number;
      version: number;
      provider_id: number;
      status: 'shipped';
      items: number;
      published_at: string;
    }[];
    return { results, page: query.page, size: query.size, total };
  },

  // ── sections ──
  createSection: ({ db, businessId, now }, { body }) =>
    sectionOut(db, createSection(db, businessId, body, now)),

  updateSection: ({ db, businessId, now }, { params, body }) => {
    const { branch_id, brand_id, business_id: _ignored, ...patch } = body;
    const s = sectionRow(db, businessId, params.id);
    sameBrandOrThrow(brand_id, s.brand_id, 'section', s.id);
    throwIf(providerKeyIssues(patch.visibilities, 'visibilities'));
    if (branch_id !== undefined) return editStoreSection(db, businessId, s.id, branch_id, patch, now);
    sql(
      db,
      `UPDATE menu_sections SET title = ?, description = ?, available_times = ?, is_enabled = ?, visibilities = ?, blackout_dates = ?, updated_at = ? WHERE id = ?`,
    ).run(
      patch.title ?? s.title,
      patch.description ?? s.description,
      patch.availableTimes === undefined
        ? s.available_times
        : patch.availableTimes === null
          ? null
          : JSON.stringify(patch.availableTimes),
      patch.isEnabled === undefined ? s.is_enabled : patch.isEnabled ? 1 : 0,
      patch.visibilities === undefined ? s.visibilities : JSON.stringify(patch.visibilities),
      patch.blackoutDates === undefined
        ? s.blackout_dates
        : JSON.stringify([...new Set(patch.blackoutDates)].sort()),
      iso(now),
      s.id,
    );
    return sectionOut(db, sectionRow(db, businessId, s.id));
  },

  deleteSection: ({ db, businessId }, { params }) => {
    const s = sectionRow(db, businessId, params.id);
    sql(db, 'DELETE FROM menu_sections WHERE id = ?').run(s.id);
    return { id: s.id, deleted: true as const };
  },

  // ── categories ──
  createCategory: ({ db, businessId, now }, { body }) =>
    categoryOut(db, createCategory(db, businessId, body, now)),

  updateCategory: ({ db, businessId, now }, { params, body }) => {
    const c = categoryRow(db, businessId, params.id);
    sameBrandOrThrow(body.brand_id, c.brand_id, 'category', c.id);
    sql(
      db,
      'UPDATE menu_categories SET title = ?, description = ?, is_enabled = ?, updated_at = ? WHERE id = ?',
    ).run(
      body.title ?? c.title,
      body.description ?? c.description,
      body.isEnabled === undefined ? c.is_enabled : body.isEnabled ? 1 : 0,
      iso(now),
      c.id,
    );
    return categoryOut(db, categoryRow(db, businessId, c.id));
  },

  deleteCategory: ({ db, businessId }, { params }) => {
    const c = categoryRow(db, businessId, params.id);
    sql(db, 'DELETE FROM menu_categories WHERE id = ?').run(c.id);
    return { id: c.id, deleted: true as const };
  },

  linkCategoryToSection: ({ db, businessId }, { body }) =>
    sectionOut(db, linkSectionCategories(db, businessId, body.section_id, body.category_ids)),

  unlinkCategoryFromSection: ({ db, businessId }, { body }) =>
    sectionOut(db, unlinkSectionCategories(db, businessId, body.section_id, body.category_ids)),

  // ── items ──
  createItem: ({ db, businessId, now }, { body }) => itemOut(db, createItem(db, businessId, body, now)),

  updateItem: ({ db, businessId, now }, { params, body }) => {
    const r = itemRow(db, businessId, params.id);
    sameBrandOrThrow(body.brand_id, r.brand_id, 'item', r.id);
    const issues = itemIssues(db, businessId, r.brand_id, body, r.id);
    if (body.onlyModifier !== undefined && body.onlyModifier !== !!r.only_modifier) {
      const current = itemOut(db, r);
      if (body.onlyModifier) {
        issues.push(
          ...issuesIf(
            current.category_ids.length + current.modifier_group_ids.length > 0,
            ['body', 'onlyModifier'],
            `item ${r.id} is in categories or offers modifier groups; unlink it first`,
          ),
        );
      } else {
        issues.push(
          ...issuesIf(
            current.member_of_group_ids.length > 0,
            ['body', 'onlyModifier'],
            `modifier ${r.id} is in modifier groups; remove it first`,
          ),
        );
      }
    }
    throwIf(issues);
    sql(
      db,
      `UPDATE menu_items SET title = ?, partner_item_id = ?, description = ?, prices = ?, group_prices = ?, visibilities = ?, enabled = ?, only_modifier = ?, updated_at = ? WHERE id = ?`,
    ).run(
      body.title ?? r.title,
      body.partner_item_id ?? r.partner_item_id,
      body.description ?? r.description,
      body.prices === undefined ? r.prices : JSON.stringify(body.prices),
      body.groupPrices === undefined ? r.group_prices : JSON.stringify(body.groupPrices),
      body.visibilities === undefined ? r.visibilities : JSON.stringify(body.visibilities),
      body.enabled === undefined ? r.enabled : body.enabled ? 1 : 0,
      body.onlyModifier === undefined ? r.only_modifier : body.onlyModifier ? 1 : 0,
      iso(now),
      r.id,
    );
    return itemOut(db, itemRow(db, businessId, r.id));
  },

  deleteItem: ({ db, businessId }, { params }) => {
    const r = itemRow(db, businessId, params.id);
    // Its live state rows go with it (cascade): renderings cached with them must not survive.
    for (const b of sql(db, 'SELECT DISTINCT branch_id FROM menu_item_state WHERE item_id = ?')
      .pluck()
      .all(r.id) as number[]) {
      bumpBranch(db, b);
    }
    sql(db, 'DELETE FROM menu_items WHERE id = ?').run(r.id);
    return { id: r.id, deleted: true as const };
  },

  linkCategoriesToItem: ({ db, businessId }, { body }) =>
    itemOut(db, linkItemCategories(db, businessId, body.item_id, body.category_ids)),

  unlinkCategoriesFromItem: ({ db, businessId }, { body }) =>
    itemOut(db, unlinkItemCategories(db, businessId, body.item_id, body.category_ids)),

  // ── modifier groups ──
  createModifierGroup: ({ db, businessId, now }, { body }) =>
    groupOut(db, createModifierGroup(db, businessId, body, now)),

  updateModifierGroup: ({ db, businessId, now }, { params, body }) => {
    const g = groupRow(db, businessId, params.id);
    sameBrandOrThrow(body.brand_id, g.brand_id, 'modifier group', g.id);
    const min = body.min ?? g.min_choices;
    const max = body.max ?? g.max_choices;
    throwIf(checkMinMax(min, max));
    sql(
      db,
      'UPDATE menu_modifier_groups SET title = ?, min_choices = ?, max_choices = ?, updated_at = ? WHERE id = ?',
    ).run(body.title ?? g.title, min, max, iso(now), g.id);
    return groupOut(db, groupRow(db, businessId, g.id));
  },

  deleteModifierGroup: ({ db, businessId }, { params }) => {
    const g = groupRow(db, businessId, params.id);
    sql(db, 'DELETE FROM menu_modifier_groups WHERE id = ?').run(g.id);
    return { id: g.id, deleted: true as const };
  },

  linkModifiersToGroup: ({ db, businessId }, { body }) =>
    groupOut(db, linkGroupModifiers(db, businessId, body.group_id, body.modifier_ids)),

  unlinkModifiersFromGroup: ({ db, businessId }, { body }) =>
    groupOut(db, unlinkGroupModifiers(db, businessId, body.group_id, body.modifier_ids)),

  linkModifierGroupToItem: ({ db, businessId }, { body }) => {
    const g = groupRow(db, businessId, body.group_id);
    // The restated modifiers must exist in this business (else 404) before they can be compared.
    const mods = rowsOf<ItemRow>(db, 'menu_items', businessId, body.modifier_ids);
    const issues = checkGroupLink(
      { id: g.id, min: g.min_choices, max: g.max_choices, modifier_ids: groupModifierIds(db, g.id) },
      body,
      new Map(mods.map((m) => [m.id, !!m.only_modifier])),
    );
    throwIf(issues);
    return groupOut(db, linkGroupItems(db, businessId, g.id, body.item_ids));
  },

  unlinkModifierGroupFromItems: ({ db, businessId }, { body }) =>
    groupOut(db, unlinkGroupItems(db, businessId, body.group_id, body.item_ids)),
};
