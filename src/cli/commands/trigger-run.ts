import { formatDuration } from '../../contract/duration.js';
import { Chalk } from 'chalk';
import type { PartnerClient } from '../../client/client.js';
import { type StatusCode, statusName } from '../../contract/order-statuses.js';
import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';
import type { TriggerOptions } from './trigger.js';

// The body of `partner trigger` (docs/cli.md): the operator API's order simulation (create, set
// status, replace cart) fires the real events; the webhook log then says what was delivered.

const EVENT_TYPES = {
  'order.created': 'service.order.created.v2',
  'order.status': 'service.order.status.updated',
  'order.cart': 'service.order.cart.updated',
} as const;
type Trigger = keyof typeof EVENT_TYPES;

/**
 * The next step of an order on the partner's forward path (docs/orders.md): the first partner move
 * from each status other than CANCELLED. Statuses missing here have none (terminal ones, and the
 * driver steps, from which a partner may only cancel). trigger-run.test.ts checks this against
 * the server's transition table.
 */
export const NEXT_STATUS: Readonly<Partial<Record<StatusCode, StatusCode>>> = Object.freeze({
  PLACED: 'ACCEPTED',
  PENDING: 'ACCEPTED',
  SCHEDULED: 'ACCEPTED',
  ACCEPTED: 'READY',
  READY: 'DELIVERED',
  'PICKED UP': 'DELIVERED',
});

/**
 * The default bound on the wait for each receiver's first answer. The wait ends as soon as every
 * first attempt is recorded, so this only matters when one is not: above the local server's
 * delivery timeout (10 s), so a receiver that never answers is reported as timed out rather than
 * still under way, with room for a busy machine.
 */
const REPORT_WAIT_MS = 15_000;
/** Receivers unknown (no profile of this server): the first delivery of each type, for a shorter time. */
const UNKNOWN_WAIT_MS = 2_000;

function triggerOf(word: string): Trigger {
  for (const [k, v] of Object.entries(EVENT_TYPES)) if (word === k || word === v) return k as Trigger;
  throw new UsageError(
    `unknown event "${word}": one of ${Object.keys(EVENT_TYPES).join(', ')} (or ${Object.values(EVENT_TYPES).join(', ')})`,
  );
}

interface OrderLike {
  id: number;
  status: number;
  brand_id: number;
  branch_id: number;
  total: string;
  currency: string;
  cart: unknown[];
  status_history?: { status: number }[];
}

interface DeliveryLike {
  id: number;
  event_id: string;
  event_type: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  batched_event_ids: string[];
  log: { status_code: number | null; duration_ms: number; error: string | null }[];
}

interface FiredDelivery {
  id: number;
  event_id: string;
  /** New orders of the same branch that went in the same delivery (their events' ids). */
  batched_event_ids: string[];
  url: string;
  status: DeliveryLike['status'];
  attempts: number;
  /** An attempt was sent and its outcome is not recorded yet: the delivery is still under way. */
  in_flight: boolean;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
}

interface Fired {
  event_type: string;
  order_id: number;
  brand_id: number;
  branch_id: number;
  /** order.status: the change made. */
  from?: string;
  to?: string;
  /**
   * Event ids of the deliveries of this type made since the trigger began (x-partner-event-id;
   * several receivers share one), then the ids batched into them.
   */
  event_ids: string[];
  deliveries: FiredDelivery[];
}

interface Place {
  businessId: number;
  brandId: number;
  branchId: number;
}

/** The business of the active profile's credential on this local server. */
async function profileBusiness(ctx: Ctx, operator: PartnerClient) {
  let resolved: Awaited<ReturnType<Ctx['partner']>>;
  try {
    resolved = await ctx.partner();
  } catch (err) {
    if ((err as Error).name !== 'UsageError') throw err;
    throw new UsageError(
      `${(err as Error).message}; or name the new order's place with --business ID --brand ID --branch ID`,
    );
  }
  const creds = (await operator.call('operatorListCredentials')) as { key: string; business_id: number }[];
  const mine = creds.find((c) => c.key === resolved.target.key);
  if (!mine)
    throw new UsageError(
      `${resolved.target.key} (${resolved.target.source}) is not a credential of the local server at ${operator.baseUrl}: use the profile \`partner local start --seed demo\` saved (--profile local), or pass --business ID --brand ID --branch ID`,
    );
  return { businessId: mine.business_id, ...resolved };
}

/** Where a new order lands: the flags, else the profile's defaults, else the business's first brand and branch. */
async function placeOfNewOrder(
  ctx: Ctx,
  operator: PartnerClient,
  flags: { business?: number; brand?: number; branch?: number },
): Promise<Place> {
  if (flags.business !== undefined && flags.brand !== undefined && flags.branch !== undefined)
    return { businessId: flags.business, brandId: flags.brand, branchId: flags.branch };
  const mine = await profileBusiness(ctx, operator);
  if (flags.business !== undefined && flags.business !== mine.businessId)
    throw new UsageError(
      `--business ${flags.business} is not the business of ${mine.target.key} (${mine.businessId}): pass --brand and --branch too`,
    );
  const { client, target } = mine;
  let brandId = flags.brand ?? target.profile?.default_brand_id;
  if (brandId === undefined) {
    const entries = (await client.call('listBrands')) as { brands: { id: number }[] }[];
    const ids = entries.flatMap((e) => e.brands.map((b) => b.id)).sort((a, b) => a - b);
    if (!ids.length) throw new UsageError(`business ${mine.businessId} has no brand: create one first`);
    brandId = ids[0]!;
  }
  let branchId = flags.branch ?? target.profile?.default_branch_id;
  if (branchId === undefined) {
    for await (const b of client.paginate<{ id: number; brand_ids: number[] }>('listBranches', {
      size: 100,
      maxPages: 20,
    })) {
      if (b.brand_ids.includes(brandId) && (branchId === undefined || b.id < branchId)) branchId = b.id;
    }
    if (branchId === undefined)
      throw new UsageError(`brand ${brandId} is carried by no branch: pass --branch ID`);
  }
  return { businessId: mine.businessId, brandId, branchId };
}

/** The status of an existing order, read with the active profile (the operator API has no order read). */
async function currentStatus(ctx: Ctx, orderId: number): Promise<StatusCode> {
  let client: PartnerClient;
  try {
    client = (await ctx.partner()).client;
  } catch (err) {
    if ((err as Error).name !== 'UsageError') throw err;
    throw new UsageError(
      `order.status picks the next status from the order's current one, read with a profile: ${(err as Error).message}; or pass --status S`,
    );
  }
  try {
    const o = (await client.call('getOrder', { params: { id: orderId } })) as OrderLike;
    return statusName(o.status) as StatusCode;
  } catch (err) {
    // Carried on the error, so it prints after the error line (output/errors.ts).
    if ((err as { status?: number }).status === 404)
      (err as { hint?: string }).hint =
        `the active profile cannot see order ${orderId} (it may not exist, or belong to another business); pass --status S to set one without reading it`;
    throw err;
  }
}

/** Registered receivers (distinct URLs) of each fired event type, as the dispatcher chooses them. */
async function receiverCounts(
  operator: PartnerClient,
  place: Place,
  types: string[],
): Promise<Map<string, number>> {
  const hooks = (await operator.call('operatorListWebhooks', {
    query: { business_id: place.businessId },
  })) as {
    brand_id: number | null;
    branch_id: number | null;
    event: string;
    url: string;
  }[];
  const counts = new Map<string, number>();
  for (const type of types) {
    const urls = new Set(
      hooks
        .filter(
          (h) =>
            (h.brand_id === null || h.brand_id === place.brandId) &&
            (h.branch_id === null || h.branch_id === place.branchId) &&
            (h.event === 'all' || h.event === type),
        )
        .map((h) => h.url),
    );
    counts.set(type, urls.size);
  }
  return counts;
}

async function newestDeliveryId(operator: PartnerClient): Promise<number> {
  const log = (await operator.call('operatorWebhookLog', { query: { limit: 1 } })) as DeliveryLike[];
  return log[0]?.id ?? 0;
}

/**
 * An attempt is under way: the dispatcher counts an attempt when it claims the delivery, and
 * records its outcome (the log entry) once the receiver has answered, refused or timed out.
 */
const inFlight = (d: DeliveryLike) => d.status === 'pending' && d.attempts > d.log.length;

/** The first attempt's outcome is known (a delivery settled otherwise, e.g. by a replay, counts too). */
const answered = (d: DeliveryLike) => d.status !== 'pending' || d.log.length >= 1;

/**
 * The deliveries made since `before` of the fired event types, once the outcome of each expected
 * receiver's first attempt is recorded (or after `waitMs`: what is known then). `expected`
 * undefined: receivers unknown, so the first delivery of each type is waited for.
 */
async function deliveriesSince(
  operator: PartnerClient,
  before: number,
  types: string[],
  expected: Map<string, number> | undefined,
  waitMs: number,
): Promise<Map<string, DeliveryLike[]>> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const log = (await operator.call('operatorWebhookLog', { query: { limit: 200 } })) as DeliveryLike[];
    const got = new Map<string, DeliveryLike[]>(types.map((t) => [t, []]));
    for (const d of log) if (d.id > before && got.has(d.event_type)) got.get(d.event_type)!.push(d);
    for (const list of got.values()) list.sort((a, b) => a.id - b.id);
    const done = types.every((t) => {
      const list = got.get(t)!;
      return list.length >= (expected?.get(t) ?? 1) && list.every(answered);
    });
    if (done || performance.now() >= deadline) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function deliveryOut(d: DeliveryLike): FiredDelivery {
  const last = d.log.at(-1);
  return {
    id: d.id,
    event_id: d.event_id,
    batched_event_ids: d.batched_event_ids ?? [],
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    in_flight: inFlight(d),
    status_code: last?.status_code ?? null,
    duration_ms: last?.duration_ms ?? null,
    error: last?.error ?? null,
  };
}

export async function runTrigger(ctx: Ctx, word: string, opts: TriggerOptions): Promise<number> {
  const { io } = ctx;
  const trigger = triggerOf(word);
  const orderId = opts.order;
  const items = opts.items;
  const waitMs = opts.wait ?? REPORT_WAIT_MS;
  const flags = {
    ...(opts.business !== undefined ? { business: opts.business } : {}),
    ...(opts.brand !== undefined ? { brand: opts.brand } : {}),
    ...(opts.branch !== undefined ? { branch: opts.branch } : {}),
  };
  const wanted = opts.status;
  if (wanted !== undefined && trigger !== 'order.status')
    throw new UsageError('--status goes with order.status only');
  if (orderId !== undefined && trigger === 'order.created')
    throw new UsageError(
      '--order: order.created always makes a new order (order.status and order.cart take --order)',
    );
  if (orderId !== undefined && Object.keys(flags).length > 0)
    throw new UsageError(
      '--business, --brand and --branch place a new order; --order names an existing one: not both',
    );

  const { client: operator } = await ctx.operator({
    ...(opts.server !== undefined ? { server: opts.server } : {}),
    ...(opts.token !== undefined ? { token: opts.token } : {}),
    ...(opts.data !== undefined ? { dataDir: opts.data } : {}),
  });

  // Checked before any change: a missing profile or status must not leave a stray order behind.
  const place = orderId === undefined ? await placeOfNewOrder(ctx, operator, flags) : undefined;
  const before = await newestDeliveryId(operator);
  const fired: Omit<Fired, 'event_ids' | 'deliveries'>[] = [];
  let order: OrderLike | undefined;
  if (place) {
    order = (await operator.call('operatorCreateOrder', {
      body: {
        business_id: place.businessId,
        brand_id: place.brandId,
        branch_id: place.branchId,
        ...(items !== undefined && trigger !== 'order.cart' ? { items } : {}),
      },
    })) as OrderLike;
    fired.push({
      event_type: EVENT_TYPES['order.created'],
      order_id: order.id,
      brand_id: order.brand_id,
      branch_id: order.branch_id,
    });
  }
  const id = order?.id ?? orderId!;
  if (trigger === 'order.status') {
    const from = order
      ? (statusName(order.status) as StatusCode)
      : wanted
        ? undefined
        : await currentStatus(ctx, id);
    let to = wanted;
    if (!to) {
      to = NEXT_STATUS[from!];
      if (!to)
        throw new UsageError(
          `order ${id} is ${from}: ${['DELIVERED', 'CANCELLED', 'VOID'].includes(from!) ? 'a final status, nothing follows it' : 'a partner may only cancel it from here'}; pass --status S to set one anyway (the operator may set any)`,
        );
    }
    order = (await operator.call('operatorSetOrderStatus', {
      params: { id },
      body: { status: to },
    })) as OrderLike;
    const history = order.status_history ?? [];
    const previous = history.length >= 2 ? statusName(history[history.length - 2]!.status) : undefined;
    fired.push({
      event_type: EVENT_TYPES['order.status'],
      order_id: id,
      brand_id: order.brand_id,
      branch_id: order.branch_id,
      ...((from ?? previous) ? { from: from ?? previous } : {}),
      to: statusName(order.status),
    });
  }
  if (trigger === 'order.cart') {
    order = (await operator.call('operatorReplaceOrderCart', {
      params: { id },
      body: items !== undefined ? { items } : {},
    })) as OrderLike;
    fired.push({
      event_type: EVENT_TYPES['order.cart'],
      order_id: id,
      brand_id: order.brand_id,
      branch_id: order.branch_id,
    });
  }

  // What reached the receivers: the webhook log since `before`, for these event types.
  const types = fired.map((f) => f.event_type);
  let businessId = place?.businessId;
  if (businessId === undefined) {
    try {
      businessId = (await profileBusiness(ctx, operator)).businessId;
    } catch {
      businessId = undefined; // receivers unknown: the report waits for what comes
    }
  }
  const expected =
    businessId !== undefined && order
      ? await receiverCounts(
          operator,
          { businessId, brandId: order.brand_id, branchId: order.branch_id },
          types,
        )
      : undefined;
  const none = expected !== undefined && types.every((t) => expected.get(t) === 0);
  const waited = expected ? waitMs : Math.min(waitMs, UNKNOWN_WAIT_MS);
  const got = none
    ? new Map<string, DeliveryLike[]>()
    : await deliveriesSince(operator, before, types, expected, waited);
  const report: Fired[] = fired.map((f) => {
    const ds = got.get(f.event_type) ?? [];
    const ids = [...ds.map((d) => d.event_id), ...ds.flatMap((d) => d.batched_event_ids ?? [])];
    return { ...f, event_ids: [...new Set(ids)], deliveries: ds.map(deliveryOut) };
  });

  if (ctx.json) {
    io.stdout.write(`${JSON.stringify({ event: trigger, order, fired: report }, null, 2)}\n`);
  } else {
    printReport(ctx, report, order!, trigger);
  }
  // Said plainly rather than left to read as a failure: the receiver has the event, or will.
  const answerless = report
    .flatMap((f) => f.deliveries)
    .filter((d) => d.status === 'pending' && d.attempts - (d.in_flight ? 1 : 0) === 0);
  const unmade = expected
    ? types.reduce((n, t) => n + Math.max(0, (expected.get(t) ?? 0) - (got.get(t)?.length ?? 0)), 0)
    : 0;
  const underWay = answerless.length + unmade;
  if (!none && underWay > 0)
    io.stderr.write(
      `${underWay === 1 ? 'A delivery is' : `${underWay} deliveries are`} still under way after ${formatDuration(waited)} (no answer recorded yet): \`partner operator webhooks log${answerless.length ? ` --event-id ${answerless[0]!.event_id}` : ''}\` shows the outcome once it is in; --wait DURATION waits longer.\n`,
    );
  if (none)
    io.stderr.write(
      `No receiver is registered for business ${businessId}${order ? ` (brand ${order.brand_id}, branch ${order.branch_id})` : ''}: the event${fired.length > 1 ? 's are' : ' is'} in the outbox, delivered to none. \`partner listen --local\` registers one.\n`,
    );
  return 0;
}

function printReport(ctx: Ctx, report: Fired[], order: OrderLike, trigger: Trigger): void {
  const { io } = ctx;
  const c = new Chalk({ level: ctx.color ? 1 : 0 });
  if (!io.stdoutIsTTY) {
    // One line per event: type, order id, event ids (comma-separated), then url=status per delivery.
    for (const f of report)
      io.stdout.write(
        `${[f.event_type, f.order_id, f.event_ids.join(','), ...f.deliveries.map((d) => `${d.url}=${d.status}${d.status_code ? `:${d.status_code}` : ''}`)].join('\t')}\n`,
      );
    return;
  }
  for (const f of report) {
    // The cart shown is the order's as it is now: under the event that made it.
    const cart = `${order.cart.length} line${order.cart.length === 1 ? '' : 's'}, ${order.total} ${order.currency}`;
    const what =
      f.event_type === EVENT_TYPES['order.status']
        ? `${f.from ? `${f.from} → ` : ''}${f.to}`
        : f.event_type === EVENT_TYPES['order.cart'] || trigger !== 'order.cart'
          ? cart
          : '';
    // ✓ only when every receiver took it; ✗ when one refused it (a 401 is no success), … while
    // one has not answered yet.
    const refused = (d: (typeof f.deliveries)[number]) =>
      d.status === 'failed' || (d.status !== 'delivered' && (d.status_code !== null || d.error !== null));
    const mark = f.deliveries.some(refused)
      ? c.red('✗')
      : f.deliveries.some((d) => d.status !== 'delivered')
        ? c.dim('…')
        : c.green('✓');
    io.stdout.write(
      `${mark} ${c.bold(f.event_type)}  order ${f.order_id}  brand ${f.brand_id} / branch ${f.branch_id}${what ? `  ${what}` : ''}\n`,
    );
    for (const d of f.deliveries) {
      // Attempts whose outcome is recorded (the one in flight, if any, is not).
      const recorded = d.attempts - (d.in_flight ? 1 : 0);
      const outcome =
        d.status === 'delivered'
          ? c.green(`delivered (${d.status_code}${d.duration_ms !== null ? `, ${d.duration_ms} ms` : ''})`)
          : recorded === 0
            ? c.dim(d.in_flight ? 'sent, no answer yet (still under way)' : 'pending (not sent yet)')
            : c.yellow(
                `${d.status === 'failed' ? 'failed' : `attempt ${recorded} failed, retrying`} (${d.status_code ?? d.error ?? 'no answer'})`,
              );
      const batch = d.batched_event_ids.length ? c.dim(` (+${d.batched_event_ids.length} batched)`) : '';
      io.stdout.write(`    ${d.event_id}${batch} → ${d.url}  ${outcome}\n`);
    }
  }
}
