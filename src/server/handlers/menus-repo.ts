// Menu persistence: the business definition (normalised tables), store layers and snapshots
// (JSON documents). Used by the HTTP handlers and by the demo seed; every write function
// expects the caller to hold the transaction and throws ApiError for client mistakes.
import {
  buildSnapshot,
  type CategoryDef,
  type ItemDef,
  type MenuDef,
  type ModifierGroupDef,
  type SectionDef,
  type SyncField,
  shippedProviders,
  countItems,
  snapshotTemplate,
  syncStore,
  type Times,
} from '../domain/menus.js';
import { PROVIDERS } from '../domain/reference-data.js';
import { ApiError, type FieldIssue, invalid, notFound } from '../errors.js';
import { sql } from '../store/sqlite/statements.js';
import type { Db } from '../store/sqlite/db.js';

const PROVIDER_IDS = new Set(PROVIDERS.map((p) => String(p.id)));
export const iso = (ms: number) => new Date(ms).toISOString();
const bool = (n: number) => n === 1;

// ─── rows ───────────────────────────────────────────────────────────────────────────────────

export interface SectionRow {
  id: number;
  business_id: number;
  brand_id: number;
  title: string;
  description: string;
  available_times: string | null;
  is_enabled: number;
  visibilities: string;
  blackout_dates: string;
}
export interface CategoryRow {
  id: number;
  business_id: number;
  brand_id: number;
  title: string;
  description: string;
  is_enabled: number;
}
export interface ItemRow {
  id: number;
  business_id: number;
  brand_id: number;
  title: string;
  partner_item_id: string;
  description: string;
  prices: string;
  group_prices: string;
  visibilities: string;
  enabled: number;
  only_modifier: number;
}
export interface GroupRow {
  id: number;
  business_id: number;
  brand_id: number;
  title: string;
  min_choices: number;
  max_choices: number;
}

type Table = 'menu_sections' | 'menu_categories' | 'menu_items' | 'menu_modifier_groups';
const NOUN: Record<Table, string> = {
  menu_sections: 'section',
  menu_categories: 'category',
  menu_items: 'item',
  menu_modifier_groups: 'modifier group',
};

function one<T>(db: Db, table: Table, businessId: number, id: number): T {
  const r = sql(db, `SELECT * FROM ${table} WHERE id = ? AND business_id = ?`).get(id, businessId) as
    | T
    | undefined;
  if (!r) throw notFound(NOUN[table], id);
  return r;
}

/** Rows for ids, all of the business (else 404 naming the missing ones). */
function many<T extends { id: number }>(
  db: Db,
  table: Table,
  businessId: number,
  ids: readonly number[],
): T[] {
  const out: T[] = [];
  const missing: number[] = [];
  for (const id of ids) {
    const r = sql(db, `SELECT * FROM ${table} WHERE id = ? AND business_id = ?`).get(id, businessId) as
      | T
      | undefined;
    if (r) out.push(r);
    else missing.push(id);
  }
  if (missing.length) {
    throw new ApiError('resource_not_found', `${NOUN[table]} ${missing.join(', ')} not found`, {
      [`missing_ids`]: missing,
    });
  }
  return out;
}

export const sectionRow = (db: Db, b: number, id: number) => one<SectionRow>(db, 'menu_sections', b, id);
export const categoryRow = (db: Db, b: number, id: number) => one<CategoryRow>(db, 'menu_categories', b, id);
export const itemRow = (db: Db, b: number, id: number) => one<ItemRow>(db, 'menu_items', b, id);
export const groupRow = (db: Db, b: number, id: number) => one<GroupRow>(db, 'menu_modifier_groups', b, id);

export function brandOf(db: Db, businessId: number, brandId: number): { id: number; title: string } {
  const r = sql(db, 'SELECT id, title FROM brands WHERE id = ? AND business_id = ?').get(
    brandId,
    businessId,
  ) as { id: number; title: string } | undefined;
  if (!r) throw notFound('brand', brandId);
  return r;
}

export function branchOf(db: Db, businessId: number, branchId: number): { id: number } {
  const r = sql(db, 'SELECT id FROM branches WHERE id = ? AND business_id = ? AND deleted_at IS NULL').get(
    branchId,
    businessId,
  ) as { id: number } | undefined;
  if (!r) throw notFound('branch', branchId);
  return r;
}

/** Live branches carrying the brand. */
export function brandBranches(db: Db, brandId: number): number[] {
  return sql(
    db,
    'SELECT bb.branch_id FROM branch_brands bb JOIN branches b ON b.id = bb.branch_id WHERE bb.brand_id = ? AND b.deleted_at IS NULL ORDER BY bb.branch_id',
  )
    .pluck()
    .all(brandId) as number[];
}

export function carries(db: Db, branchId: number, brandId: number): boolean {
  return (
    sql(db, 'SELECT 1 FROM branch_brands WHERE branch_id = ? AND brand_id = ?').get(branchId, brandId) !==
    undefined
  );
}

/** Branch ids given in a body: each of the business (else 404) and carrying the brand (else 400). */
function branchesFor(
  db: Db,
  businessId: number,
  brandId: number,
  branchIds: readonly number[] | undefined,
): number[] {
  if (branchIds === undefined) return brandBranches(db, brandId);
  const out: number[] = [];
  const bad: FieldIssue[] = [];
  branchIds.forEach((id, i) => {
    branchOf(db, businessId, id);
    if (!carries(db, id, brandId))
      bad.push({ path: ['body', 'branch_ids', i], message: `branch ${id} does not carry brand ${brandId}` });
    else if (!out.includes(id)) out.push(id);
  });
  if (bad.length) throw invalid(bad, bad.map((b) => b.message).join('; '));
  return out;
}

// ─── reference checks ───────────────────────────────────────────────────────────────────────

export function providerKeyIssues(map: Record<string, unknown> | undefined, field: string): FieldIssue[] {
  if (!map) return [];
  return Object.keys(map)
    .filter((k) => !PROVIDER_IDS.has(k))
    .map((k) => ({ path: ['body', field, k], message: `no provider ${k} (see GET /v1/partner/providers)` }));
}

export function groupKeyIssues(
  db: Db,
  businessId: number,
  map: Record<string, unknown> | undefined,
): FieldIssue[] {
  if (!map) return [];
  const ids = new Set(
    (sql(db, 'SELECT id FROM price_groups WHERE business_id = ?').pluck().all(businessId) as number[]).map(
      String,
    ),
  );
  return Object.keys(map)
    .filter((k) => !ids.has(k))
    .map((k) => ({ path: ['body', 'groupPrices', k], message: `no price group ${k} in this business` }));
}

function throwIf(issues: FieldIssue[]): void {
  if (issues.length)
    throw invalid(
      issues,
      `invalid request: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
}

function sameBrand(
  rows: { id: number; brand_id: number }[],
  brandId: number,
  field: string,
  noun: string,
): void {
  const bad: FieldIssue[] = [];
  rows.forEach((r, i) => {
    if (r.brand_id !== brandId)
      bad.push({
        path: ['body', field, i],
        message: `${noun} ${r.id} belongs to brand ${r.brand_id}, not ${brandId}`,
      });
  });
  throwIf(bad);
}

// ─── wire shapes of the business definition ─────────────────────────────────────────────────

const ids = (db: Db, text: string, id: number) => sql(db, text).pluck().all(id) as number[];

export function sectionOut(db: Db, r: SectionRow) {
  return {
    id: r.id,
    brand_id: r.brand_id,
    branch_id: null as number | null,
    title: r.title,
    description: r.description,
    availableTimes: r.available_times === null ? null : (JSON.parse(r.available_times) as Times),
    isEnabled: bool(r.is_enabled),
    visibilities: JSON.parse(r.visibilities) as Record<string, boolean>,
    blackoutDates: JSON.parse(r.blackout_dates) as string[],
    category_ids: ids(
      db,
      'SELECT category_id FROM menu_section_categories WHERE section_id = ? ORDER BY seq',
      r.id,
    ),
  };
}

export function categoryOut(db: Db, r: CategoryRow) {
  return {
    id: r.id,
    brand_id: r.brand_id,
    title: r.title,
    description: r.description,
    isEnabled: bool(r.is_enabled),
    section_ids: ids(
      db,
      'SELECT section_id FROM menu_section_categories WHERE category_id = ? ORDER BY section_id',
      r.id,
    ),
    item_ids: ids(db, 'SELECT item_id FROM menu_category_items WHERE category_id = ? ORDER BY seq', r.id),
  };
}

export function itemOut(db: Db, r: ItemRow) {
  return {
    id: r.id,
    brand_id: r.brand_id,
    title: r.title,
    partner_item_id: r.partner_item_id,
    description: r.description,
    prices: JSON.parse(r.prices) as Record<string, string>,
    groupPrices: JSON.parse(r.group_prices) as Record<string, string>,
    visibilities: JSON.parse(r.visibilities) as Record<string, boolean>,
    enabled: bool(r.enabled),
    onlyModifier: bool(r.only_modifier),
    category_ids: ids(
      db,
      'SELECT category_id FROM menu_category_items WHERE item_id = ? ORDER BY category_id',
      r.id,
    ),
    modifier_group_ids: ids(db, 'SELECT group_id FROM menu_item_groups WHERE item_id = ? ORDER BY seq', r.id),
    member_of_group_ids: ids(
      db,
      'SELECT group_id FROM menu_group_modifiers WHERE modifier_id = ? ORDER BY group_id',
      r.id,
    ),
  };
}

export function groupOut(db: Db, r: GroupRow) {
  return {
    id: r.id,
    brand_id: r.brand_id,
    title: r.title,
    min: r.min_choices,
    max: r.max_choices,
    modifier_ids: ids(
      db,
      'SELECT modifier_id FROM menu_group_modifiers WHERE group_id = ? ORDER BY seq',
      r.id,
    ),
    item_ids: ids(db, 'SELECT item_id FROM menu_item_groups WHERE group_id = ? ORDER BY item_id', r.id),
  };
}

// ─── the business definition as domain data ─────────────────────────────────────────────────

function groupLinks(db: Db, text: string, brandId: number): Map<number, number[]> {
  const m = new Map<number, number[]>();
  for (const [k, v] of sql(db, text).raw().all(brandId) as [number, number][]) {
    const l = m.get(k);
    if (l) l.push(v);
    else m.set(k, [v]);
  }
  return m;
}

/** One brand's business-level definition (eight queries, whatever the menu size). */
export function loadBusinessMenu(db: Db, brandId: number): MenuDef {
  const secCats = groupLinks(
    db,
    'SELECT l.section_id, l.category_id FROM menu_section_categories l JOIN menu_sections s ON s.id = l.section_id WHERE s.brand_id = ? ORDER BY l.seq',
    brandId,
  );
  const catItems = groupLinks(
    db,
    'SELECT l.category_id, l.item_id FROM menu_category_items l JOIN menu_categories c ON c.id = l.category_id WHERE c.brand_id = ? ORDER BY l.seq',
    brandId,
  );
  const itemGroups = groupLinks(
    db,
    'SELECT l.item_id, l.group_id FROM menu_item_groups l JOIN menu_items i ON i.id = l.item_id WHERE i.brand_id = ? ORDER BY l.seq',
    brandId,
  );
  const groupMods = groupLinks(
    db,
    'SELECT l.group_id, l.modifier_id FROM menu_group_modifiers l JOIN menu_modifier_groups g ON g.id = l.group_id WHERE g.brand_id = ? ORDER BY l.seq',
    brandId,
  );
  const sections: SectionDef[] = (
    sql(db, 'SELECT * FROM menu_sections WHERE brand_id = ? ORDER BY id').all(brandId) as SectionRow[]
  ).map((r) => ({
    id: r.id,
    title: r.title,
    description: r.description,
    availableTimes: r.available_times === null ? null : (JSON.parse(r.available_times) as Times),
    isEnabled: bool(r.is_enabled),
    visibilities: JSON.parse(r.visibilities),
    blackoutDates: JSON.parse(r.blackout_dates),
    category_ids: secCats.get(r.id) ?? [],
  }));
  const categories: CategoryDef[] = (
    sql(db, 'SELECT * FROM menu_categories WHERE brand_id = ? ORDER BY id').all(brandId) as CategoryRow[]
  ).map((r) => ({
    id: r.id,
    title: r.title,
    description: r.description,
    isEnabled: bool(r.is_enabled),
    item_ids: catItems.get(r.id) ?? [],
  }));
  const items: ItemDef[] = (
    sql(db, 'SELECT * FROM menu_items WHERE brand_id = ? ORDER BY id').all(brandId) as ItemRow[]
  ).map((r) => ({
    id: r.id,
    title: r.title,
    partner_item_id: r.partner_item_id,
    description: r.description,
    prices: JSON.parse(r.prices),
    groupPrices: JSON.parse(r.group_prices),
    visibilities: JSON.parse(r.visibilities),
    enabled: bool(r.enabled),
    onlyModifier: bool(r.only_modifier),
    modifier_group_ids: itemGroups.get(r.id) ?? [],
  }));
  const modifierGroups: ModifierGroupDef[] = (
    sql(db, 'SELECT * FROM menu_modifier_groups WHERE brand_id = ? ORDER BY id').all(brandId) as GroupRow[]
  ).map((r) => ({
    id: r.id,
    title: r.title,
    min: r.min_choices,
    max: r.max_choices,
    modifier_ids: groupMods.get(r.id) ?? [],
  }));
  return { brand_id: brandId, sections, categories, items, modifierGroups };
}

// ─── authoring ──────────────────────────────────────────────────────────────────────────────

export interface SectionInput {
  brand_id: number;
  title: string;
  description?: string | undefined;
  availableTimes?: Times | undefined;
  isEnabled?: boolean | undefined;
  visibilities?: Record<string, boolean> | undefined;
  blackoutDates?: string[] | undefined;
}

export function createSection(db: Db, businessId: number, b: SectionInput, now: number): SectionRow {
  brandOf(db, businessId, b.brand_id);
  throwIf(providerKeyIssues(b.visibilities, 'visibilities'));
  const at = iso(now);
  const id = Number(
    sql(
      db,
      `INSERT INTO menu_sections (business_id, brand_id, title, description, available_times, is_enabled, visibilities, blackout_dates, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      businessId,
      b.brand_id,
      b.title,
      b.description ?? '',
      b.availableTimes ? JSON.stringify(b.availableTimes) : null,
      b.isEnabled === false ? 0 : 1,
      JSON.stringify(b.visibilities ?? {}),
      JSON.stringify([...new Set(b.blackoutDates ?? [])].sort()),
      at,
      at,
    ).lastInsertRowid,
  );
  return sectionRow(db, businessId, id);
}

export interface CategoryInput {
  brand_id: number;
  title: string;
  description?: string | undefined;
  isEnabled?: boolean | undefined;
}

export function createCategory(db: Db, businessId: number, b: CategoryInput, now: number): CategoryRow {
  brandOf(db, businessId, b.brand_id);
  const at = iso(now);
  const id = Number(
    sql(
      db,
      'INSERT INTO menu_categories (business_id, brand_id, title, description, is_enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(businessId, b.brand_id, b.title, b.description ?? '', b.isEnabled === false ? 0 : 1, at, at)
      .lastInsertRowid,
  );
  return categoryRow(db, businessId, id);
}

export interface ItemInput {
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

export function skuTaken(db: Db, brandId: number, sku: string, exceptId = 0): number | undefined {
  return sql(db, 'SELECT id FROM menu_items WHERE brand_id = ? AND partner_item_id = ? AND id != ?')
    .pluck()
    .get(brandId, sku, exceptId) as number | undefined;
}

export function itemIssues(
  db: Db,
  businessId: number,
  brandId: number,
  b: Partial<ItemInput>,
  exceptId = 0,
): FieldIssue[] {
  const out = [
    ...providerKeyIssues(b.prices, 'prices'),
    ...providerKeyIssues(b.visibilities, 'visibilities'),
    ...groupKeyIssues(db, businessId, b.groupPrices),
  ];
  if (b.partner_item_id !== undefined) {
    const other = skuTaken(db, brandId, b.partner_item_id, exceptId);
    if (other !== undefined) {
      out.push({
        path: ['body', 'partner_item_id'],
        message: `item ${other} of brand ${brandId} already uses ${b.partner_item_id}`,
      });
    }
  }
  return out;
}

export function createItem(db: Db, businessId: number, b: ItemInput, now: number): ItemRow {
  brandOf(db, businessId, b.brand_id);
  throwIf(itemIssues(db, businessId, b.brand_id, b));
  const at = iso(now);
  const id = Number(
    sql(
      db,
      `INSERT INTO menu_items (business_id, brand_id, title, partner_item_id, description, prices, group_prices, visibilities, enabled, only_modifier, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      businessId,
      b.brand_id,
      b.title,
      b.partner_item_id,
      b.description ?? '',
      JSON.stringify(b.prices),
      JSON.stringify(b.groupPrices ?? {}),
      JSON.stringify(b.visibilities ?? {}),
      b.enabled === false ? 0 : 1,
      b.onlyModifier ? 1 : 0,
      at,
      at,
    ).lastInsertRowid,
  );
  return itemRow(db, businessId, id);
}

export function createModifierGroup(
  db: Db,
  businessId: number,
  b: { brand_id: number; title: string; min: number; max: number },
  now: number,
): GroupRow {
  brandOf(db, businessId, b.brand_id);
  if (b.min > b.max)
    throw invalid(
      [{ path: ['body', 'min'], message: `min (${b.min}) must not exceed max (${b.max})` }],
      'min must not exceed max',
    );
  const at = iso(now);
  const id = Number(
    sql(
      db,
      'INSERT INTO menu_modifier_groups (business_id, brand_id, title, min_choices, max_choices, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(businessId, b.brand_id, b.title, b.min, b.max, at, at).lastInsertRowid,
  );
  return groupRow(db, businessId, id);
}

export function linkSectionCategories(
  db: Db,
  businessId: number,
  sectionId: number,
  categoryIds: readonly number[],
): SectionRow {
  const s = sectionRow(db, businessId, sectionId);
  const cats = many<CategoryRow>(db, 'menu_categories', businessId, categoryIds);
  sameBrand(cats, s.brand_id, 'category_ids', 'category');
  for (const c of cats)
    sql(db, 'INSERT OR IGNORE INTO menu_section_categories (section_id, category_id) VALUES (?, ?)').run(
      s.id,
      c.id,
    );
  return s;
}

export function unlinkSectionCategories(
  db: Db,
  businessId: number,
  sectionId: number,
  categoryIds: readonly number[],
): SectionRow {
  const s = sectionRow(db, businessId, sectionId);
  const cats = many<CategoryRow>(db, 'menu_categories', businessId, categoryIds);
  for (const c of cats)
    sql(db, 'DELETE FROM menu_section_categories WHERE section_id = ? AND category_id = ?').run(s.id, c.id);
  return s;
}

export function linkItemCategories(
  db: Db,
  businessId: number,
  itemId: number,
  categoryIds: readonly number[],
): ItemRow {
  const item = itemRow(db, businessId, itemId);
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
  const cats = many<CategoryRow>(db, 'menu_categories', businessId, categoryIds);
  sameBrand(cats, item.brand_id, 'category_ids', 'category');
  for (const c of cats)
    sql(db, 'INSERT OR IGNORE INTO menu_category_items (category_id, item_id) VALUES (?, ?)').run(
      c.id,
      item.id,
    );
  return item;
}

export function unlinkItemCategories(
  db: Db,
  businessId: number,
  itemId: number,
  categoryIds: readonly number[],
): ItemRow {
  const item = itemRow(db, businessId, itemId);
  const cats = many<CategoryRow>(db, 'menu_categories', businessId, categoryIds);
  for (const c of cats)
    sql(db, 'DELETE FROM menu_category_items WHERE category_id = ? AND item_id = ?').run(c.id, item.id);
  return item;
}

function notModifiers(rows: ItemRow[], field: string): FieldIssue[] {
  const out: FieldIssue[] = [];
  rows.forEach((r, i) => {
    if (!r.only_modifier)
      out.push({
        path: ['body', field, i],
        message: `item ${r.id} is not a modifier (onlyModifier is false)`,
      });
  });
  return out;
}

export function linkGroupModifiers(
  db: Db,
  businessId: number,
  groupId: number,
  modifierIds: readonly number[],
): GroupRow {
  const g = groupRow(db, businessId, groupId);
  const mods = many<ItemRow>(db, 'menu_items', businessId, modifierIds);
  throwIf(notModifiers(mods, 'modifier_ids'));
  sameBrand(mods, g.brand_id, 'modifier_ids', 'modifier');
  for (const m of mods)
    sql(db, 'INSERT OR IGNORE INTO menu_group_modifiers (group_id, modifier_id) VALUES (?, ?)').run(
      g.id,
      m.id,
    );
  return g;
}

export function unlinkGroupModifiers(
  db: Db,
  businessId: number,
  groupId: number,
  modifierIds: readonly number[],
): GroupRow {
  const g = groupRow(db, businessId, groupId);
  const mods = many<ItemRow>(db, 'menu_items', businessId, modifierIds);
  for (const m of mods)
    sql(db, 'DELETE FROM menu_group_modifiers WHERE group_id = ? AND modifier_id = ?').run(g.id, m.id);
  return g;
}

export function groupModifierIds(db: Db, groupId: number): number[] {
  return ids(db, 'SELECT modifier_id FROM menu_group_modifiers WHERE group_id = ? ORDER BY seq', groupId);
}

/** The items a group may be offered on: of its brand, and not modifiers themselves. */
export function linkGroupItems(
  db: Db,
  businessId: number,
  groupId: number,
  itemIds: readonly number[],
): GroupRow {
  const g = groupRow(db, businessId, groupId);
  const items = many<ItemRow>(db, 'menu_items', businessId, itemIds);
  const bad: FieldIssue[] = [];
  items.forEach((r, i) => {
    if (r.only_modifier)
      bad.push({
        path: ['body', 'item_ids', i],
        message: `item ${r.id} is a modifier (onlyModifier:true); groups are offered on items`,
      });
  });
  throwIf(bad);
  sameBrand(items, g.brand_id, 'item_ids', 'item');
  for (const it of items)
    sql(db, 'INSERT OR IGNORE INTO menu_item_groups (item_id, group_id) VALUES (?, ?)').run(it.id, g.id);
  return g;
}

export function unlinkGroupItems(
  db: Db,
  businessId: number,
  groupId: number,
  itemIds: readonly number[],
): GroupRow {
  const g = groupRow(db, businessId, groupId);
  const items = many<ItemRow>(db, 'menu_items', businessId, itemIds);
  for (const it of items)
    sql(db, 'DELETE FROM menu_item_groups WHERE item_id = ? AND group_id = ?').run(it.id, g.id);
  return g;
}

export { many as rowsOf, throwIf };

// ─── layers ─────────────────────────────────────────────────────────────────────────────────

export function storeLayer(db: Db, brandId: number, branchId: number): MenuDef | null {
  const t = sql(db, 'SELECT tree FROM menu_stores WHERE brand_id = ? AND branch_id = ?')
    .pluck()
    .get(brandId, branchId) as string | undefined;
  return t === undefined ? null : (JSON.parse(t) as MenuDef);
}

export function saveStoreLayer(
  db: Db,
  businessId: number,
  branchId: number,
  menu: MenuDef,
  now: number,
  synced: boolean,
): void {
  const at = iso(now);
  sql(
    db,
    `INSERT INTO menu_stores (brand_id, branch_id, business_id, tree, synced_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (brand_id, branch_id) DO UPDATE SET tree = excluded.tree, updated_at = excluded.updated_at,
       synced_at = CASE WHEN ? THEN excluded.synced_at ELSE menu_stores.synced_at END`,
  ).run(menu.brand_id, branchId, businessId, JSON.stringify(menu), at, at, synced ? 1 : 0);
}

export interface SyncInput {
  brand_id: number;
  branch_ids?: readonly number[] | undefined;
  fieldIncludeOnSync?: readonly SyncField[] | undefined;
}

export function syncMenu(db: Db, businessId: number, b: SyncInput, now: number) {
  brandOf(db, businessId, b.brand_id);
  const branches = branchesFor(db, businessId, b.brand_id, b.branch_ids);
  const include = [...new Set(b.fieldIncludeOnSync ?? [])];
  const business = loadBusinessMenu(db, b.brand_id);
  for (const branchId of branches) {
    const next = syncStore(business, storeLayer(db, b.brand_id, branchId), include);
    saveStoreLayer(db, businessId, branchId, next, now, true);
  }
  return { brand_id: b.brand_id, branches, fieldIncludeOnSync: include, synced_at: iso(now) };
}

function hiddenProviders(db: Db, brandId: number, branchId: number): Set<string> {
  const hidden = new Set<string>();
  for (const text of [
    sql(db, 'SELECT visibilities FROM brands WHERE id = ?').pluck().get(brandId) as string,
    sql(db, 'SELECT visibilities FROM branches WHERE id = ?').pluck().get(branchId) as string,
  ]) {
    for (const [k, v] of Object.entries(JSON.parse(text ?? '{}') as Record<string, boolean>))
      if (v === false) hidden.add(k);
  }
  return hidden;
}

/** Writes a snapshot (new publish or a rewrite of the current one) and bumps its revision. */
export function writeSnapshot(
  db: Db,
  businessId: number,
  branchId: number,
  source: MenuDef,
  version: number,
  publishedAt: string,
) {
  const tree = buildSnapshot(source, {
    brand_id: source.brand_id,
    branch_id: branchId,
    version,
    published_at: publishedAt,
  });
  sql(
    db,
    `INSERT INTO menu_snapshots (brand_id, branch_id, business_id, version, published_at, revision, source, json) VALUES (?, ?, ?, ?, ?, 1, ?, ?)
     ON CONFLICT (brand_id, branch_id) DO UPDATE SET version = excluded.version, published_at = excluded.published_at,
       revision = menu_snapshots.revision + 1, source = excluded.source, json = excluded.json`,
  ).run(
    source.brand_id,
    branchId,
    businessId,
    version,
    publishedAt,
    JSON.stringify(source),
    snapshotTemplate(tree),
  );
  return tree;
}

export interface PublishInput {
  brand_id: number;
  branch_ids?: readonly number[] | undefined;
}

export function publishMenu(db: Db, businessId: number, b: PublishInput, now: number) {
  brandOf(db, businessId, b.brand_id);
  const candidates = branchesFor(db, businessId, b.brand_id, b.branch_ids);
  const layers = candidates.map((id) => ({ id, layer: storeLayer(db, b.brand_id, id) }));
  const unsynced = layers.filter((l) => l.layer === null).map((l) => l.id);
  if (b.branch_ids !== undefined && unsynced.length) {
    throw new ApiError(
      'request_invalid',
      `branch ${unsynced.join(', ')} has no store menu for brand ${b.brand_id} yet: POST /v1/partner/menus/sync first`,
      unsynced.map((id) => ({
        path: ['body', 'branch_ids', b.branch_ids!.indexOf(id)],
        message: `branch ${id} has no store menu for brand ${b.brand_id} yet (sync first)`,
      })),
    );
  }
  const ready = layers.filter((l): l is { id: number; layer: MenuDef } => l.layer !== null);
  if (ready.length === 0) {
    throw new ApiError(
      'request_invalid',
      `no branch has a store menu for brand ${b.brand_id} yet: POST /v1/partner/menus/sync first`,
      [
        {
          path: ['body', 'brand_id'],
          message: `no branch has a store menu for brand ${b.brand_id} yet (sync first)`,
        },
      ],
    );
  }
  const version =
    ((sql(db, 'SELECT version FROM menu_brand_versions WHERE brand_id = ?').pluck().get(b.brand_id) as
      | number
      | undefined) ?? 0) + 1;
  sql(
    db,
    'INSERT INTO menu_brand_versions (brand_id, version) VALUES (?, ?) ON CONFLICT (brand_id) DO UPDATE SET version = excluded.version',
  ).run(b.brand_id, version);
  const publishedAt = iso(now);
  const providers = new Set<number>();
  for (const { id, layer } of ready) {
    const tree = writeSnapshot(db, businessId, id, layer, version, publishedAt);
    const n = countItems(tree);
    // "Shipping to the marketplaces": one publish-log row per provider of this store.
    for (const p of shippedProviders(tree, hiddenProviders(db, b.brand_id, id))) {
      providers.add(p);
      sql(
        db,
        "INSERT INTO menu_publish_log (business_id, brand_id, branch_id, version, provider_id, status, items, published_at) VALUES (?, ?, ?, ?, ?, 'shipped', ?, ?)",
      ).run(businessId, b.brand_id, id, version, p, n, publishedAt);
    }
  }
  return {
    version,
    published_at: publishedAt,
    branches: ready.map((r) => r.id),
    providers: [...providers].sort((x, y) => x - y),
  };
}
