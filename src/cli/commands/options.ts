import { parseDuration } from '../../contract/duration.js';
import { UsageError } from '../errors.js';
import { STATUS_CODES, type StatusCode } from '../../contract/status-codes.js';

// The options of a hand-written command, read in one place before its run function is called:
// a schema names each option's field, a function from what commander parsed (a string per
// valued flag, a boolean per switch, an array per repeatable flag) to a typed value, throwing a
// usage error (exit 2) that names the flag and quotes what was given. Our own few lines rather
// than zod: the declarations load at every start-up, and start-up never loads zod (issue 14).

/** Reads one option; `flag` is its name on the command line, for the error. */
export type Field<T> = (raw: unknown, flag: string) => T;
export type OptionsSchema = Readonly<Record<string, Field<unknown>>>;
/** The typed options a schema gives. */
export type OptionsOf<S extends OptionsSchema> = { -readonly [K in keyof S]: ReturnType<S[K]> };

/** `defaultBrand` → `--default-brand`. */
function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Reads every option of `schema` from commander's `raw` options (others, e.g. global flags, are left out). */
export function parseOptions<S extends OptionsSchema>(schema: S, raw: Record<string, unknown>): OptionsOf<S> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema)) out[key] = field(raw[key], flagName(key));
  return out as OptionsOf<S>;
}

const bad = (flag: string, must: string, raw: unknown) =>
  new UsageError(`${flag} ${must}, got "${String(raw)}"`);

/** A field that may be left out: `undefined` stays `undefined`, anything else is read by `field`. */
export function optional<T>(field: Field<T>): Field<T | undefined> {
  return (raw, flag) => (raw === undefined ? undefined : field(raw, flag));
}

/** Text as given (required: a missing one is `missing required flag`). */
export const text: Field<string> = (raw, flag) => {
  if (raw === undefined) throw new UsageError(`missing required flag ${flag}`);
  return String(raw);
};

/** A switch: true when given (`--no-x` switches are false when given). */
export const on: Field<boolean> = (raw) => raw === true;

/** A whole number in [min, max]. */
export function int(min = 1, max = Number.MAX_SAFE_INTEGER): Field<number> {
  const must =
    max !== Number.MAX_SAFE_INTEGER
      ? `must be between ${min} and ${max}`
      : min === 1
        ? 'must be a positive integer'
        : `must be a whole number ≥ ${min}`;
  return (raw, flag) => {
    const s = String(text(raw, flag)).trim();
    const n = Number(s);
    if (!/^\d+$/.test(s) || n < min || n > max) throw bad(flag, must, raw);
    return n;
  };
}

/** A TCP port; 0 picks a free one. */
export const port: Field<number> = (raw, flag) => {
  const s = String(text(raw, flag)).trim();
  if (!/^\d+$/.test(s) || Number(s) > 65535) throw bad(flag, 'must be 0–65535', raw);
  return Number(s);
};

/** A duration (docs/cli.md, Durations) in milliseconds, in [min, max]; `must` says what is wanted. */
export function duration(must: string, min = 0, max = Number.POSITIVE_INFINITY): Field<number> {
  return (raw, flag) => {
    const ms = parseDuration(text(raw, flag));
    if (ms === undefined || ms < min || ms > max) throw bad(flag, must, raw);
    return ms;
  };
}

/** One of `values`, compared without case; the value as listed. */
export function oneOf<const V extends string>(values: readonly V[]): Field<V> {
  return (raw, flag) => {
    const s = text(raw, flag);
    const v = values.find((x) => x.toLowerCase() === s.trim().toLowerCase());
    if (v === undefined) throw bad(flag, `must be one of ${values.join(', ')}`, raw);
    return v;
  };
}

/** A repeatable, comma-separated list (`--status 4xx,5xx --status 404`) → its non-empty items. */
export const list: Field<string[]> = (raw) =>
  (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
    .flatMap((x) => String(x).split(','))
    .map((p) => p.trim())
    .filter(Boolean);

/** An http(s) URL. */
export const httpUrl: Field<string> = (raw, flag) => {
  const s = text(raw, flag);
  if (!/^https?:\/\//.test(s)) throw bad(flag, 'must be an http(s) URL', raw);
  return s;
};

/** A comma-separated list of durations (the retry schedule), each in milliseconds. */
export const durationList: Field<number[]> = (raw, flag) =>
  text(raw, flag)
    .split(',')
    .map((p) => p.trim())
    .map((p) => {
      const ms = parseDuration(p);
      if (ms === undefined)
        throw new UsageError(`${flag}: "${p}" is not a duration such as 500ms, 10s, 5m or 2h`);
      return ms;
    });

/** A status as an id (`4`) or a code in any case, `_` or `-` for the space (`picked_up`). */
function statusCodeOf(raw: string): StatusCode | undefined {
  const s = raw.trim();
  if (/^\d+$/.test(s)) return STATUS_CODES[Number(s) - 1];
  const code = s.toUpperCase().replace(/[_-]+/g, ' ').replace(/\s+/g, ' ');
  return STATUS_CODES.find((c) => c === code);
}

const notAStatus = (flag: string, p: string) =>
  new UsageError(`${flag}: "${p}" is not a status id (1–11) or code (${STATUS_CODES.join(', ')})`);

/** One order status, id or code. */
export const status: Field<StatusCode> = (raw, flag) => {
  const s = text(raw, flag);
  const code = statusCodeOf(s);
  if (!code) throw notAStatus(flag, s);
  return code;
};

/** Order statuses, ids or codes, comma-separated → their ids, sorted, once each. */
export const statusIds: Field<number[]> = (raw, flag) => {
  const ids = new Set<number>();
  for (const p of list(raw, flag)) {
    const code = statusCodeOf(p);
    if (!code) throw notAStatus(flag, p);
    ids.add(STATUS_CODES.indexOf(code) + 1);
  }
  if (ids.size === 0) throw new UsageError(`${flag}: give at least one status`);
  return [...ids].sort((a, b) => a - b);
};

/** Text trimmed; left out when not given or blank. */
export const trimmed: Field<string | undefined> = (raw) =>
  typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : undefined;

/** A switch with a `--no-` twin: true, false, or undefined when neither was given. */
export const onOff: Field<boolean | undefined> = (raw) => (raw === undefined ? undefined : raw === true);

/** A repeatable flag, each value whole (`-f a=1,2 -f b=3`). */
export const repeated: Field<string[]> = (raw) =>
  Array.isArray(raw) ? raw.map(String) : raw === undefined ? [] : [String(raw)];

/** The global `--json [fields]`: absent, a switch, or a field list. */
export const jsonFlag: Field<string | boolean | undefined> = (raw) =>
  typeof raw === 'string' || typeof raw === 'boolean' ? raw : undefined;

/** Ids, repeated or comma-separated (`--branch 1,2 --branch 3`) → once each, in order given. */
export const ids: Field<number[]> = (raw, flag) => [...new Set(list(raw, flag).map((p) => int()(p, flag)))];

/** `field`, or `value` when the flag is not given. */
export function orDefault<T>(field: Field<T>, value: T): Field<T> {
  return (raw, flag) => (raw === undefined ? value : field(raw, flag));
}
