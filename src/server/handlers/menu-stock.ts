// Operational state of the store layer: availability, snooze, stock counts and enable toggles,
// and the OOS activity history that records every change. None of it needs a publish: item
// state is laid over the snapshot when GET /menus renders it, and enable toggles patch both
// the store layer and the published snapshot.
import {
  DEFAULT_STATE,
  type EnableKind,
  effectiveState,
  type ItemState,
  resolveRange,
  setEnabled,
} from '../domain/menus.js';
import { offsetOf } from '../domain/pagination.js';
import { ApiError, type FieldIssue, invalid } from '../errors.js';
import type { HandlersFor, PartnerCtx } from './context.js';
import { sql } from '../store/sqlite/statements.js';
import type { Db } from '../store/sqlite/db.js';
import {
  branchOf,
  brandBranches,
  carries,
  type ItemRow,
  iso,
  rowsOf,
  saveStoreLayer,
  storeLayer,
  throwIf,
  writeSnapshot,
} from './menus-repo.js';
import type { MenuDef } from '../domain/menus.js';

interface StateRow {
  item_id: number;
  available: number;
  stock: number | null;
  snoozed_until_ms: number | null;
}

const toState = (r: StateRow): ItemState => ({
  available: r.available === 1,
  stock: r.stock,
  snoozedUntil: r.snoozed_until_ms,
});

/** Every item state row of a branch (rows exist only for items that left the default). */
export function loadStates(db: Db, branchId: number): Map<number, ItemState> {
  const rows = sql(
    db,
    'SELECT item_id, available, stock, snoozed_until_ms FROM menu_item_state WHERE branch_id = ?',
  ).all(branchId) as StateRow[];
  return new Map(rows.map((r) => [r.item_id, toState(r)]));
}

function stateOf(db: Db, branchId: number, itemId: number): ItemState {
  const r = sql(
    db,
    'SELECT item_id, available, stock, snoozed_until_ms FROM menu_item_state WHERE branch_id = ? AND item_id = ?',
  ).get(branchId, itemId) as StateRow | undefined;
  return r ? toState(r) : { ...DEFAULT_STATE };
}

const sameState = (a: ItemState, b: ItemState) =>
  a.available === b.available && a.stock === b.stock && a.snoozedUntil === b.snoozedUntil;

function writeState(db: Db, branchId: number, itemId: number, s: ItemState, now: number): void {
  if (sameState(s, DEFAULT_STATE)) {
    sql(db, 'DELETE FROM menu_item_state WHERE branch_id = ? AND item_id = ?').run(branchId, itemId);
    return;
  }
  sql(
    db,
    `INSERT INTO menu_item_state (branch_id, item_id, available, stock, snoozed_until_ms, updated_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (branch_id, item_id) DO UPDATE SET available = excluded.available, stock = excluded.stock,
       snoozed_until_ms = excluded.snoozed_until_ms, updated_at = excluded.updated_at`,
  ).run(branchId, itemId, s.available ? 1 : 0, s.stock, s.snoozedUntil, iso(now));
}

/** GET /menus caches its rendering per branch state version: every state change bumps it. */
export function bumpBranch(db: Db, branchId: number): void {
  sql(
    db,
    'INSERT INTO menu_branch_state (branch_id, version) VALUES (?, 1) ON CONFLICT (branch_id) DO UPDATE SET version = version + 1',
  ).run(branchId);
}

interface Activity {
  brand_id: number;
  branch_id: number | null;
  entity_type: 'section' | 'category' | 'item';
  entity_id: number;
  partner_item_id: string | null;
  title: string;
  action: 'availability' | 'snooze' | 'enable' | 'stock';
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  until: string | null;
  wentOut: boolean;
  cameBack: boolean;
}

function record(ctx: PartnerCtx, a: Activity): void {
  sql(
    ctx.db,
    `INSERT INTO menu_oos_activity (business_id, brand_id, branch_id, entity_type, entity_id, partner_item_id, title, action, before, after, until, went_out, came_back, actor, at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    ctx.businessId,
    a.brand_id,
    a.branch_id,
    a.entity_type,
    a.entity_id,
    a.partner_item_id,
    a.title,
    a.action,
    JSON.stringify(a.before),
    JSON.stringify(a.after),
    a.until,
    a.wentOut ? 1 : 0,
    a.cameBack ? 1 : 0,
    ctx.credential.key,
    ctx.now,
  );
}

// ─── SKU resolution ─────────────────────────────────────────────────────────────────────────

/**
 * The items carrying each SKU in the brands of the branch. Unknown SKUs → 404
 * resource_unmapped listing all of them; nothing is written (the whole call is one transaction).
 */
function resolveSkus(
  db: Db,
  businessId: number,
  branchId: number,
  skus: readonly string[],
): Map<string, ItemRow[]> {
  branchOf(db, businessId, branchId);
  const out = new Map<string, ItemRow[]>();
  const unknown: string[] = [];
  for (const sku of skus) {
    const rows = sql(
      db,
      `SELECT i.* FROM menu_items i JOIN branch_brands bb ON bb.brand_id = i.brand_id AND bb.branch_id = ?
       WHERE i.partner_item_id = ? AND i.business_id = ? ORDER BY i.id`,
    ).all(branchId, sku, businessId) as ItemRow[];
    if (rows.length) out.set(sku, rows);
    else unknown.push(sku);
  }
  if (unknown.length) {
    throw new ApiError(
      'resource_unmapped',
      `unknown partner_item_id at branch ${branchId}: ${unknown.join(', ')}`,
      { partner_item_ids: unknown, branch_id: branchId },
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
function applyToSku(
  ctx: PartnerCtx,
  branchId: number,
  sku: string,
  items: ItemRow[],
  action: Action,
  change: (s: ItemState) => ItemState,
  until: string | null = null,
) {
  let shown = effectiveState(DEFAULT_STATE, ctx.now);
  let changed = false;
  items.forEach((item, i) => {
    const before = stateOf(ctx.db, branchId, item.id);
    const after = change(before);
    const eb = effectiveState(before, ctx.now);
    const ea = effectiveState(after, ctx.now);
    if (i === 0) shown = ea;
    if (sameState(before, after)) return;
    changed = true;
    writeState(ctx.db, branchId, item.id, after, ctx.now);
    record(ctx, {
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
      wentOut: eb.isAvailable && !ea.isAvailable,
      cameBack: !eb.isAvailable && ea.isAvailable,
    });
  });
  return {
    out: { branch_id: branchId, partner_item_id: sku, item_ids: items.map((i) => i.id), ...shown },
    changed,
  };
}

/**
 * One availability, snooze or stock change for several SKUs at a branch: every SKU is resolved
 * first (an unknown one is a 404 before anything is written), each is changed, and the branch's
 * menu is marked changed once.
 */
function applyToSkus(
  ctx: PartnerCtx,
  branchId: number,
  action: Action,
  entries: readonly { sku: string; change: (s: ItemState) => ItemState; until?: string }[],
) {
  const skus = entries.map((e) => e.sku);
  noDuplicates(skus);
  const found = resolveSkus(ctx.db, ctx.businessId, branchId, skus);
  let changed = false;
  const out = entries.map((e) => {
    const r = applyToSku(ctx, branchId, e.sku, found.get(e.sku)!, action, e.change, e.until ?? null);
    changed ||= r.changed;
    return r.out;
  });
  if (changed) bumpBranch(ctx.db, branchId);
  return out;
}

/** isAvailable:true also ends a snooze and clears a zero stock count, so the item is really back. */
function availability(isAvailable: boolean) {
  return (s: ItemState): ItemState =>
    isAvailable
      ? { available: true, stock: s.stock === 0 ? null : s.stock, snoozedUntil: null }
      : { ...s, available: false };
}

// ─── enable toggles ─────────────────────────────────────────────────────────────────────────

const ENABLE_TABLE = {
  sections: 'menu_sections',
  categories: 'menu_categories',
  items: 'menu_items',
} as const;
const ENABLE_COLUMN = { sections: 'is_enabled', categories: 'is_enabled', items: 'enabled' } as const;
const ENTITY = { sections: 'section', categories: 'category', items: 'item' } as const;

interface EnableRow {
  id: number;
  brand_id: number;
  title: string;
  partner_item_id?: string;
  is_enabled?: number;
  enabled?: number;
}

function enable(kind: EnableKind) {
  return (
    ctx: PartnerCtx,
    { body }: { body: { ids: number[]; isEnabled: boolean; branch_ids?: number[] | undefined } },
  ) => {
    const { db, businessId, now } = ctx;
    const rows = rowsOf<EnableRow>(db, ENABLE_TABLE[kind], businessId, [...new Set(body.ids)]);
    const flag = body.isEnabled;
    const byBrand = new Map<number, EnableRow[]>();
    for (const r of rows) byBrand.set(r.brand_id, [...(byBrand.get(r.brand_id) ?? []), r]);
    const activity = (r: EnableRow, branchId: number | null, before: boolean) =>
      record(ctx, {
        brand_id: r.brand_id,
        branch_id: branchId,
        entity_type: ENTITY[kind],
        entity_id: r.id,
        partner_item_id: r.partner_item_id ?? null,
        title: r.title,
        action: 'enable',
        before: { isEnabled: before },
        after: { isEnabled: flag },
        until: null,
        wentOut: before && !flag,
        cameBack: !before && flag,
      });

    const targets: { brand: number; branch: number }[] = [];
    if (body.branch_ids === undefined) {
      // Business definition, then every store of the brands involved.
      const col = ENABLE_COLUMN[kind];
      for (const r of rows) {
        const before = (r[col] ?? 1) === 1;
        if (before === flag) continue;
        sql(db, `UPDATE ${ENABLE_TABLE[kind]} SET ${col} = ?, updated_at = ? WHERE id = ?`).run(
          flag ? 1 : 0,
          iso(now),
          r.id,
        );
        activity(r, null, before);
      }
      for (const brand of byBrand.keys())
        for (const branch of brandBranches(db, brand)) targets.push({ brand, branch });
    } else {
      const bad: FieldIssue[] = [];
      body.branch_ids.forEach((branch, i) => {
        branchOf(db, businessId, branch);
        const brands = [...byBrand.keys()].filter((brand) => carries(db, branch, brand));
        if (brands.length === 0)
          bad.push({
            path: ['body', 'branch_ids', i],
            message: `branch ${branch} carries none of the brands of these ${kind}`,
          });
        for (const brand of brands)
          if (!targets.some((t) => t.brand === brand && t.branch === branch)) targets.push({ brand, branch });
      });
      throwIf(bad);
    }

    const stores: { brand_id: number; branch_id: number }[] = [];
    const unsynced: { brand_id: number; branch_id: number }[] = [];
    for (const { brand, branch } of targets) {
      const entities = byBrand.get(brand)!;
      const ids = entities.map((e) => e.id);
      const layer = storeLayer(db, brand, branch);
      if (!layer) {
        unsynced.push({ brand_id: brand, branch_id: branch });
        continue;
      }
      const { menu, before } = setEnabled(layer, kind, ids, flag);
      saveStoreLayer(db, businessId, branch, menu, now, false);
      const snap = sql(
        db,
        'SELECT source, version, published_at FROM menu_snapshots WHERE brand_id = ? AND branch_id = ?',
      ).get(brand, branch) as { source: string; version: number; published_at: string } | undefined;
      if (snap) {
        const patched = setEnabled(JSON.parse(snap.source) as MenuDef, kind, ids, flag);
        if ([...patched.before.values()].some((b) => b !== flag)) {
          writeSnapshot(db, businessId, branch, patched.menu, snap.version, snap.published_at);
        }
      }
      for (const e of entities) {
        const was = before.get(e.id);
        if (was !== undefined && was !== flag) activity(e, branch, was);
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
  };
}

// ─── OOS history ────────────────────────────────────────────────────────────────────────────

interface OosQuery {
  from?: string | undefined;
  to?: string | undefined;
  branch_id?: number | undefined;
  brand_id?: number | undefined;
  page: number;
  size: number;
}

function range(q: OosQuery, now: number) {
  const r = resolveRange(
    q.from === undefined ? undefined : Date.parse(q.from),
    q.to === undefined ? undefined : Date.parse(q.to),
    now,
  );
  if (!r.ok)
    throw new ApiError(r.code, r.message, [
      { path: ['query', r.code === 'request_invalid' ? 'from' : 'to'], message: r.message },
    ]);
  return r;
}

interface ActivityRow {
  id: number;
  at_ms: number;
  branch_id: number | null;
  brand_id: number;
  entity_type: 'section' | 'category' | 'item';
  entity_id: number;
  partner_item_id: string | null;
  title: string;
  action: 'availability' | 'snooze' | 'enable' | 'stock';
  before: string;
  after: string;
  until: string | null;
  actor: string;
}

const FILTER =
  'business_id = ? AND entity_type = ? AND at_ms BETWEEN ? AND ? AND (? IS NULL OR branch_id = ?) AND (? IS NULL OR brand_id = ?)';

function filterArgs(ctx: PartnerCtx, q: OosQuery, entity: string) {
  const { from, to } = range(q, ctx.now);
  const branch = q.branch_id ?? null;
  const brand = q.brand_id ?? null;
  return [ctx.businessId, entity, from, to, branch, branch, brand, brand] as const;
}

function listActivity(entity: 'section' | 'category' | 'item') {
  return (ctx: PartnerCtx, { query }: { query: OosQuery }) => {
    const args = filterArgs(ctx, query, entity);
    const total = sql(ctx.db, `SELECT count(*) FROM menu_oos_activity WHERE ${FILTER}`)
      .pluck()
      .get(...args) as number;
    const rows = sql(
      ctx.db,
      `SELECT * FROM menu_oos_activity WHERE ${FILTER} ORDER BY at_ms DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...args, query.size, offsetOf(query)) as ActivityRow[];
    return {
      results: rows.map((r) => ({
        id: r.id,
        at: iso(r.at_ms),
        branch_id: r.branch_id,
        brand_id: r.brand_id,
        entity_type: r.entity_type,
        entity_id: r.entity_id,
        partner_item_id: r.partner_item_id,
        title: r.title,
        action: r.action,
        before: JSON.parse(r.before) as Record<string, unknown>,
        after: JSON.parse(r.after) as Record<string, unknown>,
        until: r.until,
        actor: r.actor,
      })),
      page: query.page,
      size: query.size,
      total,
    };
  };
}

const SUMMARY_FILTER =
  'business_id = ? AND at_ms BETWEEN ? AND ? AND (? IS NULL OR branch_id = ?) AND (? IS NULL OR brand_id = ?)';

export const menuStockHandlers: HandlersFor<
  | 'setItemAvailability'
  | 'setItemsAvailability'
  | 'snoozeItem'
  | 'updateItemStocks'
  | 'enableSections'
  | 'enableCategories'
  | 'enableItems'
  | 'listOOSActivitySummaries'
  | 'listOOSActivitySections'
  | 'listOOSActivityCategories'
  | 'listOOSActivityItems'
> = {
  setItemAvailability: (ctx, { params, body }) =>
    applyToSkus(ctx, body.branch_id, 'availability', [
      { sku: params.partner_item_id, change: availability(body.isAvailable) },
    ])[0]!,

  setItemsAvailability: (ctx, { body }) => ({
    branch_id: body.branch_id,
    items: applyToSkus(
      ctx,
      body.branch_id,
      'availability',
      body.items.map((i) => ({ sku: i.partner_item_id, change: availability(i.isAvailable) })),
    ),
  }),

  snoozeItem: (ctx, { params, body }) => {
    const until = Date.parse(body.until);
    if (!(until > ctx.now)) {
      throw invalid(
        [{ path: ['body', 'until'], message: 'must be in the future' }],
        `until (${body.until}) must be in the future`,
      );
    }
    return applyToSkus(ctx, body.branch_id, 'snooze', [
      { sku: params.partner_item_id, change: (st) => ({ ...st, snoozedUntil: until }), until: iso(until) },
    ])[0]!;
  },

  updateItemStocks: (ctx, { body }) => ({
    branch_id: body.branch_id,
    items: applyToSkus(
      ctx,
      body.branch_id,
      'stock',
      body.items.map((i) => ({
        sku: i.partner_item_id,
        change: (st: ItemState) => ({ ...st, stock: i.stock }),
      })),
    ),
  }),

  enableSections: enable('sections'),
  enableCategories: enable('categories'),
  enableItems: enable('items'),

  listOOSActivitySummaries: (ctx, { query }) => {
    const { from, to } = range(query, ctx.now);
    const branch = query.branch_id ?? null;
    const brand = query.brand_id ?? null;
    const args = [ctx.businessId, from, to, branch, branch, brand, brand] as const;
    const groupBy = 'GROUP BY branch_id, entity_type, entity_id';
    const total = sql(
      ctx.db,
      `SELECT count(*) FROM (SELECT 1 FROM menu_oos_activity WHERE ${SUMMARY_FILTER} ${groupBy})`,
    )
      .pluck()
      .get(...args) as number;
    // With a single MAX() aggregate, SQLite takes the bare columns from the row holding the
    // maximum: title, action and time of the latest change.
    const rows = sql(
      ctx.db,
      `SELECT branch_id, brand_id, entity_type, entity_id, partner_item_id, title, action AS last_action, at_ms,
              count(*) AS changes, sum(went_out) AS went_out, sum(came_back) AS came_back, max(id) AS last_id
       FROM menu_oos_activity WHERE ${SUMMARY_FILTER} ${groupBy}
       ORDER BY last_id DESC LIMIT ? OFFSET ?`,
    ).all(...args, query.size, offsetOf(query)) as (Omit<ActivityRow, 'action'> & {
      last_action: ActivityRow['action'];
      changes: number;
      went_out: number;
      came_back: number;
    })[];
    return {
      results: rows.map((r) => ({
        branch_id: r.branch_id,
        brand_id: r.brand_id,
        entity_type: r.entity_type,
        entity_id: r.entity_id,
        partner_item_id: r.partner_item_id,
        title: r.title,
        changes: r.changes,
        went_out: r.went_out,
        came_back: r.came_back,
        last_action: r.last_action,
        last_at: iso(r.at_ms),
      })),
      page: query.page,
      size: query.size,
      total,
    };
  },
  listOOSActivitySections: listActivity('section'),
  listOOSActivityCategories: listActivity('category'),
  listOOSActivityItems: listActivity('item'),
};
