// Small value formatters for human output (pure; tested directly).

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export function isIsoDateTime(v: unknown): v is string {
  return typeof v === 'string' && ISO.test(v) && !Number.isNaN(Date.parse(v));
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
  ['second', 1000],
];

let rtf: Intl.RelativeTimeFormat | undefined;

/** "3 minutes ago", "in 2 hours", "just now". */
export function relativeTime(iso: string, now: number): string {
  const diff = Date.parse(iso) - now;
  const abs = Math.abs(diff);
  if (abs < 10_000) return 'just now';
  rtf ??= new Intl.RelativeTimeFormat('en', { numeric: 'always' });
  for (const [unit, ms] of UNITS) {
    if (abs >= ms || unit === 'second') return rtf.format(Math.round(diff / ms), unit);
  }
  return iso;
}

/** One cell of text for a value (arrays joined, objects as compact JSON). */
export function cellText(v: unknown, max = 60): string {
  let s: string;
  if (v === null || v === undefined) s = '';
  else if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean') s = String(v);
  else if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) s = v.join(', ');
  else s = JSON.stringify(v);
  // Tabs and newlines would break the TSV and the table layout.
  s = s.replace(/[\t\r\n]+/g, ' ');
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A compact age for narrow columns: "now", "45s", "14m", "2h", "3d" (future times as "in 5m"). */
export function shortAge(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const diff = now - t;
  const abs = Math.abs(diff);
  if (abs < 10_000) return 'now';
  const text =
    abs < 60_000
      ? `${Math.floor(abs / 1000)}s`
      : abs < 3600_000
        ? `${Math.floor(abs / 60_000)}m`
        : abs < 86_400_000
          ? `${Math.floor(abs / 3600_000)}h`
          : `${Math.floor(abs / 86_400_000)}d`;
  return diff < 0 ? `in ${text}` : text;
}

/** `shortAge` read as a time: "5m ago", "in 5m", "now" (times in tables too narrow for the long form). */
export function shortAgo(iso: string, now: number): string {
  const age = shortAge(iso, now);
  return age === 'now' || age.startsWith('in ') || age === '' ? age : `${age} ago`;
}
