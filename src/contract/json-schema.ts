import { z } from 'zod';

// JSON Schema of the contract's zod schemas, for the OpenAPI document. zod cannot express some
// rules (a transform accepting ids or codes, "at least one of"); these helpers make the document
// say what the server does anyway.

type Json = Record<string, unknown>;

const OVERRIDES = new WeakMap<z.ZodType, Json>();

/** Documents `schema` as `json` (where zod's own rendering would say less than the server checks). */
export function documentedAs<T extends z.ZodType>(schema: T, json: Json): T {
  OVERRIDES.set(schema, json);
  return schema;
}

/** An object that must carry at least one of `keys`, checked by the server and stated as `anyOf`. */
export function atLeastOneOf<T extends z.ZodObject>(schema: T, keys: readonly string[]) {
  return schema
    .refine((b) => keys.some((k) => (b as Record<string, unknown>)[k] !== undefined), {
      message: `give at least one of ${keys.join(', ')}`,
    })
    .meta({ anyOf: keys.map((k) => ({ required: [k] })) });
}

/**
 * The names of the contract's resources, as the OpenAPI document's `components.schemas` (and so
 * the type names a code generator gives them). A registry of our own rather than zod's global
 * one: two copies of the contract in one process (the library next to the CLI) must not meet.
 */
const NAMES = z.registry<{ id: string }>();

/** Names `schema` (in place: the same instance, so `z.infer` and the document agree). */
export function named<T extends z.ZodType>(id: string, schema: T): T {
  NAMES.add(schema, { id });
  return schema;
}

/** zod's descriptions and our names, as one registry for z.toJSONSchema (it only calls `get`). */
const METADATA = {
  get(schema: z.ZodType) {
    const global = z.globalRegistry.get(schema);
    const name = NAMES.get(schema);
    return global || name ? { ...global, ...name } : undefined;
  },
} as unknown as typeof z.globalRegistry;

/** Text may not hold U+0000 anywhere (a body, a path, a query): the server refuses it. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';
/** Not blank (a non-space character somewhere) and no U+0000. */
export const NON_BLANK_PATTERN = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';

/**
 * Whether a (JSON Schema, so unanchored) pattern can only match strings without U+0000: anchored
 * at both ends and built of digits, literals and classes that exclude it.
 */
function excludesNul(pattern: string): boolean {
  const bare = pattern.replace(/\\[^SDW]/g, '');
  return pattern.startsWith('^') && pattern.endsWith('$') && !/\.|\[\^|\\[SDW]/.test(bare);
}

/** Adds the U+0000 rule to a string node (unless its format, enum or pattern already excludes it). */
function statesNoNul(node: Json): void {
  if (node.type !== 'string' || node.format || node.enum || 'const' in node) return;
  const p = node.pattern as string | undefined;
  if (p === undefined) node.pattern = NO_NUL_PATTERN;
  else if (p === '\\S') node.pattern = NON_BLANK_PATTERN;
  else if (!excludesNul(p)) node.allOf = [...((node.allOf as Json[]) ?? []), { pattern: NO_NUL_PATTERN }];
}

function convert(s: z.ZodType, io: 'input' | 'output', metadata?: typeof z.globalRegistry): Json {
  const out = z.toJSONSchema(s, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    ...(metadata ? { metadata } : {}),
    override: (ctx) => {
      const o = OVERRIDES.get(ctx.zodSchema as unknown as z.ZodType);
      if (o) {
        for (const k of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Json)[k];
        Object.assign(ctx.jsonSchema, structuredClone(o));
      }
      statesNoNul(ctx.jsonSchema as Json);
    },
  }) as Json;
  delete out.$schema;
  return out;
}

/** The schema with everything inline. */
export function toJsonSchema(s: z.ZodType, io: 'input' | 'output'): Json {
  return convert(s, io);
}

/**
 * The schema with every named part (see `named`) as a `$ref` to `#/components/schemas/NAME`;
 * the named parts go into `into` (a part met twice must render the same both times).
 */
export function toNamedJsonSchema(s: z.ZodType, io: 'input' | 'output', into: Record<string, Json>): Json {
  const out = convert(s, io, METADATA);
  const defs = (out.$defs ?? {}) as Record<string, Json>;
  delete out.$defs;
  const relink = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(relink);
    if (!v || typeof v !== 'object') return v;
    const o: Json = {};
    for (const [k, x] of Object.entries(v)) {
      o[k] =
        k === '$ref' && typeof x === 'string' ? x.replace('#/$defs/', '#/components/schemas/') : relink(x);
    }
    return o;
  };
  for (const [name, def] of Object.entries(defs)) {
    const d = relink(def) as Json;
    delete d.id;
    const had = into[name];
    if (had && JSON.stringify(had) !== JSON.stringify(d))
      throw new Error(`schema ${name} renders differently as ${io}: name its ${io} form apart`);
    into[name] = d;
  }
  const root = relink(out) as Json;
  delete root.id;
  return root;
}

/**
 * Rules the server checks that the document's schemas cannot state: against the stored data or
 * the clock, or between query parameters (a SKU taken in the brand, an id of another business,
 * `from` after `to`, a time in the past, brand_id without branch_id):
 * field → the rule, for a body or query schema. The document lists them on each operation
 * (`x-rules`, and in its description); a refusal of them is `400 request_invalid` naming the field.
 */
const STATE_RULES = new WeakMap<z.ZodType, Readonly<Record<string, string>>>();

export function stateRules<T extends z.ZodType>(schema: T, rules: Readonly<Record<string, string>>): T {
  STATE_RULES.set(schema, { ...STATE_RULES.get(schema), ...rules });
  return schema;
}

export function stateRulesOf(schema: z.ZodType | undefined): Readonly<Record<string, string>> {
  return (schema && STATE_RULES.get(schema)) ?? {};
}
