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

export function toJsonSchema(s: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(s, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: (ctx) => {
      const o = OVERRIDES.get(ctx.zodSchema as unknown as z.ZodType);
      if (!o) return;
      for (const k of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Json)[k];
      Object.assign(ctx.jsonSchema, structuredClone(o));
    },
  }) as Json;
  delete out.$schema;
  return out;
}
