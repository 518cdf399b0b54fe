import { z } from 'zod';
import type { OperationSpec } from '../../contract/operation.js';
import { toJsonSchema } from '../../contract/json-schema.js';
import { pathParamNames } from '../../contract/operation.js';
import type { FieldType, Manifest, ManifestField, ManifestOp } from './types.js';

type Json = Record<string, unknown>;

function jsonSchema(s: z.ZodType): Json {
  return z.toJSONSchema(s, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
}

const TYPES: readonly FieldType[] = ['string', 'integer', 'number', 'boolean', 'array', 'object'];

interface Described {
  type: FieldType;
  nullable: boolean;
  enum?: (string | number)[];
  items?: Json;
  minimum?: number;
  maximum?: number;
  format?: 'date-time' | 'date-or-time';
}

/** Inclusive bounds a person can be told (`exclusiveMinimum: 0` of an integer is 1; ±2^53 is none). */
function bounds(node: Json, integer: boolean): { minimum?: number; maximum?: number } {
  const out: { minimum?: number; maximum?: number } = {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const lo =
    num(node.minimum) ??
    (integer && num(node.exclusiveMinimum) !== undefined ? num(node.exclusiveMinimum)! + 1 : undefined);
  const hi =
    num(node.maximum) ??
    (integer && num(node.exclusiveMaximum) !== undefined ? num(node.exclusiveMaximum)! - 1 : undefined);
  if (lo !== undefined && lo > Number.MIN_SAFE_INTEGER) out.minimum = lo;
  if (hi !== undefined && hi < Number.MAX_SAFE_INTEGER) out.maximum = hi;
  return out;
}

/** Collapses `anyOf [X, null]` / `type: [X, 'null']` / enums / consts into one flag-friendly shape. */
function describe(s: Json): Described {
  let nullable = false;
  let node = s;
  const alts = (node.anyOf ?? node.oneOf) as Json[] | undefined;
  if (Array.isArray(alts)) {
    const nonNull = alts.filter((a) => a.type !== 'null');
    nullable = nonNull.length < alts.length;
    // An ISO time or a bare date (`from`/`to` of the order list): one string flag.
    const formats = nonNull.map((a) => (a.type === 'string' ? a.format : undefined));
    if (nonNull.length === 2 && formats.includes('date-time') && formats.includes('date'))
      return { type: 'string', nullable, format: 'date-or-time' };
    if (nonNull.length !== 1) return { type: 'any', nullable };
    node = nonNull[0]!;
  }
  let t = node.type;
  if (Array.isArray(t)) {
    nullable ||= t.includes('null');
    const rest = t.filter((x) => x !== 'null');
    t = rest.length === 1 ? rest[0] : undefined;
  }
  const en = Array.isArray(node.enum)
    ? (node.enum as unknown[]).filter(
        (v): v is string | number => typeof v === 'string' || typeof v === 'number',
      )
    : node.const !== undefined && (typeof node.const === 'string' || typeof node.const === 'number')
      ? [node.const]
      : undefined;
  if (t === undefined && en?.length) t = typeof en[0] === 'number' ? 'number' : 'string';
  const type = TYPES.includes(t as FieldType) ? (t as FieldType) : 'any';
  return {
    type,
    nullable,
    ...(type === 'integer' || type === 'number' ? bounds(node, type === 'integer') : {}),
    ...(type === 'string' && node.format === 'date-time' ? { format: 'date-time' as const } : {}),
    ...(en?.length ? { enum: en } : {}),
    ...(type === 'array' && node.items && typeof node.items === 'object'
      ? { items: node.items as Json }
      : {}),
  };
}

/**
 * Defaults the JSON Schema loses (a `.default()` around a `z.preprocess`, as every query integer
 * is): read from the zod object's shape itself.
 */
function zodDefaults(schema: z.ZodType | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const shape = (schema as { shape?: Record<string, z.ZodType> } | undefined)?.shape;
  for (const [name, s] of Object.entries(shape ?? {})) {
    const def = (s as { _zod?: { def?: { type?: string; defaultValue?: unknown } } })._zod?.def;
    if (def?.type === 'default' && ['string', 'number', 'boolean'].includes(typeof def.defaultValue))
      out[name] = def.defaultValue;
  }
  return out;
}

/**
 * Field descriptions as the contract documents them (its `documentedAs` schemas, e.g. the order
 * list's status filter), which zod's own rendering above leaves out.
 */
function documented(schema: z.ZodType | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!schema) return out;
  const props = (toJsonSchema(schema, 'input').properties ?? {}) as Record<string, Json>;
  for (const [name, p] of Object.entries(props))
    if (typeof p.description === 'string') out[name] = p.description;
  return out;
}

interface Extras {
  defaults?: Record<string, unknown>;
  descriptions?: Record<string, string>;
}

function fields(schema: Json | undefined, only?: readonly string[], extras: Extras = {}): ManifestField[] {
  const defaults = extras.defaults ?? {};
  const props = (schema?.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  return Object.entries(props)
    .filter(([name]) => !only || only.includes(name))
    .map(([name, s]) => {
      const d = describe(s);
      const f: ManifestField = { name, type: d.type, required: required.has(name) };
      const shape = d.items ? describe(d.items) : d;
      if (d.items) f.items = shape.type;
      if (shape.enum) f.enum = shape.enum;
      if (shape.minimum !== undefined) f.minimum = shape.minimum;
      if (shape.maximum !== undefined) f.maximum = shape.maximum;
      if (shape.format) f.format = shape.format;
      if (d.nullable) f.nullable = true;
      if (typeof s.description === 'string') f.description = s.description;
      else if (extras.descriptions?.[name]) f.description = extras.descriptions[name];
      if (s.default !== undefined) f.default = s.default;
      else if (defaults[name] !== undefined) f.default = defaults[name];
      return f;
    });
}

function manifestOp(op: OperationSpec): ManifestOp {
  const names = pathParamNames(op.path);
  const params = op.params ? fields(jsonSchema(op.params), names) : [];
  for (const n of names)
    if (!params.some((p) => p.name === n)) params.push({ name: n, type: 'string', required: true });
  params.sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name));
  const body = op.body ? jsonSchema(op.body) : undefined;
  return {
    id: op.id,
    method: op.method,
    path: op.path,
    auth: op.auth,
    scopes: [...op.scopes],
    summary: op.summary,
    status: op.status ?? 200,
    paginated: op.paginated === true,
    cli: op.cli
      ? {
          command: [...op.cli.command],
          example: op.cli.example,
          ...(op.cli.flags ? { flags: { ...op.cli.flags } } : {}),
        }
      : null,
    params: params.map((p) => ({ ...p, required: true })),
    query: op.query
      ? fields(jsonSchema(op.query), undefined, {
          defaults: zodDefaults(op.query),
          descriptions: documented(op.query),
        })
      : [],
    body: body
      ? {
          fields:
            body.type === 'object'
              ? fields(body, undefined, { defaults: zodDefaults(op.body), descriptions: documented(op.body) })
              : [],
          open: body.type !== 'object' || body.additionalProperties !== false,
        }
      : null,
  };
}

export function buildManifest(ops: readonly OperationSpec[]): Manifest {
  return { ops: ops.map(manifestOp) };
}
