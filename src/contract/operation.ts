import type { z } from 'zod';
import type { ErrorCode } from './errors.js';
import type { Scope } from './scopes.js';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One row of the operation table. Server routes, client calls, CLI subcommands and the
 * OpenAPI document are all derived from these rows.
 */
export interface OperationSpec {
  id: string;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/partner/branches/{id}`. */
  path: string;
  /** `partner`: Basic credential; `operator`: bearer operator token; `none`: public. */
  auth: 'partner' | 'operator' | 'none';
  /** Any one of these grants the call; empty = any valid credential. */
  scopes: readonly Scope[];
  summary: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Schema of the envelope's `data`. */
  response: z.ZodType;
  /** Success status; 200 unless the row says otherwise. */
  status?: 200 | 201;
  /**
   * Error codes this operation's own rules can answer, beyond those that follow from its shape
   * (auth, validation, idempotency, ids in the path: see operation-errors.ts).
   */
  errors?: readonly ErrorCode[];
  /** The answer is the payload itself, not wrapped in the envelope (the OpenAPI document). */
  raw?: true;
  /** The response is `{results, page, size, total}` and the CLI offers `--all`. */
  paginated?: boolean;
  /** CLI name (docs/cli.md) and a help example; path params become positional arguments in path order. */
  cli: {
    command: readonly string[];
    example: string;
    /** Flag names fixed by hand where they differ from the kebab-cased field (`business_id` → `business`). */
    flags?: Readonly<Record<string, string>>;
  } | null;
}

export function defineOperation<const O extends OperationSpec>(o: O): O {
  return o;
}

type Out<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

/** What a handler receives for an operation, typed from its schemas. */
export interface OperationInput<O extends OperationSpec> {
  params: Out<O['params']>;
  query: Out<O['query']>;
  body: Out<O['body']>;
}
export type OperationOutput<O extends OperationSpec> = z.output<O['response']>;

/** `/v1/partner/branches/{id}` → `['id']` */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

export function fillPath(path: string, params: Record<string, string | number>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(String(v));
  });
}
