import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_LIST } from '../../src/contract/operations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// The OpenAPI document as tools see it: fetched from the running server's URL, raw, valid for a
// real OpenAPI 3.1 validator, its schemas compilable and its examples true to them.

type Json = Record<string, any>; // biome-ignore lint/suspicious/noExplicitAny: a JSON document

let s: TestServer;
let doc: Json;
/** The document with every `$ref` replaced by what it names (what a reader follows by hand). */
let flat: Json;
let res: Response;
beforeAll(async () => {
  s = await startTestServer();
  res = await fetch(`${s.baseUrl}/v1/partner/openapi.json`);
  doc = (await res.json()) as Json;
  flat = inline(doc, doc);
});
afterAll(() => s.close());

function inline(node: unknown, root: Json, depth = 0): Json {
  if (depth > 40) throw new Error('a $ref cycle');
  if (Array.isArray(node)) return node.map((n) => inline(n, root, depth + 1)) as unknown as Json;
  if (!node || typeof node !== 'object') return node as Json;
  const o = node as Json;
  if (typeof o.$ref === 'string' && o.$ref.startsWith('#/')) {
    const target = o.$ref
      .slice(2)
      .split('/')
      .reduce((at: Json, k: string) => at?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], root);
    if (target === undefined) throw new Error(`dangling ${o.$ref}`);
    const { $ref: _, ...rest } = o;
    return { ...inline(target, root, depth + 1), ...inline(rest, root, depth + 1) };
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, inline(v, root, depth + 1)]));
}

const ops = () =>
  Object.entries(flat.paths as Record<string, Record<string, Json>>).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );

describe('served at GET /v1/partner/openapi.json', () => {
  it('is the raw document (no envelope), with X-Request-Id, without auth', () => {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc).not.toHaveProperty('data');
    expect(doc).not.toHaveProperty('request_id');
  });

  it('is accepted by an OpenAPI 3.1 validator (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const r = await validator.validate(doc);
    if (!r.valid) console.log(JSON.stringify(r.errors, null, 2).slice(0, 4000));
    expect(r.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it("passes Redocly's recommended lint rules (the core of `redocly lint`)", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: `${s.baseUrl}/v1/partner/openapi.json`,
      config,
    });
    const found = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    console.log(
      `redocly lint (recommended): ${found.length} problems${found.length ? `\n  ${found.join('\n  ')}` : ''}`,
    );
    expect(found).toEqual([]);
  });

  it('documents every partner operation and none of the operator API', () => {
    const documented = ops()
      .map((o) => o.op.operationId)
      .sort();
    const partner = OPERATION_LIST.filter((o) => o.auth !== 'operator')
      .map((o) => o.id)
      .sort();
    expect(documented).toEqual(partner);
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/v1/operator'))).toBe(false);
  });
});

describe('its schemas and examples', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: its default export arrives as the module object under ESM.
  const addFormats = (formats as unknown as { default: (a: Ajv2020) => void }).default;
  addFormats(ajv);
  // Shared schemas come inline many times over: each distinct one is compiled once.
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const check = (schema: Json, value: unknown, what: string) => {
    const key = JSON.stringify(schema);
    const validate = compiled.get(key) ?? ajv.compile(schema);
    compiled.set(key, validate);
    const ok = validate(value);
    expect(ok, `${what}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  };

  it('every example fits its schema: parameters, request bodies, answers, errors', () => {
    let n = 0;
    for (const { path, method, op } of ops()) {
      for (const p of op.parameters as Json[]) {
        if (p.example === undefined) continue;
        // Query and path values travel as text; integer examples are given as numbers.
        check(p.schema, p.example, `${method} ${path} parameter ${p.name}`);
        n++;
      }
      const body = op.requestBody?.content?.['application/json'];
      if (body?.example !== undefined) {
        check(body.schema, body.example, `${method} ${path} request body`);
        n++;
      }
      for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) {
        const c = r.content?.['application/json'];
        if (c?.example !== undefined) {
          check(c.schema, c.example, `${method} ${path} ${status}`);
          n++;
        }
        for (const [name, ex] of Object.entries((c?.examples ?? {}) as Record<string, Json>)) {
          check(c.schema, ex.value, `${method} ${path} ${status} ${name}`);
          n++;
        }
      }
    }
    console.log(`OpenAPI examples checked against their schemas: ${n}`);
    expect(n).toBeGreaterThan(300);
  });

  it('every partner operation has a realistic success example (demo data, not generated)', () => {
    for (const { path, method, op } of ops()) {
      if (op.operationId === 'getOpenApi') continue;
      const [status, success] = Object.entries(op.responses as Record<string, Json>)[0]!;
      expect(Number(status), `${method} ${path}`).toBeLessThan(300);
      const ex = success.content['application/json'].example;
      expect(ex, `${method} ${path}`).toBeDefined();
      // No generator's placeholder values.
      expect(JSON.stringify(ex)).not.toMatch(/-9007199254740991|"string"/);
      if (op.requestBody) expect(op.requestBody.content['application/json'].example).toBeDefined();
    }
  });
});

describe('it tells the truth', () => {
  const find = (id: string) => ops().find((o) => o.op.operationId === id)!.op;

  it('every write requires Idempotency-Key: 1–64 characters, not blank', () => {
    for (const { method, op } of ops()) {
      if (method === 'GET') continue;
      const key = (op.parameters as Json[]).find((p) => p.name === 'Idempotency-Key');
      expect(key, op.operationId).toMatchObject({
        in: 'header',
        required: true,
        schema: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          pattern: '^[\\x20-\\x7E]*[\\x21-\\x7E][\\x20-\\x7E]*$',
        },
      });
    }
  });

  it('every operation lists its error answers with the catalogue codes it can return', () => {
    // The shared error envelope, narrowed to the operation's codes.
    const codesAt = (id: string, status: string) =>
      find(id).responses[status]?.content['application/json'].schema.properties.error.properties.code.enum;
    expect(codesAt('patchOrderStatus', '409')).toEqual([
      'state_invalid_transition',
      'state_idempotency_conflict',
    ]);
    expect(codesAt('patchOrderStatus', '400')).toEqual(
      expect.arrayContaining(['request_invalid', 'request_missing_idempotency_key']),
    );
    expect(codesAt('setItemsAvailability', '404')).toEqual(['resource_not_found', 'resource_unmapped']);
    expect(codesAt('listOrders', '400')).toEqual(['request_invalid', 'request_invalid_range']);
    // Found by the conformance suite: the order is named by `id` in the body.
    expect(codesAt('patchOrderStatus', '404')).toEqual(['resource_not_found']);
    expect(codesAt('deletePriceGroup', '409')).toEqual([
      'state_idempotency_conflict',
      'state_resource_in_use',
    ]);
    expect(codesAt('listBrands', '401')).toEqual(['auth_missing', 'auth_invalid_credential']);
    expect(codesAt('listBrands', '429')).toEqual(['rate_limit_exceeded']);
    expect(doc.components.responses.TooManyRequests.headers['Retry-After']).toEqual({
      $ref: '#/components/headers/Retry-After',
    });
    expect(doc.components.headers['Retry-After'].schema).toEqual({ type: 'integer' });
    expect(find('listBrands').responses).not.toHaveProperty('404');
    expect(codesAt('listOrderStatuses', '403')).toEqual(['auth_revoked']);
    // The document's own GET: a query parameter is refused, as everywhere.
    expect(codesAt('getOpenApi', '400')).toEqual(['request_invalid']);
  });

  it('patch bodies that need at least one field say so (anyOf required)', () => {
    const anyOf = (id: string) => find(id).requestBody.content['application/json'].schema.anyOf;
    expect(anyOf('updateBrand')).toEqual([
      { required: ['title'] },
      { required: ['logo'] },
      { required: ['banner'] },
    ]);
    for (const id of [
      'updatePriceGroup',
      'updateSection',
      'updateCategory',
      'updateItem',
      'updateModifierGroup',
    ])
      expect(anyOf(id), id).toBeDefined();
    // A body whose fields are all optional is not required at all (none is read as {}).
    expect(find('updateBranch').requestBody.required).toBe(false);
    expect(find('createBrand').requestBody.required).toBe(true);
  });

  it('order statuses are enums: the 4 partner targets on the patch, the 11 ids/codes on the list', () => {
    const status = find('patchOrderStatus').requestBody.content['application/json'].schema.properties.status;
    expect(status.anyOf).toEqual([
      { type: 'integer', enum: [2, 3, 4, 5] },
      { type: 'string', enum: ['ACCEPTED', 'CANCELLED', 'READY', 'DELIVERED'] },
    ]);
    const filter = (find('listOrders').parameters as Json[]).find((p) => p.name === 'status')!;
    expect(filter).toMatchObject({ style: 'form', explode: false, schema: { type: 'array' } });
    expect(filter.schema.items.anyOf[0].enum).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(filter.schema.items.anyOf[1].enum).toHaveLength(11);
  });

  it('partner_item_id: at most 100 characters as sent, not blank (the server trims what it stores)', () => {
    const sku = (find('setItemAvailability').parameters as Json[]).find((p) => p.name === 'partner_item_id')!;
    const notBlank = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';
    expect(sku.schema).toEqual({ type: 'string', maxLength: 100, pattern: notBlank });
    const item = find('createItem').requestBody.content['application/json'].schema.properties.partner_item_id;
    expect(item).toEqual({ type: 'string', maxLength: 100, pattern: notBlank });
  });

  it('bulk lists state their bounds (maxItems)', () => {
    const props = (id: string) => find(id).requestBody.content['application/json'].schema.properties;
    expect(props('setItemsAvailability').items).toMatchObject({ minItems: 1, maxItems: 1000 });
    expect(props('updateItemStocks').items).toMatchObject({ minItems: 1, maxItems: 1000 });
    for (const id of ['enableItems', 'enableSections', 'enableCategories'])
      expect(props(id).ids, id).toMatchObject({ minItems: 1, maxItems: 500 });
    // And no array in any request body is unbounded.
    const unbounded: string[] = [];
    const walk = (n: unknown, at: string) => {
      if (Array.isArray(n)) {
        for (const [i, x] of n.entries()) walk(x, `${at}/${i}`);
      } else if (n && typeof n === 'object') {
        const o = n as Json;
        if (o.type === 'array' && o.maxItems === undefined) unbounded.push(at);
        for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
      }
    };
    for (const { op } of ops()) walk(op.requestBody ?? {}, op.operationId);
    expect(unbounded).toEqual([]);
  });

  it('business_id and filterByBusiness are documented on reads as accepted and ignored', () => {
    const p = (find('listBranches').parameters as Json[]).filter((x) => x.in === 'query').map((x) => x.name);
    expect(p).toEqual(expect.arrayContaining(['page', 'size', 'business_id', 'filterByBusiness']));
  });
});
