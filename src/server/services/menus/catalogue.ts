// The business-level menu definition: authoring (what the handlers and the demo seed call), its
// wire shapes, and the definition loaded as domain data for sync and for the business tree.
import {
  type CategoryDef,
  checkMinMax,
  type ItemDef,
  type MenuDef,
  type ModifierGroupDef,
  type SectionDef,
  type Times,
} from '../../domain/menus.js';
import { PROVIDERS } from '../../domain/reference-data.js';
import { ApiError, type FieldIssue, invalid, notFound } from '../../errors.js';
import type {
  CategoryRow,
  GroupRow,
  ItemRow,
  MenuCatalogue,
  MenuEntities,
  SectionRow,
} from '../../store/menus/catalogue-repo.js';
import type { TenantTx } from '../../store/store.js';
import { requireBrand } from '../branches.js';

const PROVIDER_IDS = new Set(PROVIDERS.map((p) => String(p.id)));

export type EntityKind = 'sections' | 'categories' | 'items' | 'groups';
const NOUN: Record<EntityKind, string> = {
  sections: 'section',
  categories: 'category',
  items: 'item',
  groups: 'modifier group',
};

export type RowOf<K extends EntityKind> =
  MenuCatalogue[K] extends MenuEntities<infer R, infer _F> ? R : never;

/** The repository of one kind, typed by its row (TypeScript cannot follow `t.menus[kind]` alone). */
const entities = <K extends EntityKind>(t: TenantTx, kind: K) =>
  t.menus[kind] as unknown as MenuEntities<RowOf<K>, unknown>;

/** The row of `id` in this business, else 404. `forUpdate`: see BrandsRepo.get. */
export async function requireEntity<K extends EntityKind>(
  t: TenantTx,
  kind: K,
  id: number,
  forUpdate = false,
): Promise<RowOf<K>> {
  const r = await entities(t, kind).get(id, forUpdate);
  if (!r) throw notFound(NOUN[kind], id);
  return r;
}

/** Rows for ids, all of this business (else 404 naming the missing ones). */
export async function requireEntities<K extends EntityKind>(
  t: TenantTx,
  kind: K,
  ids: readonly number[],
): Promise<RowOf<K>[]> {
  const { rows, missing } = await entities(t, kind).getMany(ids);
  if (missing.length) {
    throw new ApiError('resource_not_found', `${NOUN[kind]} ${missing.join(', ')} not found`, {
      missing_ids: missing,
    });
  }
  return rows;
}

// ─── reference checks ───────────────────────────────────────────────────────────────────────

export function throwIf(issues: FieldIssue[]): void {
  if (issues.length)
    throw invalid(
      issues,
      `invalid request: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
}

export function providerKeyIssues(map: Record<string, unknown> | undefined, field: string): FieldIssue[] {
  if (!map) return [];
  return Object.keys(map)
    .filter((k) => !PROVIDER_IDS.has(k))
    .map((k) => ({ path: ['body', field, k], message: `no provider ${k} (see GET /v1/partner/providers)` }));
}

async function groupKeyIssues(t: TenantTx, map: Record<string, unknown> | undefined): Promise<FieldIssue[]> {
  if (!map) return [];
  const ids = new Set((await t.priceGroups.ids()).map(String));
  return Object.keys(map)
    .filter((k) => !ids.has(k))
    .map((k) => ({ path: ['body', 'groupPrices', k], message: `no price group ${k} in this business` }));
}

async function itemIssues(
  t: TenantTx,
  brandId: number,
  b: Partial<ItemInput>,
  exceptId = 0,
): Promise<FieldIssue[]> {
  const out = [
    ...providerKeyIssues(b.prices, 'prices'),
    ...providerKeyIssues(b.visibilities, 'visibilities'),
    ...(await groupKeyIssues(t, b.groupPrices)),
  ];
  if (b.partner_item_id !== undefined) {
    const other = await t.menus.items.withSku(brandId, b.partner_item_id, exceptId);
    if (other !== undefined) {
      out.push({
        path: ['body', 'partner_item_id'],
        message: `item ${other} of brand ${brandId} already uses ${b.partner_item_id}`,
      });
    }
  }
  return out;
}

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

// ─── wire shapes of the business definition ─────────────────────────────────────────────────

export async function sectionOut(t: TenantTx, r: SectionRow) {
  return {
    id: r.id,
    brand_id: r.brand_id,
    branch_id: null as number | null,
    title: r.title,
    description: r.description,
    availableTimes: r.available_times,
    isEnabled: r.is_enabled,
    visibilities: r.visibilities,
    blackoutDates: r.blackout_dates,
    category_ids: await t.links.children('section-categories', r.id),
  };
}

export async function categoryOut(t: TenantTx, r: CategoryRow) {
  return {
    id: r.id,
    brand_id: r.brand_id,
    title: r.title,
    description: r.description,
    isEnabled: r.is_enabled,
    section_ids: await t.links.parents('section-categories', r.id),
    item_ids: await t.links.children('category-items', r.id),
  };
}

export async function itemOut(t: TenantTx, r: ItemRow) {
  return {
    id: r.id,
    brand_id: r.brand_id,
    title: r.title,
    partner_item_id: r.partner_item_id,
    description: r.description,
    prices: r.prices,
    groupPrices: r.group_prices,
    visibilities: r.visibilities,
    enabled: r.enabled,
    onlyModifier: r.only_modifier,
    category_ids: await t.links.parents('category-items', r.id),
    modifier_group_ids: await t.links.children('item-groups', r.id),
    member_of_group_ids: await t.links.parents('group-modifiers', r.id),
  };
}

export async function groupOut(t: TenantTx, r: GroupRow) {
  return {
    id: r.id,
    brand_id: r.brand_id,
    title: r.title,
    min: r.min,
    max: r.max,
    modifier_ids: await t.links.children('group-modifiers', r.id),
    item_ids: await t.links.parents('item-groups', r.id),
  };
}

// ─── the business definition as domain data ─────────────────────────────────────────────────

function grouped(pairs: [number, number][]): Map<number, number[]> {
  const m = new Map<number, number[]>();
  for (const [k, v] of pairs) {
    const l = m.get(k);
    if (l) l.push(v);
    else m.set(k, [v]);
  }
  return m;
}

/** One brand's business-level definition (eight queries, whatever the menu size). */
export async function loadBusinessMenu(t: TenantTx, brandId: number): Promise<MenuDef> {
  const secCats = grouped(await t.links.ofBrand('section-categories', brandId));
  const catItems = grouped(await t.links.ofBrand('category-items', brandId));
  const itemGroups = grouped(await t.links.ofBrand('item-groups', brandId));
  const groupMods = grouped(await t.links.ofBrand('group-modifiers', brandId));
  const sections: SectionDef[] = (await t.menus.sections.ofBrand(brandId)).map((r) => ({
    id: r.id,
    title: r.title,
    description: r.description,
    availableTimes: r.available_times,
    isEnabled: r.is_enabled,
    visibilities: r.visibilities,
    blackoutDates: r.blackout_dates,
    category_ids: secCats.get(r.id) ?? [],
  }));
  const categories: CategoryDef[] = (await t.menus.categories.ofBrand(brandId)).map((r) => ({
    id: r.id,
    title: r.title,
    description: r.description,
    isEnabled: r.is_enabled,
    item_ids: catItems.get(r.id) ?? [],
  }));
  const items: ItemDef[] = (await t.menus.items.ofBrand(brandId)).map((r) => ({
    id: r.id,
    title: r.title,
    partner_item_id: r.partner_item_id,
    description: r.description,
    prices: r.prices,
    groupPrices: r.group_prices,
    visibilities: r.visibilities,
    enabled: r.enabled,
    onlyModifier: r.only_modifier,
    modifier_group_ids: itemGroups.get(r.id) ?? [],
  }));
  const modifierGroups: ModifierGroupDef[] = (await t.menus.groups.ofBrand(brandId)).map((r) => ({
    id: r.id,
    title: r.title,
    min: r.min,
    max: r.max,
    modifier_ids: groupMods.get(r.id) ?? [],
  }));
  return { brand_id: brandId, sections, categories, items, modifierGroups };
}

// ─── authoring ──────────────────────────────────────────────────────────────────────────────

interface SectionInput {
  brand_id: number;
  title: string;
  description?: string | undefined;
  availableTimes?: Times | undefined;
  isEnabled?: boolean | undefined;
  visibilities?: Record<string, boolean> | undefined;
  blackoutDates?: string[] | undefined;
}

const dates = (d: readonly string[]) => [...new Set(d)].sort();

export async function createSection(t: TenantTx, b: SectionInput, now: number): Promise<SectionRow> {
  await requireBrand(t, b.brand_id);
  throwIf(providerKeyIssues(b.visibilities, 'visibilities'));
  return t.menus.sections.create(
    b.brand_id,
    {
      title: b.title,
      description: b.description ?? '',
      available_times: b.availableTimes ?? null,
      is_enabled: b.isEnabled !== false,
      visibilities: b.visibilities ?? {},
      blackout_dates: dates(b.blackoutDates ?? []),
    },
    now,
  );
}

export interface SectionPatch {
  title?: string | undefined;
  description?: string | undefined;
  availableTimes?: Times | null | undefined;
  isEnabled?: boolean | undefined;
  visibilities?: Record<string, boolean> | undefined;
  blackoutDates?: string[] | undefined;
}

/** A business-level section edit (reaches stores after sync, then publish). */
export async function updateSection(t: TenantTx, s: SectionRow, patch: SectionPatch, now: number) {
  await t.menus.sections.update(
    s.id,
    {
      title: patch.title ?? s.title,
      description: patch.description ?? s.description,
      available_times: patch.availableTimes === undefined ? s.available_times : patch.availableTimes,
      is_enabled: patch.isEnabled ?? s.is_enabled,
      visibilities: patch.visibilities ?? s.visibilities,
      blackout_dates: patch.blackoutDates === undefined ? s.blackout_dates : dates(patch.blackoutDates),
    },
    now,
  );
  return requireEntity(t, 'sections', s.id);
}

interface CategoryInput {
  brand_id: number;
  title: string;
  description?: string | undefined;
  isEnabled?: boolean | undefined;
}

export async function createCategory(t: TenantTx, b: CategoryInput, now: number): Promise<CategoryRow> {
  await requireBrand(t, b.brand_id);
  return t.menus.categories.create(
    b.brand_id,
    { title: b.title, description: b.description ?? '', is_enabled: b.isEnabled !== false },
    now,
  );
}

export async function updateCategory(
  t: TenantTx,
  id: number,
  b: Partial<CategoryInput>,
  now: number,
): Promise<CategoryRow> {
  const c = await requireEntity(t, 'categories', id, true);
  sameBrandOrThrow(b.brand_id, c.brand_id, 'category', c.id);
  await t.menus.categories.update(
    c.id,
    {
      title: b.title ?? c.title,
      description: b.description ?? c.description,
      is_enabled: b.isEnabled ?? c.is_enabled,
    },
    now,
  );
  return requireEntity(t, 'categories', c.id);
}

interface ItemInput {
  brand_id: number;
  title: string;
  partner_item_id: string;
  prices: Record<string, string>;
  onlyModifier: boolean;
  description?: string | undefined;
  groupPrices?: Record<string, string> | undefined;
  visibilities?: Record<string, boolean> | undefined;
  enabled?: boolean | undefined;
}

export async function createItem(t: TenantTx, b: ItemInput, now: number): Promise<ItemRow> {
  await requireBrand(t, b.brand_id);
  throwIf(await itemIssues(t, b.brand_id, b));
  return t.menus.items.create(
    b.brand_id,
    {
      title: b.title,
      partner_item_id: b.partner_item_id,
      description: b.description ?? '',
      prices: b.prices,
      group_prices: b.groupPrices ?? {},
      visibilities: b.visibilities ?? {},
      enabled: b.enabled !== false,
      only_modifier: b.onlyModifier,
    },
    now,
  );
}

export async function updateItem(
  t: TenantTx,
  id: number,
  b: Partial<ItemInput>,
  now: number,
): Promise<ItemRow> {
  const r = await requireEntity(t, 'items', id, true);
  sameBrandOrThrow(b.brand_id, r.brand_id, 'item', r.id);
  const issues = await itemIssues(t, r.brand_id, b, r.id);
  if (b.onlyModifier !== undefined && b.onlyModifier !== r.only_modifier) {
    const current = await itemOut(t, r);
    if (b.onlyModifier) {
      if (current.category_ids.length + current.modifier_group_ids.length > 0)
        issues.push({
          path: ['body', 'onlyModifier'],
          message: `item ${r.id} is in categories or offers modifier groups; unlink it first`,
        });
    } else if (current.member_of_group_ids.length > 0) {
      issues.push({
        path: ['body', 'onlyModifier'],
        message: `modifier ${r.id} is in modifier groups; remove it first`,
      });
    }
  }
  throwIf(issues);
  await t.menus.items.update(
    r.id,
    {
      title: b.title ?? r.title,
      partner_item_id: b.partner_item_id ?? r.partner_item_id,
      description: b.description ?? r.description,
      prices: b.prices ?? r.prices,
      group_prices: b.groupPrices ?? r.group_prices,
      visibilities: b.visibilities ?? r.visibilities,
      enabled: b.enabled ?? r.enabled,
      only_modifier: b.onlyModifier ?? r.only_modifier,
    },
    now,
  );
  return requireEntity(t, 'items', r.id);
}

export async function createModifierGroup(
  t: TenantTx,
  b: { brand_id: number; title: string; min: number; max: number },
  now: number,
): Promise<GroupRow> {
  await requireBrand(t, b.brand_id);
  if (b.min > b.max)
    throw invalid(
      [{ path: ['body', 'min'], message: `min (${b.min}) must not exceed max (${b.max})` }],
      'min must not exceed max',
    );
  return t.menus.groups.create(b.brand_id, { title: b.title, min: b.min, max: b.max }, now);
}

export async function updateModifierGroup(
  t: TenantTx,
  id: number,
  b: {
    brand_id?: number | undefined;
    title?: string | undefined;
    min?: number | undefined;
    max?: number | undefined;
  },
  now: number,
): Promise<GroupRow> {
  const g = await requireEntity(t, 'groups', id, true);
  sameBrandOrThrow(b.brand_id, g.brand_id, 'modifier group', g.id);
  const min = b.min ?? g.min;
  const max = b.max ?? g.max;
  throwIf(checkMinMax(min, max));
  await t.menus.groups.update(g.id, { title: b.title ?? g.title, min, max }, now);
  return requireEntity(t, 'groups', g.id);
}

/** Deletes one entity of the definition (its links go with it; an item's live state too). */
export async function deleteEntity(t: TenantTx, kind: EntityKind, id: number) {
  const r = await requireEntity(t, kind, id);
  if (kind === 'items') {
    // Its live state rows go with it (cascade): renderings cached with them must not survive.
    for (const b of await t.stock.branchesWithState(r.id)) await t.stock.bumpBranch(b);
  }
  await entities(t, kind).delete(r.id);
  return { id: r.id, deleted: true as const };
}

export { sameBrandOrThrow };
