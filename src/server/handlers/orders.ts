import { STATUS_ID, type StatusCode } from '../../contract/order-statuses.js';
import type { Order, OrderEventType } from '../../contract/schemas/orders.js';
import {
  type CatalogueItem,
  generateCartLines,
  intBetween,
  type LineInput,
  type PricedCart,
  type Rng,
  decide,
  isTerminal,
  nextUpdatedMs,
  priceCart,
  resolveRange,
  statusCodeOf,
} from '../domain/orders.js';
import {
  simulateCart,
  simulateCustomer,
  simulateOrderType,
  simulateProvider,
} from '../domain/order-simulation.js';
import { offsetOf } from '../domain/pagination.js';
import { CURRENCIES, PROVIDERS } from '../domain/reference-data.js';
import { ApiError, invalid, invalidField, notFound } from '../errors.js';
import { type HandlersFor, RawJson } from './context.js';
import { sql } from '../store/sqlite/statements.js';
import { enqueueEvent } from '../outbox/outbox.js';
import type { Db } from '../store/sqlite/db.js';

const iso = (ms: number) => new Date(ms).toISOString();

export type Actor = 'system' | 'partner' | 'operator';

interface OrderRow {
  id: number;
  business_id: number;
  brand_id: number;
  branch_id: number;
  status: number;
  created_ms: number;
  updated_ms: number;
  record: string;
}

// ─── Store ──────────────────────────────────────────────────────────────────────────────────

/** The order of `id` in `businessId`; another business's order is "not found" (tenancy). */
function orderRow(db: Db, businessId: number, id: number): OrderRow {
  const r = sql(db, 'SELECT * FROM orders WHERE id = ? AND business_id = ?').get(id, businessId) as
    | OrderRow
    | undefined;
  if (!r) throw notFound('order', id);
  return r;
}

function anyOrderRow(db: Db, id: number): OrderRow {
  const r = sql(db, 'SELECT * FROM orders WHERE id = ?').get(id) as OrderRow | undefined;
  if (!r) throw notFound('order', id);
  return r;
}

/** The wire record with its keys in a fixed order (2.8 fields first, then this server's additions, docs/orders.md). */
function wire(o: Order): Order {
  return {
    id: o.id,
    status: o.status,
    placed_at: o.placed_at,
    currency: o.currency,
    total: o.total,
    cart: o.cart,
    customer: o.customer,
    branch_id: o.branch_id,
    brand_id: o.brand_id,
    updated_at: o.updated_at,
    order_type_id: o.order_type_id,
    provider_id: o.provider_id,
    comment: o.comment,
    cancellation_reason: o.cancellation_reason,
    created_at: o.created_at,
    status_history: o.status_history,
  };
}

function save(db: Db, row: OrderRow, o: Order, updatedMs: number): string {
  const record = JSON.stringify(wire(o));
  sql(db, 'UPDATE orders SET status = ?, updated_ms = ?, record = ? WHERE id = ?').run(
    o.status,
    updatedMs,
    record,
    row.id,
  );
  return record;
}

function emit(db: Db, type: OrderEventType, row: OrderRow, record: string, now: number): void {
  enqueueEvent(db, {
    type,
    businessId: row.business_id,
    brandId: row.brand_id,
    branchId: row.branch_id,
    orderId: row.id,
    orders: [record],
    now,
  });
}

export interface HistoryEntry {
  status: StatusCode;
  atMs: number;
  by: Actor;
}

export interface NewOrder {
  businessId: number;
  brandId: number;
  branchId: number;
  currency: string;
  cart: PricedCart;
  customer: { name: string; phone: string };
  orderTypeId: 1 | 2 | 3;
  providerId: number;
  placedMs: number;
  createdMs: number;
  comment?: string | null;
  cancellationReason?: string | null;
  /** Oldest first; the last entry is the current status. Default: PLACED by system at createdMs. */
  history?: HistoryEntry[];
}

/** Inserts an order (its status history is part of the record); the caller holds the transaction. */
export function insertOrder(db: Db, n: NewOrder): { id: number; record: string } {
  const history = n.history ?? [{ status: 'PLACED', atMs: n.createdMs, by: 'system' }];
  const last = history[history.length - 1]!;
  const updatedMs = Math.max(n.createdMs, last.atMs);
  const status = STATUS_ID[last.status];
  if (!db.inTransaction) throw new Error('insertOrder must run inside a transaction');
  // The caller's transaction holds the write lock: the next id is ours.
  const id = sql(db, 'SELECT coalesce(max(id), 0) + 1 FROM orders').pluck().get() as number;
  const record = JSON.stringify(
    wire({
      id,
      status,
      placed_at: iso(n.placedMs),
      currency: n.currency,
      total: n.cart.total,
      cart: n.cart.cart,
      customer: n.customer,
      branch_id: n.branchId,
      brand_id: n.brandId,
      updated_at: iso(updatedMs),
      order_type_id: n.orderTypeId,
      provider_id: n.providerId,
      comment: n.comment || null,
      cancellation_reason: last.status === 'CANCELLED' ? (n.cancellationReason ?? null) : null,
      created_at: iso(n.createdMs),
      status_history: history.map((h) => ({ status: STATUS_ID[h.status], at: iso(h.atMs), by: h.by })),
    }),
  );
  sql(
    db,
    'INSERT INTO orders (id, business_id, brand_id, branch_id, status, created_ms, updated_ms, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(id, n.businessId, n.brandId, n.branchId, status, n.createdMs, updatedMs, record);
  return { id, record };
}

/**
 * Moves an order to `to` (the caller has decided it may), bumps `updated_at` strictly, appends
 * to its status_history and writes `service.order.status.updated` to the outbox, all in the caller's
 * transaction. A cancellation reason is kept only while the order is CANCELLED.
 */
export function changeStatus(
  db: Db,
  row: OrderRow,
  to: StatusCode,
  by: Actor,
  now: number,
  reason?: string | null,
): string {
  const o = JSON.parse(row.record) as Order;
  const updatedMs = nextUpdatedMs(row.updated_ms, now);
  const at = iso(updatedMs);
  o.status = STATUS_ID[to];
  o.updated_at = at;
  o.cancellation_reason = to === 'CANCELLED' ? (reason?.trim() ?? null) : null;
  o.status_history.push({ status: o.status, at, by });
  const record = save(db, row, o, updatedMs);
  emit(db, 'service.order.status.updated', row, record, now);
  return record;
}

// ─── Simulation (operator) ──────────────────────────────────────────────────────────────────

export interface BranchFacts {
  currency: string;
  decimals: number;
  countryCode: string;
  brandIds: number[];
}

export function branchFacts(db: Db, businessId: number, branchId: number): BranchFacts | undefined {
  const rec = sql(db, 'SELECT record FROM branches WHERE id = ? AND business_id = ? AND deleted_at IS NULL')
    .pluck()
    .get(branchId, businessId) as string | undefined;
  if (!rec) return undefined;
  const b = JSON.parse(rec) as { currency_code: string; country_code: string; brand_ids: number[] };
  const decimals = CURRENCIES.find((c) => c.code === b.currency_code)?.decimals ?? 2;
  return { currency: b.currency_code, decimals, countryCode: b.country_code, brandIds: b.brand_ids };
}

function priced(lines: LineInput[], decimals: number, root: string[]): PricedCart {
  const p = priceCart(lines, decimals);
  if ('issues' in p) {
    throw invalid(
      p.issues.map((i) => ({ path: [...root, ...i.path], message: i.message })),
      `invalid cart: ${p.issues.map((i) => `${[...root, ...i.path].join('.')} ${i.message}`).join('; ')}`,
    );
  }
  return p;
}

export function brandTitle(db: Db, brandId: number): string {
  return (sql(db, 'SELECT title FROM brands WHERE id = ?').pluck().get(brandId) as string | undefined) ?? '';
}

interface MenuRow {
  id: number;
  title: string;
  partner_item_id: string;
  prices: string;
  visibilities: string;
}

/** The item's price on `providerId`, else its price on the lowest provider id that has one. */
function priceOn(pricesJson: string, providerId: number): string | undefined {
  const prices = JSON.parse(pricesJson) as Record<string, string>;
  if (prices[String(providerId)] !== undefined) return prices[String(providerId)];
  const first = Object.keys(prices).sort((a, b) => Number(a) - Number(b))[0];
  return first === undefined ? undefined : prices[first];
}

/**
 * The brand's own authored menu (business level) as a cart catalogue: its enabled items visible
 * on the provider, with their SKUs, modifier groups and the provider's prices. Empty when the
 * brand has no menu yet.
 */
export function menuCatalogue(db: Db, brandId: number, providerId: number): CatalogueItem[] {
  const items = sql(
    db,
    'SELECT id, title, partner_item_id, prices, visibilities FROM menu_items WHERE brand_id = ? AND only_modifier = 0 AND enabled = 1 ORDER BY id',
  ).all(brandId) as MenuRow[];
  const out: CatalogueItem[] = [];
  for (const it of items) {
    if ((JSON.parse(it.visibilities) as Record<string, boolean>)[String(providerId)] === false) continue;
    const price = priceOn(it.prices, providerId);
    if (price === undefined) continue;
    const groups = (
      sql(
        db,
        `SELECT g.id, g.title, g.min_choices, g.max_choices FROM menu_item_groups ig
         JOIN menu_modifier_groups g ON g.id = ig.group_id WHERE ig.item_id = ? ORDER BY ig.seq`,
      ).all(it.id) as { id: number; title: string; min_choices: number; max_choices: number }[]
    ).map((g) => ({
      title: g.title,
      min: g.min_choices,
      max: g.max_choices,
      options: (
        sql(
          db,
          `SELECT m.id, m.title, m.partner_item_id, m.prices, m.visibilities FROM menu_group_modifiers gm
           JOIN menu_items m ON m.id = gm.modifier_id WHERE gm.group_id = ? AND m.enabled = 1 ORDER BY gm.seq`,
        ).all(g.id) as MenuRow[]
      ).flatMap((m) => {
        const mp = priceOn(m.prices, providerId);
        return mp === undefined ? [] : [{ item_id: m.id, title: m.title, price: mp }];
      }),
    }));
    out.push({ item_id: it.id, partner_item_id: it.partner_item_id, title: it.title, price, groups });
  }
  return out;
}

/**
 * A generated cart of `lines` lines (default 2–4): from the brand's own menu (its SKUs, priced
 * for the provider) when it has one, else from the sample menus of `order-simulation.ts`.
 */
export function generatedLines(
  db: Db,
  brandId: number,
  branch: { countryCode: string; currency: string },
  providerId: number,
  rng: Rng,
  lines?: number,
): LineInput[] {
  const n = lines ?? intBetween(rng, 2, 4);
  const own = menuCatalogue(db, brandId, providerId);
  if (own.length > 0) return generateCartLines(own, n, rng);
  return simulateCart(brandTitle(db, brandId), branch.countryCode, branch.currency, rng, n);
}

export interface SimulateInput {
  business_id: number;
  brand_id: number;
  branch_id: number;
  items?: number | undefined;
  cart?: LineInput[] | undefined;
  order_type_id?: 1 | 2 | 3 | undefined;
  provider_id?: number | undefined;
  customer?: { name: string; phone: string } | undefined;
  comment?: string | undefined;
}

/**
 * A marketplace order landing at a branch: PLACED by `system`, fires
 * `service.order.created.v2`. Runs in the caller's transaction.
 */
export function simulateOrder(db: Db, input: SimulateInput, now: number, rng: Rng = Math.random): string {
  if (!sql(db, 'SELECT 1 FROM businesses WHERE id = ?').get(input.business_id)) {
    throw invalidField(['body', 'business_id'], `no business ${input.business_id}`);
  }
  if (
    !sql(db, 'SELECT 1 FROM brands WHERE id = ? AND business_id = ?').get(input.brand_id, input.business_id)
  ) {
    throw invalidField(['body', 'brand_id'], `business ${input.business_id} has no brand ${input.brand_id}`);
  }
  const branch = branchFacts(db, input.business_id, input.branch_id);
  if (!branch)
    throw invalidField(
      ['body', 'branch_id'],
      `business ${input.business_id} has no branch ${input.branch_id}`,
    );
  if (!branch.brandIds.includes(input.brand_id)) {
    throw invalidField(
      ['body', 'brand_id'],
      `branch ${input.branch_id} does not carry brand ${input.brand_id}`,
    );
  }
  let provider = simulateProvider(branch.countryCode, rng);
  if (input.provider_id !== undefined) {
    const p = PROVIDERS.find((x) => x.id === input.provider_id);
    if (!p) throw invalidField(['body', 'provider_id'], `no provider ${input.provider_id}`);
    provider = p;
  }
  const lines = input.cart ?? generatedLines(db, input.brand_id, branch, provider.id, rng, input.items);
  const cart = priced(lines, branch.decimals, ['body', 'cart']);
  const { record, id } = insertOrder(db, {
    businessId: input.business_id,
    brandId: input.brand_id,
    branchId: input.branch_id,
    currency: branch.currency,
    cart,
    customer: input.customer ?? simulateCustomer(branch.countryCode, rng),
    orderTypeId: input.order_type_id ?? simulateOrderType(provider, rng),
    providerId: provider.id,
    // The marketplace took the order a few seconds before it reached the restaurant.
    placedMs: now - 1000 * (2 + Math.floor(rng() * 20)),
    createdMs: now,
    comment: input.comment ?? null,
  });
  enqueueEvent(db, {
    type: 'service.order.created.v2',
    businessId: input.business_id,
    brandId: input.brand_id,
    branchId: input.branch_id,
    orderId: id,
    orders: [record],
    now,
  });
  return record;
}

/** Replaces the cart of an open order; fires `service.order.cart.updated`. Caller's transaction. */
export function replaceCart(
  db: Db,
  id: number,
  input: { items?: number | undefined; cart?: LineInput[] | undefined },
  now: number,
  rng: Rng = Math.random,
): string {
  const row = anyOrderRow(db, id);
  const o = JSON.parse(row.record) as Order;
  const status = statusCodeOf(row.status);
  if (isTerminal(status)) {
    throw new ApiError('state_invalid_transition', `the cart of a ${status} order can no longer change`, {
      status,
    });
  }
  const branch = branchFacts(db, row.business_id, row.branch_id);
  const decimals = branch?.decimals ?? CURRENCIES.find((c) => c.code === o.currency)?.decimals ?? 2;
  const lines =
    input.cart ??
    generatedLines(
      db,
      row.brand_id,
      { countryCode: branch?.countryCode ?? '', currency: o.currency },
      o.provider_id,
      rng,
      input.items,
    );
  const cart = priced(lines, decimals, ['body', 'cart']);
  const updatedMs = nextUpdatedMs(row.updated_ms, now);
  o.cart = cart.cart;
  o.total = cart.total;
  o.updated_at = iso(updatedMs);
  const record = save(db, row, o, updatedMs);
  emit(db, 'service.order.cart.updated', row, record, now);
  return record;
}

// ─── Handlers ───────────────────────────────────────────────────────────────────────────────

const parseMs = (s: string | undefined) => (s === undefined ? undefined : Date.parse(s));

export const orderHandlers: HandlersFor<
  | 'listOrders'
  | 'getOrder'
  | 'patchOrderStatus'
  | 'setOrderComment'
  | 'operatorCreateOrder'
  | 'operatorReplaceOrderCart'
  | 'operatorSetOrderStatus'
> = {
  listOrders: ({ db, businessId, now }, { query }) => {
    const range = resolveRange(parseMs(query.from), parseMs(query.to), now);
    if (!range.ok) {
      throw new ApiError(range.code, range.message, [
        { path: ['query', range.code === 'request_invalid' ? 'from' : 'to'], message: range.message },
      ]);
    }
    let where = 'business_id = ? AND created_ms >= ? AND created_ms <= ?';
    const args: number[] = [businessId, range.fromMs, range.toMs];
    if (query.branch_id !== undefined) {
      where += ' AND branch_id = ?';
      args.push(query.branch_id);
    }
    if (query.brand_id !== undefined) {
      where += ' AND brand_id = ?';
      args.push(query.brand_id);
    }
    if (query.status?.length) {
      where += ` AND status IN (${query.status.map(() => '?').join(', ')})`;
      args.push(...query.status.map((s) => STATUS_ID[s]));
    }
    const total = sql(db, `SELECT count(*) FROM orders WHERE ${where}`)
      .pluck()
      .get(...args) as number;
    const rows = sql(
      db,
      `SELECT record FROM orders WHERE ${where} ORDER BY created_ms DESC, id DESC LIMIT ? OFFSET ?`,
    )
      .pluck()
      .all(...args, query.size, offsetOf(query)) as string[];
    return new RawJson(
      `{"results":[${rows.join(',')}],"page":${query.page},"size":${query.size},"total":${total}}`,
    );
  },

  getOrder: ({ db, businessId }, { params }) => new RawJson(orderRow(db, businessId, params.id).record),

  patchOrderStatus: ({ db, businessId, now }, { body }) => {
    const row = orderRow(db, businessId, body.id);
    const d = decide(statusCodeOf(row.status), body.status);
    if (!d.ok) {
      throw new ApiError(
        'state_invalid_transition',
        `order ${row.id} cannot move from ${d.from} to ${d.to}` +
          (d.allowed.length ? `; allowed: ${d.allowed.join(', ')}` : `; ${d.from} is final`),
        { from: d.from, to: d.to, allowed: d.allowed },
      );
    }
    return new RawJson(changeStatus(db, row, body.status, 'partner', now, body.cancellation_reason));
  },

  setOrderComment: ({ db, businessId, now }, { params, body }) => {
    const row = orderRow(db, businessId, params.id);
    const o = JSON.parse(row.record) as Order;
    const updatedMs = nextUpdatedMs(row.updated_ms, now);
    o.comment = body.comment?.trim() ? body.comment : null;
    o.updated_at = iso(updatedMs);
    return new RawJson(save(db, row, o, updatedMs));
  },

  operatorCreateOrder: ({ store, db, now }, { body }) =>
    store.write(async () => new RawJson(simulateOrder(db, body, now))),

  operatorReplaceOrderCart: ({ store, db, now }, { params, body }) =>
    store.write(async () => new RawJson(replaceCart(db, params.id, body, now))),

  operatorSetOrderStatus: ({ store, db, now }, { params, body }) =>
    store.write(async () => {
      const row = anyOrderRow(db, params.id);
      const reason =
        body.status === 'CANCELLED' ? (body.cancellation_reason ?? 'cancelled by operator') : null;
      return new RawJson(changeStatus(db, row, body.status, 'operator', now, reason));
    }),
};
