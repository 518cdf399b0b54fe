// Orders, pure: the partner transition table (docs/orders.md), status parsing, `updated_at`
// monotonicity, money as integer minor units (BigInt, never floats), cart pricing and
// cart generation from a catalogue with an injected random source. No HTTP, no SQLite.
import { allowedFrom, PARTNER_TRANSITIONS } from '../../contract/order-rules.js';
import { STATUS_CODES, STATUS_ID, type StatusCode } from '../../contract/order-statuses.js';

// ─── Transitions ────────────────────────────────────────────────────────────────────────────

// The table, status references and the list window live in the contract (the CLI checks input
// against the same rules before any request); re-exported for the server.
export {
  allowedFrom,
  isTerminal,
  PARTNER_TARGETS,
  PARTNER_TRANSITIONS,
} from '../../contract/order-rules.js';

type TransitionDecision =
  | { ok: true }
  | { ok: false; from: StatusCode; to: StatusCode; allowed: StatusCode[] };

/** May a partner move an order from `from` to `to`? The refusal carries what 409 details need. */
export function decide(from: StatusCode, to: StatusCode): TransitionDecision {
  const sources = (PARTNER_TRANSITIONS as Record<string, readonly StatusCode[] | undefined>)[to];
  if (sources?.includes(from)) return { ok: true };
  return { ok: false, from, to, allowed: allowedFrom(from) };
}

// ─── Status references ──────────────────────────────────────────────────────────────────────

const BY_ID = new Map<number, StatusCode>(STATUS_CODES.map((c) => [STATUS_ID[c], c]));

export function statusCodeOf(id: number): StatusCode {
  const c = BY_ID.get(id);
  if (!c) throw new Error(`status id ${id} is not in the dictionary`);
  return c;
}

// ─── Time ───────────────────────────────────────────────────────────────────────────────────

/** `updated_at` strictly increases: two changes in one millisecond are 1 ms apart. */
export function nextUpdatedMs(previousMs: number, nowMs: number): number {
  return nowMs > previousMs ? nowMs : previousMs + 1;
}

export {
  DAY_MS,
  resolveRange,
} from '../../contract/order-rules.js';

// ─── Money ──────────────────────────────────────────────────────────────────────────────────

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

class MoneyError extends Error {}

/** `"45000.00"` → minor units of a currency with `decimals` places. Extra places must be zeros. */
export function toMinor(amount: string, decimals: number): bigint {
  const m = DECIMAL.exec(amount.trim());
  if (!m) throw new MoneyError(`"${amount}" is not a non-negative decimal string`);
  const whole = m[1]!;
  let frac = m[2] ?? '';
  if (frac.length > decimals) {
    if (/[^0]/.test(frac.slice(decimals)))
      throw new MoneyError(`"${amount}" has more than ${decimals} decimal places`);
    frac = frac.slice(0, decimals);
  }
  return BigInt(whole + frac.padEnd(decimals, '0'));
}

/** Minor units → the decimal string with exactly `decimals` places (`"45000"`, `"120.50"`). */
export function formatMinor(minor: bigint, decimals: number): string {
  const neg = minor < 0n;
  const digits = (neg ? -minor : minor).toString().padStart(decimals + 1, '0');
  const out = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return neg ? `-${out}` : out;
}

// ─── Carts ──────────────────────────────────────────────────────────────────────────────────

interface ModifierInput {
  item_id: number;
  title: string;
  quantity: number;
  unit_price: string;
}
export interface LineInput {
  item_id: number;
  partner_item_id: string;
  title: string;
  quantity: number;
  unit_price: string;
  modifiers?: ModifierInput[];
  /** When given (e.g. a cart pasted from an order read) it must equal the computed total. */
  total?: string;
}
interface CartModifier {
  item_id: number;
  title: string;
  quantity: number;
  unit_price: string;
}
interface CartLine {
  item_id: number;
  partner_item_id: string;
  title: string;
  quantity: number;
  unit_price: string;
  total: string;
  modifiers: CartModifier[];
}
export interface PricedCart {
  cart: CartLine[];
  total: string;
}

interface CartIssue {
  path: (string | number)[];
  message: string;
}

/**
 * Prices a cart: modifier quantities are per unit of their line, so
 * `line.total = quantity × (unit_price + Σ modifier.quantity × modifier.unit_price)` and the
 * order total is the sum of line totals. Amounts are normalised to the currency's places.
 * Returns the issues instead when an amount does not fit the currency.
 */
export function priceCart(
  lines: readonly LineInput[],
  decimals: number,
): PricedCart | { issues: CartIssue[] } {
  const issues: CartIssue[] = [];
  const money = (v: string, path: (string | number)[]): bigint => {
    try {
      return toMinor(v, decimals);
    } catch (e) {
      issues.push({ path, message: (e as Error).message });
      return 0n;
    }
  };
  let total = 0n;
  const cart = lines.map((l, i): CartLine => {
    const unit = money(l.unit_price, [i, 'unit_price']);
    let perUnit = unit;
    const modifiers = (l.modifiers ?? []).map((m, j): CartModifier => {
      const mp = money(m.unit_price, [i, 'modifiers', j, 'unit_price']);
      perUnit += BigInt(m.quantity) * mp;
      return {
        item_id: m.item_id,
        title: m.title,
        quantity: m.quantity,
        unit_price: formatMinor(mp, decimals),
      };
    });
    const lineTotal = BigInt(l.quantity) * perUnit;
    if (l.total !== undefined) {
      const given = money(l.total, [i, 'total']);
      if (given !== lineTotal) {
        issues.push({
          path: [i, 'total'],
          message: `is ${l.total} but the line adds up to ${formatMinor(lineTotal, decimals)}`,
        });
      }
    }
    total += lineTotal;
    return {
      item_id: l.item_id,
      partner_item_id: l.partner_item_id,
      title: l.title,
      quantity: l.quantity,
      unit_price: formatMinor(unit, decimals),
      total: formatMinor(lineTotal, decimals),
      modifiers,
    };
  });
  if (issues.length) return { issues };
  return { cart, total: formatMinor(total, decimals) };
}

// ─── Generated carts (operator simulation, demo seed) ───────────────────────────────────────

/** A random source in [0, 1): `Math.random` in the server, a seeded one in the demo and tests. */
export type Rng = () => number;

/** mulberry32: a small seeded PRNG, so demo data is the same on every seed. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
export const intBetween = (rng: Rng, lo: number, hi: number): number =>
  lo + Math.floor(rng() * (hi - lo + 1));

interface CatalogueModifier {
  item_id: number;
  title: string;
  /** Decimal string in the catalogue's currency. */
  price: string;
}
export interface CatalogueGroup {
  title: string;
  /** How many options a customer picks: at least `min`, at most `max`. */
  min: number;
  max: number;
  options: readonly CatalogueModifier[];
}
export interface CatalogueItem {
  item_id: number;
  partner_item_id: string;
  title: string;
  price: string;
  groups?: readonly CatalogueGroup[];
}

/**
 * `lines` distinct items (fewer if the catalogue is smaller), each with a quantity of 1–3
 * (mostly 1) and modifiers drawn within every group's min/max.
 */
export function generateCartLines(items: readonly CatalogueItem[], lines: number, rng: Rng): LineInput[] {
  const pool = [...items];
  const out: LineInput[] = [];
  while (out.length < lines && pool.length > 0) {
    const item = pool.splice(Math.floor(rng() * pool.length), 1)[0]!;
    const modifiers: ModifierInput[] = [];
    for (const g of item.groups ?? []) {
      const hi = Math.min(g.max, g.options.length);
      const count = intBetween(rng, Math.min(g.min, hi), hi);
      const opts = [...g.options];
      for (let k = 0; k < count; k++) {
        const o = opts.splice(Math.floor(rng() * opts.length), 1)[0]!;
        modifiers.push({ item_id: o.item_id, title: o.title, quantity: 1, unit_price: o.price });
      }
    }
    const r = rng();
    out.push({
      item_id: item.item_id,
      partner_item_id: item.partner_item_id,
      title: item.title,
      quantity: r < 0.7 ? 1 : r < 0.92 ? 2 : 3,
      unit_price: item.price,
      modifiers,
    });
  }
  return out;
}
