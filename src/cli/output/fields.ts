import { UsageError } from '../errors.js';

// `--json id,status,total`: keep only these fields of each record of the payload. A list keeps
// its shape (an array, or a page `{results, page, size, total}` whose results are narrowed); a
// single record is narrowed itself. A field a record lacks is null, so every record has them all.

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Row = Record<string, unknown>;
const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `id, status ,total` → ['id', 'status', 'total']; anything else is a usage error. */
export function parseFields(raw: string): string[] {
  const fields = raw
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  const bad = fields.find((f) => !FIELD.test(f));
  if (bad !== undefined || fields.length === 0)
    throw new UsageError(
      `--json expects field names separated by commas (e.g. --json id,status), got "${raw}"`,
    );
  return [...new Set(fields)];
}

/** The usage error for fields that are not among `available`, listing those that are. */
export function checkFields(fields: readonly string[], available: readonly string[], what: string): void {
  const unknown = fields.filter((f) => !available.includes(f));
  if (unknown.length === 0) return;
  const list = [...available].sort();
  throw new UsageError(
    `unknown --json field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => `"${f}"`).join(', ')} for ${what}; available fields:\n  ${list.join('\n  ')}`,
  );
}

/** The records `value` holds, and how to put narrowed ones back; undefined when it holds none. */
function recordsOf(value: unknown): { rows: Row[]; rebuild: (rows: Row[]) => unknown } | undefined {
  if (Array.isArray(value)) {
    if (!value.every(isRecord)) return undefined;
    return { rows: value, rebuild: (rows) => rows };
  }
  if (isRecord(value) && Array.isArray(value.results) && typeof value.total === 'number') {
    const results = value.results;
    if (!results.every(isRecord)) return undefined;
    return { rows: results, rebuild: (rows) => ({ ...value, results: rows }) };
  }
  if (isRecord(value)) return { rows: [value], rebuild: (rows) => rows[0] };
  return undefined;
}

/**
 * Narrows `value` to `fields`. Without `known` (a command whose fields are not in the contract),
 * a field no record has is a usage error naming those the records do have.
 */
export function selectFields(
  value: unknown,
  fields: readonly string[],
  what: string,
  known?: readonly string[],
): unknown {
  const found = recordsOf(value);
  if (!found)
    throw new UsageError(
      `--json ${fields.join(',')}: ${what} prints no records to select fields from; use --jq`,
    );
  if (!known && found.rows.length > 0) {
    const seen = new Set(found.rows.flatMap((r) => Object.keys(r)));
    checkFields(fields, [...seen], what);
  }
  return found.rebuild(
    found.rows.map((r) => Object.fromEntries(fields.map((f) => [f, r[f] === undefined ? null : r[f]]))),
  );
}
