import { STATUS_CODES } from '../contract/status-codes.js';

/** `14:03:22.517` in local time. */
export function clock(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

export function dateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toLocaleDateString()} ${clock(iso)}`;
}

/** `ACCEPTED (2)`; the dictionary is stable across releases (spec §2.7). */
export function statusName(id: unknown): string {
  return typeof id === 'number' && STATUS_CODES[id - 1] ? `${STATUS_CODES[id - 1]} (${id})` : String(id);
}

/** A decimal string in a currency, as a marketplace shows it; the string itself when unreadable. */
export function money(amount: unknown, currency: string | undefined): string {
  const n = Number(amount);
  if (typeof amount !== 'string' && typeof amount !== 'number') return '';
  if (!Number.isFinite(n)) return String(amount);
  if (!currency) return String(amount);
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(n);
  } catch {
    return `${String(amount)} ${currency}`;
  }
}

/** `service.order.status.updated` → `status.updated`. */
export function shortType(t: string): string {
  return t.replace(/^service\.order\./, '');
}
