import { parseDuration } from '../../contract/duration.js';
import {
  allowedFrom,
  PARTNER_TARGETS,
  type PartnerTarget,
  resolveRange,
  TERMINAL_STATUSES,
  toStatusCode,
} from '../../contract/order-rules.js';
import { STATUS_CODES } from '../../contract/status-codes.js';
import type { Ctx } from '../context.js';
import { EXIT, Exit, UsageError } from '../errors.js';

import { coerceArg, parseTimeFlag, readStdin } from '../input.js';
import { canPrompt } from '../io.js';
import type { FillInput, Override } from './derive.js';

// Hand-written commands where the generic derivation would be poor (docs/cli.md), keyed by
// operation id: each adjusts the derived command rather than re-implementing it, so --data,
// --json, --idempotency-key, output and errors stay uniform.

/** Their ids in the status dictionary (stable by spec; overrides.test.ts checks them against it). */
export const PARTNER_TARGET_IDS: Readonly<Record<PartnerTarget, number>> = {
  ACCEPTED: 2,
  READY: 4,
  DELIVERED: 5,
  CANCELLED: 3,
};

/**
 * `--status` of `orders patch`: a status a partner may set, by code (any case) or id. The others
 * (PLACED, VOID, the driver states…) are refused here rather than by a 400 from the server.
 */
export function partnerTarget(value: string | number, flag: string): string | number {
  const text = String(value).trim();
  if (/^\d+$/.test(text)) {
    if (Object.values(PARTNER_TARGET_IDS).includes(Number(text))) return Number(text);
  } else {
    const code = text.toUpperCase();
    if ((PARTNER_TARGETS as readonly string[]).includes(code)) return code;
  }
  const list = PARTNER_TARGETS.map((t) => `${t} (${PARTNER_TARGET_IDS[t]})`).join(', ');
  throw new UsageError(
    `${flag} must be a status a partner may set: ${PARTNER_TARGETS.join(', ')} (code, any case, or id: ${list}); got "${text}"`,
  );
}

const STATUS_FORMS = `a status id (1–11) or code (${STATUS_CODES.join(', ')})`;

/**
 * The order list's `--status` (any status, by id or code) and its `--from`/`--to` window (at
 * most 90 days, `from` not after `to`), judged by the contract's own rules before any request.
 */
function checkOrderQuery(input: FillInput, now: number): void {
  const { status, from, to } = input.query;
  // One flag or several, each a comma-separated list (`--status ACCEPTED,4`), as the API takes it.
  const refs = (Array.isArray(status) ? status : status === undefined ? [] : [status]).flatMap((s) =>
    String(s).split(','),
  );
  for (const s of refs) {
    if (toStatusCode(s) === undefined)
      throw new UsageError(`--status: "${String(s)}" is not ${STATUS_FORMS}`);
  }
  const ms = (v: unknown) => (typeof v === 'string' ? Date.parse(v) : undefined);
  const range = resolveRange(ms(from), ms(to), now);
  if (range.ok) return;
  const fromText = from === undefined ? 'the default start (24 h before --to)' : `--from ${String(from)}`;
  const toText = to === undefined ? 'now' : `--to ${String(to)}`;
  throw new UsageError(
    range.code === 'request_invalid'
      ? `${fromText} is after ${toText}`
      : `${fromText} to ${toText} spans more than 90 days, the longest window the API serves: narrow it (or page through shorter windows)`,
  );
}

/**
 * `orders patch ID` on a terminal: the order's status now, and only the moves the contract's
 * transition table allows from it (as `orders watch` offers). A final status has none: said,
 * and exit 5, the code of the 409 the server would answer to any move.
 */
async function pickMove(ctx: Ctx, id: number): Promise<string> {
  const { client } = await ctx.partner();
  const order = (await ctx.spin(`Reading order ${id}…`, () =>
    client.call('getOrder', { params: { id } }),
  )) as { status?: unknown };
  const current = toStatusCode(order.status);
  const moves = current ? allowedFrom(current) : [...PARTNER_TARGETS];
  if (current && moves.length === 0) {
    ctx.io.stderr.write(
      `error: order ${id} is ${current}, a final status: it cannot be moved any more (${TERMINAL_STATUSES.join(', ')} are final)\n`,
    );
    throw new Exit(EXIT.conflict);
  }
  return ctx.io.prompter.select({
    message: `Order ${id} is ${current ?? `in status ${String(order.status)}`}. New status:`,
    choices: moves.map((s) => ({ name: s, value: s })),
  });
}

function bodyOf(input: FillInput): Record<string, unknown> {
  if (Array.isArray(input.body)) throw new UsageError('--data must be a JSON object here');
  input.body ??= {};
  return input.body as Record<string, unknown>;
}

/** `SKU=12`, `SKU=null` → a stock line. */
export function parseStockPair(pair: string): { partner_item_id: string; stock: number | null } {
  const eq = pair.lastIndexOf('=');
  const sku = pair.slice(0, eq);
  const raw = pair.slice(eq + 1);
  if (eq <= 0 || raw === '') throw new UsageError(`expected SKU=N, got "${pair}"`);
  if (raw === 'null') return { partner_item_id: sku, stock: null };
  if (!/^\d+$/.test(raw))
    throw new UsageError(`stock for ${sku} must be a whole number ≥ 0 or null, got "${raw}"`);
  return { partner_item_id: sku, stock: Number(raw) };
}

export const OVERRIDES: Readonly<Record<string, Override>> = {
  // `orders list`: the status filter and the window are checked here, not by a 400.
  listOrders: {
    fill({ ctx, input }) {
      checkOrderQuery(input, ctx.io.clock.now());
    },
  },

  // `orders patch ID --status S [--reason TEXT]`
  patchOrderStatus: {
    args: [{ name: 'id', description: 'order id' }],
    options: [
      { flags: '--status <status>', description: `new status, code or id: ${PARTNER_TARGETS.join(', ')}` },
      { flags: '--reason <text>', description: 'cancellation reason (required with CANCELLED)' },
    ],
    omit: ['id', 'status', 'platform', 'cancellation_reason'],
    async fill({ ctx, input, args, opts }) {
      const body = bodyOf(input);
      if (args[0] !== undefined)
        body.id = coerceArg({ name: 'id', type: 'integer', required: true }, args[0], 'id');
      if (body.id === undefined) throw new UsageError('missing ID (the order id)');
      let status = (opts.status as string | undefined) ?? (body.status as string | number | undefined);
      if (status === undefined) {
        if (!canPrompt(ctx.io)) throw new UsageError('missing required flag --status');
        status = await pickMove(ctx, Number(body.id));
      }
      body.status = partnerTarget(status, opts.status !== undefined ? '--status' : '"status" in --data');
      body.platform = 'enterprise';
      const reason = (opts.reason as string | undefined) ?? (body.cancellation_reason as string | undefined);
      const cancelling = body.status === PARTNER_TARGET_IDS.CANCELLED || body.status === 'CANCELLED';
      // The API keeps a reason only for a cancellation: one given with another status would be
      // dropped without a word, so it is refused.
      if (opts.reason !== undefined && !cancelling)
        throw new UsageError(
          `--reason goes only with --status CANCELLED (it is the cancellation reason); drop it for ${String(body.status)}`,
        );
      if (reason !== undefined) body.cancellation_reason = reason;
      else if (cancelling) {
        if (!canPrompt(ctx.io)) throw new UsageError('--reason is required with --status CANCELLED');
        body.cancellation_reason = await ctx.io.prompter.input({
          message: 'Cancellation reason:',
          validate: (v) => (v.trim() ? true : 'a reason is required'),
        });
      }
    },
  },

  // `menu get --brand ID --branch ID` (a store's published menu) or neither (the business menu).
  getMenu: {
    fill({ input }) {
      const brand = input.query.brand_id !== undefined;
      const branch = input.query.branch_id !== undefined;
      if (brand !== branch)
        throw new UsageError(
          "--brand and --branch go together: both for a store's published menu, neither for the business-level menu",
        );
    },
  },

  // `orders comment ID TEXT` (TEXT "-" reads stdin; "" clears the comment)
  setOrderComment: {
    args: [{ name: 'text', description: 'the comment; "" clears it, - reads stdin', optional: true }],
    omit: ['comment'],
    async fill({ ctx, input, args }) {
      const body = bodyOf(input);
      const text = args[0];
      if (text === '-') body.comment = (await readStdin(ctx.io, 'TEXT -')).replace(/\n$/, '');
      else if (text !== undefined) body.comment = text;
      else if (body.comment === undefined) {
        if (!canPrompt(ctx.io)) throw new UsageError('missing TEXT (the comment; "" clears it)');
        body.comment = await ctx.io.prompter.input({ message: 'Comment:' });
      }
    },
  },

  // `operator credentials revoke KEY [--yes]`: permanent, so asked like a delete.
  operatorRevokeCredential: {
    confirm: (input) =>
      `Revoke credential ${String(input.params.key)} (it stops working on its next request, for good)?`,
  },

  // `operator credentials rotate KEY --grace 15m`: a duration as every other duration flag takes
  // (bare seconds too), sent as grace_seconds.
  operatorRotateCredential: {
    options: [
      {
        flags: '--grace <duration>',
        description:
          'how long the old secret keeps working: seconds (900) or a duration (30s, 15m, 1h, up to 24h; 0 ends it now) (default 15m)',
      },
    ],
    omit: ['grace_seconds'],
    fill({ input, opts }) {
      if (opts.grace === undefined) return;
      const text = String(opts.grace);
      const ms = parseDuration(text);
      if (ms === undefined || ms % 1000 !== 0 || ms > 86_400_000)
        throw new UsageError(
          `--grace expects whole seconds or a duration up to 24h (900, 30s, 15m, 1h, 0), got "${text}"`,
        );
      bodyOf(input).grace_seconds = ms / 1000;
    },
  },

  // `operator orders status ORDER_ID STATUS` (the status is positional)
  operatorSetOrderStatus: {
    args: [{ name: 'status', description: 'any status, code or id (e.g. "DRIVER ASSIGNED" or 7)' }],
    omit: ['status'],
    fill({ input, args }) {
      const body = bodyOf(input);
      const status = args[0];
      if (status !== undefined) {
        if (toStatusCode(status) === undefined)
          throw new UsageError(`STATUS must be ${STATUS_FORMS}; got "${status}"`);
        body.status = /^\d+$/.test(status) ? Number(status) : status;
      }
      if (body.status === undefined) throw new UsageError('missing STATUS');
    },
  },

  // `items availability SKU --branch ID --available|--unavailable`
  setItemAvailability: {
    options: [
      { flags: '--available', description: 'mark the SKU available (also ends a snooze)' },
      { flags: '--unavailable', description: 'mark the SKU out of stock' },
    ],
    omit: ['isAvailable'],
    fill({ input, opts }) {
      const body = bodyOf(input);
      if (opts.available && opts.unavailable)
        throw new UsageError('pass --available or --unavailable, not both');
      if (opts.available || opts.unavailable) body.isAvailable = opts.available === true;
      if (body.isAvailable === undefined)
        throw new UsageError('missing flag: pass --available or --unavailable');
    },
  },

  // `items snooze SKU --branch ID --until ISO|--for 30m`
  snoozeItem: {
    options: [
      { flags: '--until <iso>', description: 'end of the snooze, ISO 8601 (e.g. 2025-01-31T18:00:00Z)' },
      { flags: '--for <duration>', description: 'snooze length from now: 30m, 2h, 1h30m, 1d' },
    ],
    omit: ['until'],
    fill({ ctx, input, opts }) {
      const body = bodyOf(input);
      if (opts.until !== undefined && opts.for !== undefined)
        throw new UsageError('pass --until or --for, not both');
      if (typeof opts.for === 'string') {
        const ms = parseDuration(opts.for);
        if (ms === undefined || ms <= 0)
          throw new UsageError(
            `--for expects a duration such as 30m, 2h, 1h30m or 900 (seconds), got "${opts.for}"`,
          );
        body.until = new Date(ctx.io.clock.now() + ms).toISOString();
      } else if (typeof opts.until === 'string') {
        const now = ctx.io.clock.now();
        const until = parseTimeFlag(opts.until, '--until', now, false);
        // A snooze that has already ended would only mark the item available again.
        if (Date.parse(until) <= now)
          throw new UsageError(
            `--until ${opts.until} is in the past: give a time ahead of now, or a length with --for (e.g. 30m)`,
          );
        body.until = until;
      }
      if (body.until === undefined)
        throw new UsageError('missing flag: pass --until ISO or --for DURATION (e.g. 30m)');
    },
  },

  // `items stock --branch ID SKU=N…`
  updateItemStocks: {
    args: [
      {
        name: 'stocks',
        description: 'SKU=N pairs (N = null stops counting)',
        variadic: true,
        optional: true,
      },
    ],
    omit: ['items'],
    fill({ input, args }) {
      const body = bodyOf(input);
      const pairs = args.flat();
      if (pairs.length > 0) body.items = pairs.map(parseStockPair);
      if (!Array.isArray(body.items) || body.items.length === 0) {
        throw new UsageError('missing SKU=N pairs (or "items" in --data)');
      }
    },
  },
};
