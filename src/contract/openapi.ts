import { ERROR_CATALOGUE, type ErrorCode } from './errors.js';
import { toJsonSchema } from './json-schema.js';
import type { OperationSpec } from './operation.js';
import { pathParamNames } from './operation.js';
import { errorCodesOf } from './operation-errors.js';
import EXAMPLES from './openapi-examples.json' with { type: 'json' };
import { OPERATION_LIST } from './operations.js';

type Json = Record<string, unknown>;

/** One request and its answer, captured from the demo server (test/server/openapi-examples.test.ts). */
export interface OperationExample {
  params?: Record<string, string | number>;
  query?: Record<string, string | number>;
  body?: unknown;
  status: number;
  response: unknown;
}
export const OPERATION_EXAMPLES = EXAMPLES as Record<string, OperationExample>;

const IDEMPOTENCY_KEY: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: true,
  schema: { type: 'string', minLength: 1, maxLength: 64, pattern: '\\S' },
  description:
    'Required on every write: 1–64 characters, not blank (missing or blank → 400 request_missing_idempotency_key, longer → 400 request_invalid). Scoped to the credential, kept 24 h: the same key and body replay the stored answer (Idempotent-Replayed: true); another body → 409 state_idempotency_conflict.',
  example: 'order-1042-ready',
};

const HEADERS = {
  'X-Request-Id': {
    description: 'The request id, also in the body (`request_id`)',
    schema: { type: 'string' },
  },
  'RateLimit-Limit': { description: "The credential's requests per minute", schema: { type: 'integer' } },
  'RateLimit-Remaining': {
    description: 'Whole requests left in the token bucket',
    schema: { type: 'integer' },
  },
  'RateLimit-Reset': { description: 'Seconds until the bucket is full again', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
};

/** `ACCEPTED,4` as the list a tool would serialise to it. */
function listExample(v: string | number): (string | number)[] {
  return String(v)
    .split(',')
    .map((x) => (/^\d+$/.test(x) ? Number(x) : x));
}

function parameters(op: OperationSpec, ex: OperationExample | undefined): Json[] {
  const out: Json[] = [];
  const params = op.params ? (toJsonSchema(op.params, 'input').properties as Record<string, Json>) : {};
  for (const name of pathParamNames(op.path)) {
    out.push({
      name,
      in: 'path',
      required: true,
      schema: params[name] ?? { type: 'string' },
      ...(ex?.params?.[name] !== undefined ? { example: ex.params[name] } : {}),
    });
  }
  if (op.query) {
    const q = toJsonSchema(op.query, 'input');
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, raw] of Object.entries((q.properties as Record<string, Json>) ?? {})) {
      const { description, ...s } = raw;
      const tenancy = name === 'business_id' || name === 'filterByBusiness';
      // Accepted on reads because the spec names them there; on writes they are noise.
      if (tenancy && op.method !== 'GET') continue;
      out.push({
        name,
        in: 'query',
        required: required.has(name),
        schema: tenancy ? { type: 'string' } : s,
        ...(description ? { description } : {}),
        // A list is sent comma-separated (`status=ACCEPTED,4`).
        ...(s.type === 'array' ? { style: 'form', explode: false } : {}),
        ...(ex?.query?.[name] !== undefined
          ? { example: s.type === 'array' ? listExample(ex.query[name]) : ex.query[name] }
          : {}),
      });
    }
  }
  if (op.method !== 'GET' && op.auth === 'partner') out.push(IDEMPOTENCY_KEY);
  return out;
}

function errorEnvelope(codes: readonly ErrorCode[]): Json {
  return {
    type: 'object',
    required: ['request_id', 'error'],
    additionalProperties: false,
    properties: {
      request_id: { type: 'string' },
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', enum: [...codes] },
          message: { type: 'string' },
          details: { description: 'Validation errors: [{path, message}]; other codes: see docs/errors.md' },
        },
      },
    },
  };
}

function errorExample(code: ErrorCode): Json {
  return {
    request_id: 'req_3f9a1c000042',
    error: {
      code,
      message: ERROR_CATALOGUE[code].message,
      ...(code === 'request_invalid'
        ? { details: [{ path: ['body', 'title'], message: 'must not be blank' }] }
        : code === 'rate_limit_exceeded'
          ? { details: { retry_after: 2 } }
          : {}),
    },
  };
}

/** One response per HTTP status the operation can answer with an error, listing its codes. */
function errorResponses(op: OperationSpec): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(op)) {
    const s = ERROR_CATALOGUE[code].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
    if (status === 429) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\``).join(', '),
      headers,
      content: {
        'application/json': {
          schema: errorEnvelope(codes),
          // One example per code, shared by every operation (components.examples).
          examples: Object.fromEntries(codes.map((c) => [c, { $ref: `#/components/examples/${c}` }])),
        },
      },
    };
  }
  return out;
}

function successResponse(op: OperationSpec, ex: OperationExample | undefined): Json {
  const data = toJsonSchema(op.response, 'output');
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  const headers: Json = { 'X-Request-Id': ref('X-Request-Id') };
  if (op.auth === 'partner') {
    headers['RateLimit-Limit'] = ref('RateLimit-Limit');
    headers['RateLimit-Remaining'] = ref('RateLimit-Remaining');
    headers['RateLimit-Reset'] = ref('RateLimit-Reset');
  }
  const schema = op.raw
    ? data
    : {
        type: 'object',
        required: ['request_id', 'data'],
        additionalProperties: false,
        properties: { request_id: { type: 'string' }, data: data },
      };
  const example = ex && !op.raw ? { example: { request_id: 'req_3f9a1c000041', data: ex.response } } : {};
  return {
    description: op.raw ? 'The document itself (no envelope)' : 'Success: the envelope with `data`',
    headers,
    content: { 'application/json': { schema, ...example } },
  };
}

const TAGS: Record<string, string> = {
  brands: "The credential's business and its brands",
  branches: 'Branches (stores): records, schedules, visibility',
  dictionaries: 'Reference data: countries, cities, currencies, payment dictionaries',
  items: 'Live stock state of SKUs at a branch: availability, snooze, stock counts',
  menus: 'Menu authoring (business level), sync to stores, publish, the published store menu',
  'oos-activity': 'Out-of-stock history',
  'openapi.json': 'This document',
  orders: 'Orders, their status dictionary, status changes and comments',
  price: 'Price groups (price tiers of branches)',
  providers: 'Marketplaces and aggregators; their ids key VisibilitiesMap and PriceMap',
  webhooks: 'The receiver URLs registered for the business',
};

/** Whether the body schema accepts `{}` (then a request without a body, read as `{}`, is fine too). */
function bodyOptional(op: OperationSpec): boolean {
  return op.body ? op.body.safeParse({}).success : true;
}

/** The OpenAPI 3.1 document of the partner API, derived from the operation table. */
export function buildOpenApi(version: string, ops: readonly OperationSpec[] = OPERATION_LIST): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of ops) {
    if (op.auth === 'operator') continue;
    const ex = OPERATION_EXAMPLES[op.id];
    const entry: Json = {
      operationId: op.id,
      summary: op.summary,
      tags: [op.path.split('/')[3] ?? 'partner'],
      parameters: parameters(op, ex),
      responses: { [String(op.status ?? 200)]: successResponse(op, ex), ...errorResponses(op) },
    };
    if (op.auth === 'none') entry.security = [];
    if (op.scopes.length > 0) {
      entry.description = `Scope: ${op.scopes.map((s) => `\`${s}\``).join(' or ')}.`;
      entry['x-scopes'] = op.scopes;
    }
    if (op.body) {
      entry.requestBody = {
        required: !bodyOptional(op),
        content: {
          'application/json': {
            schema: toJsonSchema(op.body, 'input'),
            ...(ex?.body !== undefined ? { example: ex.body } : {}),
          },
        },
      };
    }
    const byMethod = paths[op.path] ?? {};
    byMethod[op.method.toLowerCase()] = entry;
    paths[op.path] = byMethod;
  }
  const documented = ops.filter((o) => o.auth !== 'operator');
  const used = new Set(documented.flatMap((o) => errorCodesOf(o)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Partner Integration API',
      version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Brands, branches, orders, menus, stock and signed order webhooks. Every response under /v1 is an envelope: {request_id, data} or {request_id, error:{code, message, details?}} (this document is the one exception); clients switch on error.code. Request bodies are JSON objects in UTF-8, at most 1 MiB after decoding (Content-Encoding gzip, deflate or br accepted). A path with a method it does not serve answers 405 request_method_not_allowed with Allow.',
    },
    servers: [{ url: '/' }],
    security: [{ basic: [] }],
    tags: [...new Set(documented.map((o) => o.path.split('/')[3] ?? 'partner'))]
      .sort()
      .map((name) => ({ name, description: TAGS[name] ?? name })),
    paths,
    components: {
      examples: Object.fromEntries(
        (Object.keys(ERROR_CATALOGUE) as ErrorCode[])
          .filter((c) => used.has(c))
          .map((c) => [c, { summary: ERROR_CATALOGUE[c].message, value: errorExample(c) }]),
      ),
      headers: HEADERS,
      securitySchemes: {
        basic: {
          type: 'http',
          scheme: 'basic',
          description: 'Basic base64(partner_key:secret_key). Secrets are shown once at issuance.',
        },
      },
    },
  };
}
