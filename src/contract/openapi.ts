import { z } from 'zod';
import { ERROR_CATALOGUE } from './errors.js';
import type { OperationSpec } from './operation.js';
import { pathParamNames } from './operation.js';
import { OPERATION_LIST } from './operations.js';

type Json = Record<string, unknown>;

function schema(s: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  delete out.$schema;
  return out;
}

function parameters(op: OperationSpec): Json[] {
  const out: Json[] = [];
  const params = op.params ? (schema(op.params, 'input').properties as Record<string, Json>) : {};
  for (const name of pathParamNames(op.path)) {
    out.push({ name, in: 'path', required: true, schema: params[name] ?? { type: 'string' } });
  }
  if (op.query) {
    const q = schema(op.query, 'input');
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, s] of Object.entries((q.properties as Record<string, Json>) ?? {})) {
      if (name === 'business_id') continue; // accepted but always overwritten: not worth advertising
      out.push({ name, in: 'query', required: required.has(name), schema: s });
    }
  }
  if (op.method !== 'GET' && op.auth === 'partner') {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      schema: { type: 'string', maxLength: 64 },
      description: 'Required on every write; same key + same body replays the stored response for 24 h.',
    });
  }
  return out;
}

/** The OpenAPI 3.1 document of the partner API, derived from the operation table. */
export function buildOpenApi(version: string, ops: readonly OperationSpec[] = OPERATION_LIST): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of ops) {
    if (op.auth === 'operator') continue;
    const status = String(op.status ?? 200);
    const entry: Json = {
      operationId: op.id,
      summary: op.summary,
      tags: [op.path.split('/')[3] ?? 'partner'],
      parameters: parameters(op),
      responses: {
        [status]: {
          description: 'Success',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['request_id', 'data'],
                properties: { request_id: { type: 'string' }, data: schema(op.response, 'output') },
              },
            },
          },
        },
        default: { $ref: '#/components/responses/Error' },
      },
    };
    if (op.auth === 'none') entry.security = [];
    if (op.scopes.length > 0) entry['x-scopes'] = op.scopes;
    if (op.body) {
      entry.requestBody = {
        required: true,
        content: { 'application/json': { schema: schema(op.body, 'input') } },
      };
    }
    const byMethod = paths[op.path] ?? {};
    byMethod[op.method.toLowerCase()] = entry;
    paths[op.path] = byMethod;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Partner Integration API',
      version,
      description:
        'Brands, branches, orders, menus, stock and signed order webhooks. Every response is an envelope.',
    },
    servers: [{ url: '/' }],
    security: [{ basic: [] }],
    paths,
    components: {
      securitySchemes: { basic: { type: 'http', scheme: 'basic' } },
      responses: {
        Error: {
          description: 'Error envelope; switch on error.code',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['request_id', 'error'],
                properties: {
                  request_id: { type: 'string' },
                  error: {
                    type: 'object',
                    required: ['code', 'message'],
                    properties: {
                      code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
                      message: { type: 'string' },
                      details: {},
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}
