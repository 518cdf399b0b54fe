// Orders: status changes, comments and the operator's simulation of marketplace orders (what the
// handlers and the demo seed call). Every change writes its outbox event in the same unit.
import { STATUS_ID, type StatusCode } from '../../contract/order-statuses.js';
import type { Order, OrderEventType } from '../../contract/schemas/orders.js';
import type { MenuDef } from '../domain/menus.js';
import {
  simulateCart,
  simulateCustomer,
  simulateOrderType,
  simulateProvider,
} from '../domain/order-simulation.js';
import {
  type CatalogueItem,
  decide,
  generateCartLines,
  intBetween,
  isTerminal,
  type LineInput,
  nextUpdatedMs,
  type PricedCart,
  priceCart,
  type Rng,
  statusCodeOf,
} from '../domain/orders.js';
import { CURRENCIES, PROVIDERS } from '../domain/reference-data.js';
import { ApiError, invalid, invalidField, notFound } from '../errors.js';
import type { OrderRow } from '../store/orders-repo.js';
import type { TenantTx, Tx } from '../store/store.js';
import { loadBusinessMenu } from './menus/catalogue.js';

const iso = (ms: number) => new Date(ms).toISOString();

export type Actor = 'system' | 'partner' | 'operator';

/** The order of `id` in the tenant's business; another business's order is "not found". */
export async function requireOrder(t: TenantTx, id: number): Promise<OrderRow> {
  const r = await t.orders.get(id);
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

async function save(t: TenantTx, row: OrderRow, o: Order, updatedMs: number): Promise<string> {
  const record = JSON.stringify(wire(o));
  await t.orders.save(row.id, { status: o.status, updated_ms: updatedMs, record });
  return record;
}

function emit(
  t: TenantTx,
  type: OrderEventType,
  row: OrderRow,
  record: string,
  now: number,
): Promise<string> {
  return t.outbox.enqueue({
    type,
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

interface NewOrder {
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

/** Inserts an order (its status history is part of the record), without an event. */
export async function insertOrder(t: TenantTx, n: NewOrder): Promise<{ id: number; record: string }> {
  const history = n.history ?? [{ status: 'PLACED', atMs: n.createdMs, by: 'system' }];
  const last = history[history.length - 1]!;
  const updatedMs = Math.max(n.createdMs, last.atMs);
  const status = STATUS_ID[last.status];
  const id = await t.orders.nextId();
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
  await t.orders.insert({
    id,
    brand_id: n.brandId,
    branch_id: n.branchId,
    status,
    created_ms: n.createdMs,
    updated_ms: updatedMs,
    record,
  });
  return { id, record };
}

/**
 * Moves an order to `to` (the caller has decided it may), bumps `updated_at` strictly, appends to
 * its status_history and writes `service.order.status.updated` to the outbox, all in the caller's
 * unit. A cancellation reason is kept only while the order is CANCELLED.
 */
export async function changeStatus(
  t: TenantTx,
  row: OrderRow,
  to: StatusCode,
  by: Actor,
  now: number,
  reason?: string | null,
): Promise<{ record: string; event: string }> {
  const o = JSON.parse(row.record) as Order;
  const updatedMs = nextUpdatedMs(row.updated_ms, now);
  const at = iso(updatedMs);
  o.status = STATUS_ID[to];
  o.updated_at = at;
  o.cancellation_reason = to === 'CANCELLED' ? (reason?.trim() ?? null) : null;
  o.status_history.push({ status: o.status, at, by });
  // The event first: its seq is a read, and on PostgreSQL's one-statement path every read comes
  // before the writes (which then go out together, store/postgres/tx.ts).
  const record = JSON.stringify(wire(o));
  const event = await emit(t, 'service.order.status.updated', row, record, now);
  await t.orders.save(row.id, { status: o.status, updated_ms: updatedMs, record });
  return { record, event };
}

/** PATCH /orders/status: a partner move, checked against the transition table. Returns the record and its event's id. */
export async function patchStatus(
  t: TenantTx,
  b: { id: number; status: StatusCode; cancellation_reason?: string | null | undefined },
  now: number,
): Promise<{ record: string; event: string }> {
  const row = await requireOrder(t, b.id);
  const d = decide(statusCodeOf(row.status), b.status);
  if (!d.ok) {
    throw new ApiError(
      'state_invalid_transition',
      `order ${row.id} cannot move from ${d.from} to ${d.to}` +
        (d.allowed.length ? `; allowed: ${d.allowed.join(', ')}` : `; ${d.from} is final`),
      { from: d.from, to: d.to, allowed: d.allowed },
    );
  }
  return changeStatus(t, row, b.status, 'partner', now, b.cancellation_reason);
}

export async function setComment(t: TenantTx, id: number, comment: string | null | undefined, now: number) {
  const row = await requireOrder(t, id);
  const o = JSON.parse(row.record) as Order;
  const updatedMs = nextUpdatedMs(row.updated_ms, now);
  o.comment = comment?.trim() ? comment : null;
  o.updated_at = iso(updatedMs);
  return save(t, row, o, updatedMs);
}

// ─── Simulation (operator) ──────────────────────────────────────────────────────────────────

interface BranchFacts {
  currency: string;
  decimals: number;
  countryCode: string;
  brandIds: number[];
}

export async function branchFacts(t: TenantTx, branchId: number): Promise<BranchFacts | undefined> {
  const branch = await t.branches.get(branchId);
  if (!branch) return undefined;
  const b = JSON.parse(branch.record) as { currency_code: string; country_code: string; brand_ids: number[] };
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

/** The item's price on `providerId`, else its price on the lowest provider id that has one. */
function priceOn(prices: Record<string, string>, providerId: number): string | undefined {
  if (prices[String(providerId)] !== undefined) return prices[String(providerId)];
  const first = Object.keys(prices).sort((a, b) => Number(a) - Number(b))[0];
  return first === undefined ? undefined : prices[first];
}

/**
 * The brand's own authored menu (business level) as a cart catalogue: its enabled items visible
 * on the provider, with their SKUs, modifier groups and the provider's prices. Empty when the
 * brand has no menu yet.
 */
function menuCatalogue(menu: MenuDef, providerId: number): CatalogueItem[] {
  const items = new Map(menu.items.map((i) => [i.id, i]));
  const groups = new Map(menu.modifierGroups.map((g) => [g.id, g]));
  const out: CatalogueItem[] = [];
  for (const it of menu.items) {
    if (it.onlyModifier || !it.enabled) continue;
    if (it.visibilities[String(providerId)] === false) continue;
    const price = priceOn(it.prices, providerId);
    if (price === undefined) continue;
    const offered = it.modifier_group_ids.flatMap((id) => {
      const g = groups.get(id);
      return g ? [g] : [];
    });
    out.push({
      item_id: it.id,
      partner_item_id: it.partner_item_id,
      title: it.title,
      price,
      groups: offered.map((g) => ({
        title: g.title,
        min: g.min,
        max: g.max,
        options: g.modifier_ids.flatMap((id) => {
          const m = items.get(id);
          const mp = m?.enabled ? priceOn(m.prices, providerId) : undefined;
          return m && mp !== undefined ? [{ item_id: m.id, title: m.title, price: mp }] : [];
        }),
      })),
    });
  }
  return out;
}

/**
 * A generated cart of `lines` lines (default 2–4): from the brand's own menu (its SKUs, priced
 * for the provider) when it has one, else from the sample menus of `order-simulation.ts`.
 */
export async function generatedLines(
  t: TenantTx,
  brandId: number,
  branch: { countryCode: string; currency: string },
  providerId: number,
  rng: Rng,
  lines?: number,
): Promise<LineInput[]> {
  const n = lines ?? intBetween(rng, 2, 4);
  const own = menuCatalogue(await loadBusinessMenu(t, brandId), providerId);
  if (own.length > 0) return generateCartLines(own, n, rng);
  return simulateCart(
    (await t.brands.get(brandId))?.title ?? '',
    branch.countryCode,
    branch.currency,
    rng,
    n,
  );
}

interface SimulateInput {
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

/** A marketplace order landing at a branch: PLACED by `system`, fires `service.order.created.v2`. */
export async function simulateOrder(tx: Tx, input: SimulateInput, now: number, rng: Rng = Math.random) {
  if (!(await tx.businesses.get(input.business_id))) {
    throw invalidField(['body', 'business_id'], `no business ${input.business_id}`);
  }
  const t = tx.tenant(input.business_id);
  if (!(await t.brands.get(input.brand_id))) {
    throw invalidField(['body', 'brand_id'], `business ${input.business_id} has no brand ${input.brand_id}`);
  }
  const branch = await branchFacts(t, input.branch_id);
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
  const lines =
    input.cart ?? (await generatedLines(t, input.brand_id, branch, provider.id, rng, input.items));
  const cart = priced(lines, branch.decimals, ['body', 'cart']);
  const { record, id } = await insertOrder(t, {
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
  await t.outbox.enqueue({
    type: 'service.order.created.v2',
    brandId: input.brand_id,
    branchId: input.branch_id,
    orderId: id,
    orders: [record],
    now,
  });
  return record;
}

/** Replaces the cart of an open order (any business: the operator's); fires `service.order.cart.updated`. */
export async function replaceCart(
  tx: Tx,
  id: number,
  input: { items?: number | undefined; cart?: LineInput[] | undefined },
  now: number,
  rng: Rng = Math.random,
): Promise<string> {
  const any = await tx.orders.get(id);
  if (!any) throw notFound('order', id);
  const t = tx.tenant(any.business_id);
  const row = await requireOrder(t, id);
  const o = JSON.parse(row.record) as Order;
  const status = statusCodeOf(row.status);
  if (isTerminal(status)) {
    throw new ApiError('state_invalid_transition', `the cart of a ${status} order can no longer change`, {
      status,
    });
  }
  const branch = await branchFacts(t, row.branch_id);
  const decimals = branch?.decimals ?? CURRENCIES.find((c) => c.code === o.currency)?.decimals ?? 2;
  const lines =
    input.cart ??
    (await generatedLines(
      t,
      row.brand_id,
      { countryCode: branch?.countryCode ?? '', currency: o.currency },
      o.provider_id,
      rng,
      input.items,
    ));
  const cart = priced(lines, decimals, ['body', 'cart']);
  const updatedMs = nextUpdatedMs(row.updated_ms, now);
  o.cart = cart.cart;
  o.total = cart.total;
  o.updated_at = iso(updatedMs);
  const record = JSON.stringify(wire(o));
  await emit(t, 'service.order.cart.updated', row, record, now);
  await t.orders.save(row.id, { status: o.status, updated_ms: updatedMs, record });
  return record;
}

/** The operator's status change: any status, no transition check (operator actions). */
export async function operatorSetStatus(
  tx: Tx,
  id: number,
  b: { status: StatusCode; cancellation_reason?: string | null | undefined },
  now: number,
): Promise<string> {
  const any = await tx.orders.get(id);
  if (!any) throw notFound('order', id);
  const t = tx.tenant(any.business_id);
  const reason = b.status === 'CANCELLED' ? (b.cancellation_reason ?? 'cancelled by operator') : null;
  return (await changeStatus(t, await requireOrder(t, id), b.status, 'operator', now, reason)).record;
}
