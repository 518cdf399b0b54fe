import { ERROR_CATALOGUE, type ErrorCode } from './errors.js';
import {
  NO_NUL_PATTERN,
  NON_BLANK_PATTERN,
  stateRulesOf,
  toJsonSchema,
  toNamedJsonSchema,
} from './json-schema.js';
import type { OperationSpec } from './operation.js';
import { pathParamNames } from './operation.js';
import { errorCodesOf } from './operation-errors.js';
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_PATTERN } from './idempotency-key.js';
import EXAMPLES from './openapi-examples.json' with { type: 'json' };
import { OPERATION_LIST } from './operations.js';
import {
  ORDER_EVENT_TYPES,
  OrderEventPayload,
  type OrderEventType,
  WEBHOOK_HEADERS,
} from './schemas/orders.js';

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
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: IDEMPOTENCY_KEY_PATTERN },
  description:
    'Required on every write: 1–64 printable ASCII characters (0x20–0x7E), not blank (missing or blank → 400 request_missing_idempotency_key; longer, or other characters → 400 request_invalid). Scoped to the credential, kept 24 h: the same key and body replay the stored answer (Idempotent-Replayed: true); another body → 409 state_idempotency_conflict.',
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

/** What one document is built into: the shared parts that operations refer to by `$ref`. */
interface Parts {
  schemas: Record<string, Json>;
  parameters: Record<string, Json>;
  responses: Record<string, Json>;
}

/** The query parameters many operations share: one component each, referred to where they are the same. */
const COMMON_QUERY = new Set(['page', 'size', 'business_id', 'filterByBusiness']);

const ref = (kind: keyof Parts | 'headers', name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

function parameters(op: OperationSpec, ex: OperationExample | undefined, parts: Parts): Json[] {
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
      const param: Json = {
        name,
        in: 'query',
        required: required.has(name),
        schema: tenancy ? { type: 'string', pattern: NO_NUL_PATTERN } : s,
        ...(description ? { description } : {}),
        // A list is sent comma-separated (`status=ACCEPTED,4`).
        ...(s.type === 'array' ? { style: 'form', explode: false } : {}),
      };
      const example =
        ex?.query?.[name] !== undefined
          ? { example: s.type === 'array' ? listExample(ex.query[name]) : ex.query[name] }
          : {};
      if (COMMON_QUERY.has(name)) {
        const known = parts.parameters[name];
        if (!known) parts.parameters[name] = param;
        if (!known || JSON.stringify(known) === JSON.stringify(param)) {
          out.push(ref('parameters', name));
          continue;
        }
      }
      out.push({ ...param, ...example });
    }
  }
  if (op.method !== 'GET' && op.auth === 'partner') {
    parts.parameters.IdempotencyKey = IDEMPOTENCY_KEY;
    out.push(ref('parameters', 'IdempotencyKey'));
  }
  return out;
}

/** The error codes the server may send (FORBIDDEN_SCOPE is only accepted by clients). */
const SENT_CODES = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((c) => c !== 'FORBIDDEN_SCOPE');

/** The envelope, the error body and the code union, by name. */
function envelopeSchemas(parts: Parts): void {
  parts.schemas.Envelope = {
    type: 'object',
    description: 'Every success under /v1: the request id and the data (see each operation for its data)',
    required: ['request_id', 'data'],
    properties: { request_id: { type: 'string', examples: ['req_3f9a1c000041'] }, data: {} },
  };
  parts.schemas.ErrorCode = {
    type: 'string',
    description:
      'The catalogue of error codes (docs/errors.md): switch on it; each has one HTTP status. Each operation lists those it can answer.',
    enum: SENT_CODES,
  };
  parts.schemas.Error = {
    type: 'object',
    required: ['code', 'message'],
    additionalProperties: false,
    properties: {
      code: ref('schemas', 'ErrorCode'),
      message: { type: 'string' },
      details: { description: 'Validation errors: [{path, message}]; other codes: see docs/errors.md' },
    },
  };
}

/** The error envelope, its body (`Error`) narrowed to `codes`. */
function errorEnvelope(codes: readonly ErrorCode[]): Json {
  return {
    type: 'object',
    required: ['request_id', 'error'],
    additionalProperties: false,
    properties: {
      request_id: { type: 'string' },
      error: { allOf: [ref('schemas', 'Error')], properties: { code: { enum: [...codes] } } },
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

const STATUS_NAMES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'RequestTimeout',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalError',
  502: 'BadGateway',
};
const pascal = (code: string) => code.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase());

/** The codes each operation answers, by HTTP status. */
function errorsByStatus(op: OperationSpec): [number, ErrorCode[]][] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(op)) {
    const s = ERROR_CATALOGUE[code].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), code]);
  }
  return [...byStatus].sort((a, b) => a[0] - b[0]);
}

/**
 * A name for every set of codes answered with one status, shared by the operations answering
 * exactly that set: the smallest set of a status is its plain name (`BadRequest`), the others add
 * the codes they have beyond it (`BadRequest_RequestInvalidRange`) or lack (`…_Without…`).
 */
function errorResponseNames(ops: readonly OperationSpec[]): Map<string, string> {
  const counts = new Map<number, Map<string, number>>();
  for (const op of ops)
    for (const [status, codes] of errorsByStatus(op)) {
      const m = counts.get(status) ?? new Map<string, number>();
      m.set(codes.join(','), (m.get(codes.join(',')) ?? 0) + 1);
      counts.set(status, m);
    }
  const names = new Map<string, string>();
  for (const [status, sets] of counts) {
    const size = (k: string) => k.split(',').length;
    const ranked = [...sets].sort(
      (a, b) => size(a[0]) - size(b[0]) || b[1] - a[1] || a[0].localeCompare(b[0]),
    );
    const base = ranked[0]![0].split(',');
    const stem = STATUS_NAMES[status] ?? `Status${status}`;
    for (const [key] of ranked) {
      const codes = key.split(',');
      const extra = codes.filter((c) => !base.includes(c)).map(pascal);
      const missing = base.filter((c) => !codes.includes(c)).map(pascal);
      const suffix = [...extra, ...(missing.length ? [`Without${missing.join('')}`] : [])].join('');
      names.set(`${status} ${key}`, suffix ? `${stem}_${suffix}` : stem);
    }
  }
  return names;
}

/** One response per HTTP status the operation can answer with an error, listing its codes. */
function errorResponses(op: OperationSpec, parts: Parts, names: Map<string, string>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [status, codes] of errorsByStatus(op)) {
    const name = names.get(`${status} ${codes.join(',')}`)!;
    if (!parts.responses[name]) {
      const headers: Json = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
      if (status === 429) headers['Retry-After'] = ref('headers', 'Retry-After');
      parts.responses[name] = {
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
    out[String(status)] = ref('responses', name);
  }
  return out;
}

function successResponse(op: OperationSpec, ex: OperationExample | undefined, parts: Parts): Json {
  const data = toNamedJsonSchema(op.response, 'output', parts.schemas);
  const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
  const headers: Json = { 'X-Request-Id': header('X-Request-Id') };
  if (op.auth === 'partner') {
    headers['RateLimit-Limit'] = header('RateLimit-Limit');
    headers['RateLimit-Remaining'] = header('RateLimit-Remaining');
    headers['RateLimit-Reset'] = header('RateLimit-Reset');
  }
  const schema = op.raw
    ? data
    : {
        allOf: [ref('schemas', 'Envelope'), { type: 'object', required: ['data'], properties: { data } }],
      };
  const example = ex && !op.raw ? { example: { request_id: 'req_3f9a1c000041', data: ex.response } } : {};
  return {
    description: op.raw ? 'The document itself (no envelope)' : 'Success: the envelope with `data`',
    headers,
    content: { 'application/json': { schema, ...example } },
  };
}

const EVENT_SUMMARIES: Record<OrderEventType, string> = {
  'service.order.created.v2': 'New orders (several of one brand and branch may come batched)',
  'service.order.status.updated':
    "An order's status changed: compare updated_at to drop an older update arriving late",
  'service.order.cart.updated': 'An order with its replaced cart',
};

/** The delivery headers, as parameters of the receiver's operation. */
function webhookHeaders(parts: Parts): void {
  const p = (name: string, description: string, schema: Json, example: unknown): Json => ({
    name,
    in: 'header',
    required: true,
    description,
    schema,
    example,
  });
  parts.parameters.WebhookSignature = p(
    WEBHOOK_HEADERS.signature,
    "Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the business's webhook_secret_key: check it over the raw bytes, in constant time, before parsing",
    { type: 'string', pattern: '^[0-9a-f]{64}$' },
    '5f0e2c7b9a61d3e4f8a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0',
  );
  parts.parameters.WebhookEventId = p(
    WEBHOOK_HEADERS.eventId,
    'Stable for the event across every retry and replay: de-duplicate on it',
    { type: 'string', pattern: NON_BLANK_PATTERN },
    'evt_01HZY3K6W4',
  );
  parts.parameters.WebhookDeliveryAttempt = p(
    WEBHOOK_HEADERS.attempt,
    '1, 2, … (keeps counting across replays)',
    { type: 'integer', minimum: 1 },
    1,
  );
}

/** OpenAPI 3.1 `webhooks`: what the server POSTs to a registered URL, one entry per event type. */
function webhooks(parts: Parts): Json {
  webhookHeaders(parts);
  const body = toNamedJsonSchema(OrderEventPayload, 'output', parts.schemas);
  const example = OPERATION_EXAMPLES.getOrder?.response;
  return Object.fromEntries(
    ORDER_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on_${type.replace(/\W+/g, '_')}`,
          summary: EVENT_SUMMARIES[type],
          description:
            'Sent to every webhook registered for the event (or `all`) of its business, brand and branch. Answer 2xx within 10 s, before the work; anything else is retried on the schedule (docs/webhooks.md).',
          tags: ['webhooks'],
          security: [],
          parameters: [
            ref('parameters', 'WebhookSignature'),
            ref('parameters', 'WebhookEventId'),
            {
              name: WEBHOOK_HEADERS.eventType,
              in: 'header',
              required: true,
              description: 'The event type',
              schema: { type: 'string', const: type },
              example: type,
            },
            ref('parameters', 'WebhookDeliveryAttempt'),
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: body,
                ...(example
                  ? {
                      example: {
                        brand_id: (example as Json).brand_id,
                        branch_id: (example as Json).branch_id,
                        orders: [example],
                      },
                    }
                  : {}),
              },
            },
          },
          responses: {
            '200': { description: 'Any 2xx: delivered (the body of the answer is ignored)' },
            '400': { description: 'Signed, but not an event: the delivery is retried' },
            '401': { description: 'The signature did not verify: the delivery is retried' },
          },
        },
      },
    ]),
  );
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
  webhooks: 'The receiver URLs registered for the business, and the order events sent to them',
};

/** Whether the body schema accepts `{}` (then a request without a body, read as `{}`, is fine too). */
function bodyOptional(op: OperationSpec): boolean {
  return op.body ? op.body.safeParse({}).success : true;
}

/** The OpenAPI 3.1 document of the partner API, derived from the operation table. */
export function buildOpenApi(version: string, ops: readonly OperationSpec[] = OPERATION_LIST): Json {
  const parts: Parts = { schemas: {}, parameters: {}, responses: {} };
  envelopeSchemas(parts);
  const documented = ops.filter((o) => o.auth !== 'operator');
  const names = errorResponseNames(documented);
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of documented) {
    const ex = OPERATION_EXAMPLES[op.id];
    const entry: Json = {
      operationId: op.id,
      summary: op.summary,
      tags: [op.path.split('/')[3] ?? 'partner'],
      parameters: parameters(op, ex, parts),
      responses: {
        [String(op.status ?? 200)]: successResponse(op, ex, parts),
        ...errorResponses(op, parts, names),
      },
    };
    if (op.auth === 'none') entry.security = [];
    if (op.scopes.length > 0) {
      entry.description = `Scope: ${op.scopes.map((s) => `\`${s}\``).join(' or ')}.`;
      entry['x-scopes'] = op.scopes;
    }
    const rules = (['query', 'body'] as const).flatMap((part) =>
      Object.entries(stateRulesOf(op[part])).map(([field, rule]) => ({ in: part, field, rule })),
    );
    if (rules.length > 0) {
      entry['x-rules'] = rules;
      entry.description = `${entry.description ? `${entry.description} ` : ''}Also checked, against the stored data, the clock or each other (400 \`request_invalid\` naming the field): ${rules.map((r) => `\`${r.field}\` ${r.rule}`).join('; ')}.`;
    }
    if (op.body) {
      entry.requestBody = {
        required: !bodyOptional(op),
        content: {
          'application/json': {
            schema: toNamedJsonSchema(op.body, 'input', parts.schemas),
            ...(ex?.body !== undefined ? { example: ex.body } : {}),
          },
        },
      };
    }
    const byMethod = paths[op.path] ?? {};
    byMethod[op.method.toLowerCase()] = entry;
    paths[op.path] = byMethod;
  }
  const hooks = webhooks(parts);
  const used = new Set(documented.flatMap((o) => errorCodesOf(o)));
  const sorted = <T>(o: Record<string, T>) =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Partner Integration API',
      version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Brands, branches, orders, menus, stock and signed order webhooks. Every response under /v1 is an envelope: {request_id, data} or {request_id, error:{code, message, details?}} (this document is the one exception); clients switch on error.code. Request bodies are JSON objects in UTF-8, at most 1 MiB after decoding (Content-Encoding gzip, deflate or br accepted). Text (in a body, a path or a query) may not contain U+0000. A path with a method it does not serve answers 405 request_method_not_allowed with Allow. The order events the server POSTs to registered URLs are under `webhooks`.',
    },
    servers: [{ url: '/' }],
    security: [{ basic: [] }],
    tags: [...new Set([...documented.map((o) => o.path.split('/')[3] ?? 'partner'), 'webhooks'])]
      .sort()
      .map((name) => ({ name, description: TAGS[name] ?? name })),
    paths,
    webhooks: hooks,
    components: {
      schemas: sorted(parts.schemas),
      parameters: sorted(parts.parameters),
      responses: sorted(parts.responses),
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
