import { resolve } from 'node:path';
import type { FieldType, ManifestField } from './manifest/types.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';

// Turning command-line text into request values. Every failure is a UsageError naming the
// flag or file, never a stack trace.

/** Reads all of stdin, refusing to wait on a terminal (that would look like a hang). */
export async function readStdin(io: Io, what: string): Promise<string> {
  if (io.stdinIsTTY) throw new UsageError(`${what} reads stdin, but stdin is a terminal: pipe the value in`);
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** `JSON`, `@file` or `-` (stdin) → the text, for `--data`-like options. */
export async function readTextArg(
  value: string,
  flag: string,
  io: Io,
): Promise<{ text: string; source: string }> {
  if (value === '-') return { text: await readStdin(io, flag), source: 'stdin' };
  if (value.startsWith('@')) {
    const file = value.slice(1);
    if (!file) throw new UsageError(`${flag} @FILE: missing file name after @`);
    try {
      // node:fs/promises loaded here, not with the command tree: it brings readline and fs.watch
      // with it (~1.5 ms of every start; docs/development.md, start-up).
      const { readFile } = await import('node:fs/promises');
      return { text: await readFile(resolve(io.cwd, file), 'utf8'), source: file };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(
        `${flag}: cannot read ${file}${code === 'ENOENT' ? ': no such file' : `: ${(err as Error).message}`}`,
      );
    }
  }
  return { text: value, source: flag };
}

export async function readJsonArg(value: string, flag: string, io: Io): Promise<unknown> {
  const { text, source } = await readTextArg(value, flag, io);
  try {
    return JSON.parse(text);
  } catch (err) {
    const where = source === flag ? flag : `${flag} (${source})`;
    throw new UsageError(`${where} is not valid JSON: ${(err as Error).message}`);
  }
}

const STRICT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const AGO = /^(\d+)(s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

const DATE_PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/;

/** What is wrong with a date/time the calendar or clock does not have (`2024-02-30`, `25:00`). */
function impossibleDate(s: string): string | undefined {
  const m = DATE_PARTS.exec(s);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12) return 'date (months are 01 to 12)';
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d < 1 || d > days) return `date (${m[1]}-${m[2]} has ${days} days)`;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59))
    return 'time of day';
  return undefined;
}

/**
 * A time flag (`--from`, `--to`, `--until`…): ISO 8601 with an offset (`2024-05-01T10:00:00Z`,
 * `…+07:00`, seconds optional), a bare date where the API takes one, `now`, or a time ago (`30m`,
 * `24h`, `7d`, `2w`). Sent as ISO 8601; a person's `yesterday` is refused here, not by the server.
 */
export function parseTimeFlag(raw: string, flag: string, now: number, dateOk: boolean): string {
  const s = raw.trim();
  // Date.parse rolls 2024-02-30 over to 1 March: a day the calendar does not have is refused.
  const impossible = impossibleDate(s);
  if (impossible) throw new UsageError(`${flag}: "${raw}" is not a real ${impossible}`);
  if (STRICT_TIME.test(s) && !Number.isNaN(Date.parse(s))) return s;
  if (
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) &&
    !Number.isNaN(Date.parse(s))
  )
    return new Date(Date.parse(s)).toISOString();
  if (dateOk && /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`))) return s;
  if (s === 'now') return new Date(now).toISOString();
  const ago = AGO.exec(s);
  if (ago) return new Date(now - Number(ago[1]) * UNIT_MS[ago[2]!]!).toISOString();
  throw new UsageError(
    `${flag} expects an ISO 8601 time such as 2024-05-01T10:00:00Z (or +07:00)${dateOk ? ', a date such as 2024-05-01' : ''}, now, or a time ago such as 30m, 24h, 7d; got "${raw}"`,
  );
}

function inBounds(n: number, field: ManifestField | undefined, flag: string, raw: string): void {
  const lo = field?.minimum;
  const hi = field?.maximum;
  if ((lo === undefined || n >= lo) && (hi === undefined || n <= hi)) return;
  const range =
    lo !== undefined && hi !== undefined
      ? `between ${lo} and ${hi}`
      : lo !== undefined
        ? `at least ${lo}`
        : `at most ${hi}`;
  throw new UsageError(`${flag} must be ${range}, got "${raw}"`);
}

function scalar(
  raw: string,
  type: FieldType | undefined,
  flag: string,
  enumValues?: (string | number)[],
  field?: ManifestField,
  now: number = Date.now(),
): unknown {
  let v: unknown = raw;
  switch (type) {
    case 'integer':
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n))) {
        throw new UsageError(
          `${flag} expects ${type === 'integer' ? 'an integer' : 'a number'}, got "${raw}"`,
        );
      }
      inBounds(n, field, flag, raw);
      v = n;
      break;
    }
    case 'string':
      if (field?.format) v = parseTimeFlag(raw, flag, now, field.format === 'date-or-time');
      break;
    case 'boolean':
      if (raw !== 'true' && raw !== 'false')
        throw new UsageError(`${flag} expects true or false, got "${raw}"`);
      v = raw === 'true';
      break;
    case 'object':
    case 'array':
    case 'any':
      try {
        v = JSON.parse(raw);
      } catch {
        if (type !== 'any') throw new UsageError(`${flag} expects JSON, got "${raw}"`);
      }
      break;
    default:
      break;
  }
  if (enumValues?.length && !enumValues.some((e) => e === v)) {
    throw new UsageError(`${flag} must be one of ${enumValues.join(', ')}, got "${raw}"`);
  }
  return v;
}

/** A flag's raw value(s) → the wire value of `field` (`now` for relative times such as `24h`). */
export function coerceFlag(field: ManifestField, raw: unknown, flag: string, now?: number): unknown {
  if (raw === undefined) return undefined;
  if (typeof raw === 'boolean') return raw;
  if (field.nullable && raw === 'null') return null;
  if (field.type === 'array' && Array.isArray(raw)) {
    return raw
      .flatMap((r) => String(r).split(','))
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((s) => scalar(s, field.items, flag, field.enum, field, now));
  }
  return scalar(String(raw), field.type, flag, field.enum, field, now);
}

/** A positional path parameter. */
export function coerceArg(field: ManifestField, raw: string, name: string): string | number {
  if (field.type === 'integer' || field.type === 'number') {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n <= 0) {
      throw new UsageError(`${name.toUpperCase()} must be a positive integer, got "${raw}"`);
    }
    return n;
  }
  if (raw === '') throw new UsageError(`${name.toUpperCase()} must not be empty`);
  return raw;
}
