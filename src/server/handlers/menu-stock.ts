import { offsetOf } from '../domain/pagination.js';
import { invalid } from '../errors.js';
import {
  activityFilter,
  type Actor,
  applyToSkus,
  availability,
  iso,
  type OosQuery,
  setEnabledEntities,
  snoozedUntil,
  stockCount,
} from '../services/menus/stock.js';
import type { EntityType } from '../store/stock-repo.js';
import type { HandlersFor, PartnerCtx } from './context.js';

const by = (ctx: PartnerCtx): Actor => ({ actor: ctx.credential.key, now: ctx.now });

function listActivity(entity: EntityType) {
  return async (ctx: PartnerCtx, { query }: { query: OosQuery & { page: number; size: number } }) => {
    const { total, rows } = await ctx.store.stock.activity(
      entity,
      activityFilter(query, ctx.now),
      query.size,
      offsetOf(query),
    );
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
        before: r.before,
        after: r.after,
        until: r.until,
        actor: r.actor,
      })),
      page: query.page,
      size: query.size,
      total,
    };
  };
}

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
  setItemAvailability: async (ctx, { params, body }) =>
    (
      await applyToSkus(ctx.store, by(ctx), body.branch_id, 'availability', [
        { sku: params.partner_item_id, change: availability(body.isAvailable) },
      ])
    )[0]!,

  setItemsAvailability: async (ctx, { body }) => ({
    branch_id: body.branch_id,
    items: await applyToSkus(
      ctx.store,
      by(ctx),
      body.branch_id,
      'availability',
      body.items.map((i) => ({ sku: i.partner_item_id, change: availability(i.isAvailable) })),
    ),
  }),

  snoozeItem: async (ctx, { params, body }) => {
    const until = Date.parse(body.until);
    if (!(until > ctx.now)) {
      throw invalid(
        [{ path: ['body', 'until'], message: 'must be in the future' }],
        `until (${body.until}) must be in the future`,
      );
    }
    return (
      await applyToSkus(ctx.store, by(ctx), body.branch_id, 'snooze', [
        { sku: params.partner_item_id, change: snoozedUntil(until), until: iso(until) },
      ])
    )[0]!;
  },

  updateItemStocks: async (ctx, { body }) => ({
    branch_id: body.branch_id,
    items: await applyToSkus(
      ctx.store,
      by(ctx),
      body.branch_id,
      'stock',
      body.items.map((i) => ({ sku: i.partner_item_id, change: stockCount(i.stock) })),
    ),
  }),

  enableSections: (ctx, { body }) => setEnabledEntities(ctx.store, by(ctx), 'sections', body),
  enableCategories: (ctx, { body }) => setEnabledEntities(ctx.store, by(ctx), 'categories', body),
  enableItems: (ctx, { body }) => setEnabledEntities(ctx.store, by(ctx), 'items', body),

  listOOSActivitySummaries: async (ctx, { query }) => {
    const { total, rows } = await ctx.store.stock.summaries(
      activityFilter(query, ctx.now),
      query.size,
      offsetOf(query),
    );
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
        last_at: iso(r.last_at_ms),
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
