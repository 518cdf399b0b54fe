import type { Command } from 'commander';
import type { Ctx } from '../context.js';
import type { Action } from './action.js';
import type { ManifestField, ManifestOp } from '../manifest/types.js';

/**
 * What commander parsed from a derived command's flags, by camelCased flag name: a value flag's
 * text, a boolean flag's switch, a repeatable flag's list. The flags come from the contract's
 * operation table, so their names are data; each is read and checked by its FlagSpec.
 */
export type FlagValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

// Pure derivation of a subcommand from a row of the operation table: path params become
// positional arguments, query fields and top-level body fields become kebab-case flags.
// No commander here, so the rules unit-test on plain data.

type FlagKind = 'value' | 'boolean' | 'list';

export interface FlagSpec {
  /** Flag name without dashes, e.g. `brand` for `--brand`. */
  name: string;
  /** Hidden alternative spellings (e.g. `brand-id`). */
  aliases: string[];
  field: ManifestField;
  in: 'query' | 'body';
  kind: FlagKind;
  valueName: string;
  description: string;
}

interface ArgSpec {
  name: string;
  field: ManifestField;
  /** Shown in usage and errors, e.g. `SKU`. */
  label: string;
}

export interface OperationCommand {
  op: ManifestOp;
  path: string[];
  args: ArgSpec[];
  flags: FlagSpec[];
  /** Name of the whole-body option: `data` (partner) or `body` (operator, where `--data` is the data dir). */
  bodyOption: 'data' | 'body' | null;
  /** Paginated: offers `--all`. */
  all: boolean;
  /** Deletes ask first (`--yes` skips). */
  confirm: boolean;
  /** Writes take `--idempotency-key`. */
  idempotencyKey: boolean;
  /** The hand-written part, when the generic command alone would be poor (overrides.ts). */
  override?: Override;
}

interface OverrideArg {
  name: string;
  description: string;
  variadic?: boolean;
  optional?: boolean;
}

interface OverrideOption {
  /** Commander flags, e.g. `--reason <text>`. */
  flags: string;
  description: string;
}

export interface FillInput {
  params: Record<string, string | number>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | unknown[] | undefined;
}

/**
 * Hand-written adjustments of a derived command, keyed by operation id: extra positionals and
 * options, wire fields the override fills itself (their generic flags are dropped), and a fill
 * step that runs before required fields are checked. `replace` swaps the whole command.
 */
export interface Override {
  args?: OverrideArg[];
  options?: OverrideOption[];
  omit?: string[];
  fill?(f: { ctx: Ctx; input: FillInput; args: string[]; opts: FlagValues }): void | Promise<void>;
  /**
   * Destructive but not a DELETE (e.g. revoking a credential): asks this question first, like a
   * delete (`--yes` skips; no terminal and no `--yes` is a usage error).
   */
  confirm?: (input: FillInput) => string;
  /** Registers a completely hand-written command under `parent` instead of the derived one. */
  replace?: (parent: Command, op: ManifestOp, action: Action) => void;
}

/** Flag names that global or per-command options already own. */
export const RESERVED_FLAGS = new Set([
  'help',
  'version',
  'profile',
  'base-url',
  'json',
  'jq',
  'template',
  'pager',
  'color',
  'verbose',
  'insecure',
  'data',
  'body',
  'yes',
  'all',
  'idempotency-key',
  'server',
  'token',
]);

/** How a path parameter reads in usage lines (`items availability SKU`). */
const ARG_NAMES: Readonly<Record<string, string>> = { partner_item_id: 'sku' };

export function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();
}

/**
 * `brand_id` → `--brand` (alias `--brand-id`), `branch_ids` → `--branch` repeatable (alias
 * `--branch-ids`), `fieldIncludeOnSync` → `--field-include-on-sync`: the short forms are the
 * documented names (docs/cli.md: `orders list --branch ID`, `menu sync --brand ID --branch ID…`).
 */
export function flagNamesFor(field: ManifestField, op: ManifestOp): { name: string; aliases: string[] } {
  const fixed = op.cli?.flags?.[field.name];
  const full = kebab(field.name);
  if (fixed) return { name: fixed, aliases: fixed === full ? [] : [full] };
  const m = /^([a-z][a-z0-9]*)_ids?$/.exec(field.name);
  if (m && (field.type === 'array') === field.name.endsWith('_ids')) return { name: m[1]!, aliases: [full] };
  return { name: full, aliases: [] };
}

function kindOf(field: ManifestField): FlagKind {
  if (field.type === 'boolean') return 'boolean';
  if (field.type === 'array' && field.items !== 'object' && field.items !== 'any') return 'list';
  return 'value';
}

function valueNameOf(field: ManifestField, name: string): string {
  if (field.type === 'object' || (field.type === 'array' && kindOf(field) === 'value')) return 'json';
  const t = field.type === 'array' ? field.items : field.type;
  if (field.name.endsWith('_id') || field.name.endsWith('_ids') || field.name === 'id') return 'id';
  if (t === 'integer' || t === 'number') return 'n';
  return name.replace(/-/g, '_').slice(0, 20);
}

/** `brand_ids` → `brand ids`, `availableTimes` → `available times`. */
function words(name: string): string {
  return kebab(name).replace(/-/g, ' ');
}

/** `≥ 1`, `0 to 2359`, `≤ 100`, or nothing. */
function boundsText(field: ManifestField): string {
  const { minimum: lo, maximum: hi } = field;
  if (lo !== undefined && hi !== undefined) return ` ${lo} to ${hi}`;
  if (lo !== undefined) return ` ≥ ${lo}`;
  if (hi !== undefined) return ` ≤ ${hi}`;
  return '';
}

/**
 * What a flag takes, from its schema: the accepted forms of a time (those of the CLI's own time
 * parser, input.ts), the enum values, the type and bounds of a number, JSON for objects.
 */
function acceptsText(field: ManifestField, kind: FlagKind): string {
  if (field.format)
    return `ISO 8601 time with offset (2024-05-01T10:00:00Z)${field.format === 'date-or-time' ? ', a date (2024-05-01)' : ''}, now, or a time ago (30m, 24h, 7d, 2w)`;
  if (field.enum?.length) return `one of ${field.enum.join(', ')}`;
  if (kind === 'boolean')
    return `boolean: --${kebab(field.name)} for true, --no-${kebab(field.name)} for false`;
  const many = field.type === 'array';
  const t = many ? field.items : field.type;
  const idLike = /(^|_)ids?$/.test(field.name) && field.minimum === 1;
  // [one, several] of each kind of value, then its bounds.
  const [one, several] =
    t === 'integer'
      ? idLike
        ? ['positive integer', 'positive integers']
        : ['integer', 'integers']
      : t === 'number'
        ? ['number', 'numbers']
        : t === 'string'
          ? ['text', 'text values']
          : t === 'boolean'
            ? ['true or false', 'true/false values']
            : t === 'object'
              ? ['a JSON object', 'objects']
              : ['JSON (or text)', 'values'];
  const bounds = idLike ? '' : boundsText(field);
  if (!many) return `${one}${bounds}`;
  return kind === 'list'
    ? `${several}${bounds}, comma-separated or repeated`
    : `a JSON array of ${several}${bounds}`;
}

function describeField(field: ManifestField, kind: FlagKind, aliases: string[]): string {
  // The schema's own description when it has one; otherwise the field's name in words, followed
  // in both cases by what the flag accepts, so no help line is only the flag's name again.
  const parts: string[] = [field.description?.replace(/\.$/, '') ?? words(field.name)];
  const accepts = acceptsText(field, kind);
  // A described field of plain text: its description already says what to give.
  if (!(field.description && accepts === 'text')) parts.push(accepts);
  if (field.nullable) parts.push('"null" clears');
  if (aliases.length) parts.push(`also --${aliases.join(', --')}`);
  let text = parts.join('; ');
  if (field.required) text += ' (required)';
  if (field.default !== undefined) text += ` (default ${JSON.stringify(field.default)})`;
  return text;
}

export function deriveCommand(op: ManifestOp, override?: Override): OperationCommand | undefined {
  if (!op.cli) return undefined;
  const omit = new Set(override?.omit ?? []);
  const flags: FlagSpec[] = [];
  const taken = new Set<string>(RESERVED_FLAGS);
  for (const o of override?.options ?? []) {
    const m = /--([a-z0-9-]+)/.exec(o.flags);
    if (m) taken.add(m[1]!);
  }
  if (op.paginated) taken.add('all');
  const add = (field: ManifestField, where: 'query' | 'body') => {
    // business_id is accepted by partner operations and always overwritten: not worth a flag.
    if (op.auth !== 'operator' && (field.name === 'business_id' || field.name === 'filterByBusiness')) return;
    if (omit.has(field.name)) return;
    const { name, aliases } = flagNamesFor(field, op);
    if (taken.has(name) || taken.has(`no-${name}`)) return; // still reachable through --data
    const free = aliases.filter((a) => !taken.has(a));
    taken.add(name);
    for (const a of free) taken.add(a);
    const kind = kindOf(field);
    flags.push({
      name,
      aliases: free,
      field,
      in: where,
      kind,
      valueName: valueNameOf(field, name),
      description: describeField(field, kind, free),
    });
  };
  for (const f of op.query) add(f, 'query');
  for (const f of op.body?.fields ?? []) add(f, 'body');
  const write = op.method !== 'GET';
  return {
    op,
    path: [...op.cli.command],
    args: op.params.map((p) => ({
      name: p.name,
      field: p,
      label: (ARG_NAMES[p.name] ?? p.name).toUpperCase(),
    })),
    flags,
    bodyOption: op.body ? (op.auth === 'operator' ? 'body' : 'data') : null,
    all: op.paginated,
    confirm: op.method === 'DELETE' || override?.confirm !== undefined,
    idempotencyKey: write && op.auth === 'partner',
    ...(override ? { override } : {}),
  };
}
