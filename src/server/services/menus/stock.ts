// Operational state of the store layer: availability, snooze, stock counts and enable toggles,
// and the OOS activity history that records every change. None of it needs a publish: item state
// is laid over the snapshot when GET /menus renders it, and enable toggles patch both the store
// layer and the published snapshot.
import {
  DEFAULT_STATE,
  type EnableKind,
  effectiveState,
  type ItemState,
  resolveRange,
  setEnabled,
} from '../../domain/menus.js';
import { ApiError, type FieldIssue } from '../../errors.js';
import type { ItemRow } from '../../store/menus/catalogue-repo.js';
import type { ActivityFilter, NewActivity } from '../../store/stock-repo.js';
import type { TenantTx } from '../../store/store.js';
import { requireBranch } from '../branches.js';
import { requireEntities, throwIf } from './catalogue.js';
import { writeSnapshot } from './publish.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Who changed the state, and when. */
export interface Actor {
  /** The credential key (or a name such as `demo-seed`), shown as the activity's actor. */
  actor: string;
  now: number;
}

const sameState = (a: ItemState, b: ItemState) =>
  a.available === b.available && a.stock === b.stock && a.snoozedUntil === b.snoozedUntil;

type Activity = Omit<NewActivity, 'actor' | 'at_ms'>;
const record = (t: TenantTx, by: Actor, a: Activity) =>
  t.stock.record({ ...a, actor: by.actor, at_ms: by.now });

// ─── SKU resolution ─────────────────────────────────────────────────────────────────────────

/**
 * The items carrying each SKU in the brands of the branch. Unknown SKUs → 404 resource_unmapped
 * listing all of them; nothing is written (the whole call is one unit of work).
 */
async function resolveSkus(
  t: TenantTx,
  branchId: number,
  skus: readonly string[],
): Promise<Map<string, ItemRow[]>> {
  await requireBranch(t, branchId);
  const out = new Map<string, ItemRow[]>();
  const unknown: string[] = [];
  for (const sku of skus) {
    const rows = await t.menus.items.atBranch(branchId, sku);
    if (rows.length) out.set(sku, rows);
    else unknown.push(sku);
  }
  if (unknown.length) {
    throw new ApiError(
      'resource_unmapped',
      `unknown partner_item_id at branch ${branchId}: ${unknown.join(', ')}`,
      {
        partner_item_ids: unknown,
        branch_id: branchId,
      },
    );
  }
  return out;
}

function noDuplicates(skus: readonly string[]): void {
  const seen = new Set<string>();
  const bad: FieldIssue[] = [];
  skus.forEach((s, i) => {
    if (seen.has(s))
      bad.push({ path: ['body', 'items', i, 'partner_item_id'], message: `${s} is listed twice` });
    seen.add(s);
  });
  throwIf(bad);
}

type Action = 'availability' | 'snooze' | 'stock';

/** Applies a state change to every item of a SKU at the branch, recording each real change. */
async function applyToSku(
  t: TenantTx,
  by: Actor,
  branchId: number,
  sku: string,
  items: ItemRow[],
  action: Action,
  change: (s: ItemState) => ItemState,
  until: string | null,
) {
  let shown = effectiveState(DEFAULT_STATE, by.now);
  let changed = false;
  for (const [i, item] of items.entries()) {
    const before = await t.stock.state(branchId, item.id);
    const after = change(before);
    const eb = effectiveState(before, by.now);
    const ea = effectiveState(after, by.now);
    if (i === 0) shown = ea;
    if (sameState(before, after)) continue;
    changed = true;
    await t.stock.setState(branchId, item.id, after, by.now);
    await record(t, by, {
      brand_id: item.brand_id,
      branch_id: branchId,
      entity_type: 'item',
      entity_id: item.id,
      partner_item_id: sku,
      title: item.title,
      action,
      before: eb,
      after: ea,
      until,
      went_out: eb.isAvailable && !ea.isAvailable,
      came_back: !eb.isAvailable && ea.isAvailable,
    });
  }
  return {
    out: { branch_id: branchId, partner_item_id: sku, item_ids: items.map((i) => i.id), ...shown },
    changed,
  };
}

interface SkuChange {
  sku: string;
  change: (s: ItemState) => ItemState;
  until?: string;
}

/**
 * One availability, snooze or stock change for several SKUs at a branch: every SKU is resolved
 * first (an unknown one is a 404 before anything is written), each is changed, and the branch's
 * menu is marked changed once.
 */
export async function applyToSkus(
  t: TenantTx,
  by: Actor,
  branchId: number,
  action: Action,
  entries: readonly SkuChange[],
) {
  const skus = entries.map((e) => e.sku);
  noDuplicates(skus);
  const found = await resolveSkus(t, branchId, skus);
  let changed = false;
  const out = [];
  for (const e of entries) {
    const r = await applyToSku(t, by, branchId, e.sku, found.get(e.sku)!, action, e.change, e.until ?? null);
    changed ||= r.changed;
    out.push(r.out);
  }
  if (changed) await t.stock.bumpBranch(branchId);
  return out;
}

/** isAvailable:true also ends a snooze and clears a zero stock count, so the item is really back. */
export function availability(isAvailable: boolean) {
  return (s: ItemState): ItemState =>
    isAvailable
      ? { available: true, stock: s.stock === 0 ? null : s.stock, snoozedUntil: null }
      : { ...s, available: false };
}

export const stockCount =
  (stock: number | null) =>
  (s: ItemState): ItemState => ({ ...s, stock });

export const snoozedUntil =
  (until: number) =>
  (s: ItemState): ItemState => ({ ...s, snoozedUntil: until });

// ─── enable toggles ─────────────────────────────────────────────────────────────────────────

const ENTITY_KIND = { sections: 'sections', categories: 'categories', items: 'items' } as const;
const ENTITY_TYPE = { sections: 'section', categories: 'category', items: 'item' } as const;

interface EnableRow {
  id: number;
  brand_id: number;
  title: string;
  partner_item_id?: string;
  is_enabled?: boolean;
  enabled?: boolean;
}

const enabledOf = (r: EnableRow) => r.is_enabled ?? r.enabled ?? true;

/**
 * Enables or disables sections, categories or items: without branch_ids, in the business
 * definition and then in every store of their brands; with branch_ids, in those stores only.
 * A store's published snapshot is patched too.
 */
export async function setEnabledEntities(
  t: TenantTx,
  by: Actor,
  kind: EnableKind,
  body: { ids: number[]; isEnabled: boolean; branch_ids?: number[] | undefined },
) {
  const rows = (await requireEntities(t, ENTITY_KIND[kind], [...new Set(body.ids)])) as EnableRow[];
  const flag = body.isEnabled;
  const byBrand = new Map<number, EnableRow[]>();
  for (const r of rows) byBrand.set(r.brand_id, [...(byBrand.get(r.brand_id) ?? []), r]);
  const activity = (r: EnableRow, branchId: number | null, before: boolean) =>
    record(t, by, {
      brand_id: r.brand_id,
      branch_id: branchId,
      entity_type: ENTITY_TYPE[kind],
      entity_id: r.id,
      partner_item_id: r.partner_item_id ?? null,
      title: r.title,
      action: 'enable',
      before: { isEnabled: before },
      after: { isEnabled: flag },
      until: null,
      went_out: before && !flag,
      came_back: !before && flag,
    });

  const targets: { brand: number; branch: number }[] = [];
  if (body.branch_ids === undefined) {
    // Business definition, then every store of the brands involved.
    for (const r of rows) {
      const before = enabledOf(r);
      if (before === flag) continue;
      await setDefinitionEnabled(t, kind, r.id, flag, by.now);
      await activity(r, null, before);
    }
    for (const brand of byBrand.keys())
      for (const branch of await t.branches.carrying(brand)) targets.push({ brand, branch });
  } else {
    const bad: FieldIssue[] = [];
    for (const [i, branch] of body.branch_ids.entries()) {
      await requireBranch(t, branch);
      const brands: number[] = [];
      for (const brand of byBrand.keys()) if (await t.branches.carries(branch, brand)) brands.push(brand);
      if (brands.length === 0)
        bad.push({
          path: ['body', 'branch_ids', i],
          message: `branch ${branch} carries none of the brands of these ${kind}`,
        });
      for (const brand of brands)
        if (!targets.some((x) => x.brand === brand && x.branch === branch)) targets.push({ brand, branch });
    }
    throwIf(bad);
  }

  const stores: { brand_id: number; branch_id: number }[] = [];
  const unsynced: { brand_id: number; branch_id: number }[] = [];
  for (const { brand, branch } of targets) {
    const entities = byBrand.get(brand)!;
    const ids = entities.map((e) => e.id);
    const layer = await t.layers.storeLayer(brand, branch);
    if (!layer) {
      unsynced.push({ brand_id: brand, branch_id: branch });
      continue;
    }
    const { menu, before } = setEnabled(layer, kind, ids, flag);
    await t.layers.saveStoreLayer(brand, branch, menu, by.now, false);
    const snap = await t.layers.snapshot(brand, branch);
    if (snap) {
      const patched = setEnabled(snap.source, kind, ids, flag);
      if ([...patched.before.values()].some((b) => b !== flag)) {
        await writeSnapshot(t, branch, patched.menu, snap.version, snap.published_at);
      }
    }
    for (const e of entities) {
      const was = before.get(e.id);
      if (was !== undefined && was !== flag) await activity(e, branch, was);
    }
    stores.push({ brand_id: brand, branch_id: branch });
  }
  if (body.branch_ids !== undefined && unsynced.length) {
    throw new ApiError(
      'request_invalid',
      `no store menu yet for ${unsynced.map((u) => `brand ${u.brand_id} at branch ${u.branch_id}`).join(', ')}: POST /v1/partner/menus/sync first`,
      unsynced.map((u) => ({
        path: ['body', 'branch_ids', body.branch_ids!.indexOf(u.branch_id)],
        message: `no store menu yet for brand ${u.brand_id} at branch ${u.branch_id} (sync first)`,
      })),
    );
  }
  return { ids: rows.map((r) => r.id), isEnabled: flag, branch_ids: body.branch_ids ?? null, stores };
}

/** The enabled flag of one entity of the definition, every other field kept. */
async function setDefinitionEnabled(t: TenantTx, kind: EnableKind, id: number, flag: boolean, now: number) {
  if (kind === 'sections') {
    const r = (await t.menus.sections.get(id, true))!;
    await t.menus.sections.update(id, { ...r, is_enabled: flag }, now);
  } else if (kind === 'categories') {
    const r = (await t.menus.categories.get(id, true))!;
    await t.menus.categories.update(id, { ...r, is_enabled: flag }, now);
  } else {
    const r = (await t.menus.items.get(id, true))!;
    await t.menus.items.update(id, { ...r, enabled: flag }, now);
  }
}

// ─── OOS history ────────────────────────────────────────────────────────────────────────────

export interface OosQuery {
  from?: string | undefined;
  to?: string | undefined;
  branch_id?: number | undefined;
  brand_id?: number | undefined;
}

/** The query's range and filters (400 on a bad range). */
export function activityFilter(q: OosQuery, now: number): ActivityFilter {
  const r = resolveRange(
    q.from === undefined ? undefined : Date.parse(q.from),
    q.to === undefined ? undefined : Date.parse(q.to),
    now,
  );
  if (!r.ok)
    throw new ApiError(r.code, r.message, [
      { path: ['query', r.code === 'request_invalid' ? 'from' : 'to'], message: r.message },
    ]);
  return { fromMs: r.from, toMs: r.to, branchId: q.branch_id, brandId: q.brand_id };
}

export { iso };
