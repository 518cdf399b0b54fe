// The order rules both ends apply, zod-free so the CLI can check input before any request without
// loading the schemas: status references, the partner transition table (docs/orders.md) and the
// `from`/`to` window of the order list. The server's domain re-exports these; nothing copies them.
import { STATUS_CODES, type StatusCode } from './status-codes.js';

// ─── Status references ──────────────────────────────────────────────────────────────────────

/**
 * A status given as its id (`4`) or code (`"READY"`); codes match case-insensitively and `_`/`-`
 * stand for the space in `PICKED UP`. Unknown → undefined.
 */
export function toStatusCode(v: unknown): StatusCode | undefined {
  // Ids are the codes' positions plus one (status-codes.ts, stable by spec).
  const byId = (n: number) => (Number.isInteger(n) ? STATUS_CODES[n - 1] : undefined);
  if (typeof v === 'number') return byId(v);
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  if (/^\d+$/.test(s)) return byId(Number(s));
  const code = s.toUpperCase().replace(/[_-]+/g, ' ').replace(/\s+/g, ' ');
  return (STATUS_CODES as readonly string[]).includes(code) ? (code as StatusCode) : undefined;
}

// ─── Transitions ────────────────────────────────────────────────────────────────────────────

/** Once here, an order never moves again through the partner API. */
export const TERMINAL_STATUSES: readonly StatusCode[] = Object.freeze(['DELIVERED', 'CANCELLED', 'VOID']);
const TERMINAL = new Set<StatusCode>(TERMINAL_STATUSES);

const NON_TERMINAL_STATUSES: readonly StatusCode[] = Object.freeze(
  STATUS_CODES.filter((s) => !TERMINAL.has(s)),
);

/**
 * THE transition table [a fixed part of the contract, docs/orders.md]: partner target → the states it may be reached from.
 * A target missing here (PLACED, SCHEDULED, DRIVER ASSIGNED, …) is never a partner move.
 */
export const PARTNER_TRANSITIONS = Object.freeze({
  ACCEPTED: Object.freeze(['PLACED', 'PENDING', 'SCHEDULED']),
  READY: Object.freeze(['ACCEPTED']),
  DELIVERED: Object.freeze(['READY', 'PICKED UP']),
  CANCELLED: NON_TERMINAL_STATUSES,
} satisfies Record<string, readonly StatusCode[]>);

export type PartnerTarget = keyof typeof PARTNER_TRANSITIONS;
export const PARTNER_TARGETS = Object.freeze(Object.keys(PARTNER_TRANSITIONS) as PartnerTarget[]);

export function isTerminal(status: StatusCode): boolean {
  return TERMINAL.has(status);
}

/** The partner targets reachable from `from`, in table order. */
export function allowedFrom(from: StatusCode): StatusCode[] {
  return PARTNER_TARGETS.filter((to) => (PARTNER_TRANSITIONS[to] as readonly StatusCode[]).includes(from));
}

// ─── The order list's window ────────────────────────────────────────────────────────────────

export const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_RANGE_MS = 90 * DAY_MS;
const DEFAULT_WINDOW_MS = DAY_MS;

type RangeDecision =
  | { ok: true; fromMs: number; toMs: number }
  | { ok: false; code: 'request_invalid' | 'request_invalid_range'; message: string };

/**
 * The `created_at` window of `GET /orders`, both ends inclusive. Neither given: the last 24 h.
 * Only `from`: up to now (or to `from` itself when it lies ahead of the server clock, so a
 * poller whose clock runs fast sees an empty page rather than an error). Only `to`: the 24 h
 * before it. Over 90 days → request_invalid_range; `from` after `to` → request_invalid.
 */
export function resolveRange(
  fromMs: number | undefined,
  toMs: number | undefined,
  nowMs: number,
): RangeDecision {
  const to = toMs ?? (fromMs === undefined ? nowMs : Math.max(nowMs, fromMs));
  const from = fromMs ?? to - DEFAULT_WINDOW_MS;
  if (from > to) return { ok: false, code: 'request_invalid', message: '`from` is after `to`' };
  if (to - from > MAX_RANGE_MS) {
    return {
      ok: false,
      code: 'request_invalid_range',
      message: 'the range from `from` to `to` is longer than 90 days',
    };
  }
  return { ok: true, fromMs: from, toMs: to };
}
