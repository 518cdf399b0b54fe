import { z } from 'zod';
import type { OperationSpec } from '../../contract/operation.js';
import { pathParamNames } from '../../contract/operation.js';
import type { FieldType, Manifest, ManifestField, ManifestOp } from './types.js';

type Json = Record<string, unknown>;

function jsonSchema(s: z.ZodType): Json {
  return z.toJSONSchema(s, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
}

const TYPES: readonly FieldType[] = ['string', 'integer', 'number', 'boolean', 'array', 'object'];

/** Collapses `anyOf [X, null]` / `type: [X, 'null']` / enums / consts into one flag-friendly shape. */
function describe(s: Json): { type: FieldType; nullable: boolean; enum?: (string | number)[]; items?: Json } {
  let nullable = false;
  let node = s;
  const alts = (node.anyOf ?? node.oneOf) as Json[] | undefined;
  if (Array.isArray(alts)) {
    const nonNull = alts.filter((a) => a.type !== 'null');
    nullable = nonNull.length < alts.length;
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
    ...(en?.length ? { enum: en } : {}),
    ...(type === 'array' && node.items && typeof node.items === 'object'
      ? { items: node.items as Json }
      : {}),
  };
}

function fields(schema: Json | undefined, only?: readonly string[]): ManifestField[] {
  const props = (schema?.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  return Object.entries(props)
    .filter(([name]) => !only || only.includes(name))
    .map(([name, s]) => {
      const d = describe(s);
      const f: ManifestField = { name, type: d.type, required: required.has(name) };
      if (d.items) {
        const i = describe(d.items);
        f.items = i.type;
        if (i.enum) f.enum = i.enum;
      } else if (d.enum) f.enum = d.enum;
      if (d.nullable) f.nullable = true;
      if (typeof s.description === 'string') f.description = s.description;
      if (s.default !== undefined) f.default = s.default;
      return f;
    });
}

export function manifestOp(op: OperationSpec): ManifestOp {
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
    query: op.query ? fields(jsonSchema(op.query)) : [],
    body: body
      ? {
          fields: body.type === 'object' ? fields(body) : [],
          open: body.type !== 'object' || body.additionalProperties !== false,
        }
      : null,
  };
}

export function buildManifest(ops: readonly OperationSpec[]): Manifest {
  return { ops: ops.map(manifestOp) };
}
