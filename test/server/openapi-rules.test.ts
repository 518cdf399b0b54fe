import { Ajv2020 } from 'ajv/dist/2020.js';
import * as formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJsonSchema } from '../../src/contract/json-schema.js';
import { OrderEventPayload } from '../../src/contract/schemas/orders.js';
import { EVENT_TYPES, HEADERS, signDelivery, verifyEvent } from '../../src/webhooks/index.js';
import { send } from '../reliability/fuzz-requests.js';
import { basic, startTestServer, type TestServer } from '../helpers/server.js';

// What integrators' tools take from the document beyond its paths: the named schemas their types
// are called after, the webhooks a receiver is generated from (and that partner/webhooks agrees
// with), and the rules the server enforces, each stated and each checked against the server.

// biome-ignore lint/suspicious/noExplicitAny: a JSON document
type Json = Record<string, any>;

let s: TestServer;
let doc: Json;
let size: number;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
  const text = await (await fetch(`${s.baseUrl}/v1/partner/openapi.json`)).text();
  size = text.length;
  doc = JSON.parse(text) as Json;
});
afterAll(() => s.close());

const ajv = new Ajv2020({ strict: false, allErrors: true });
(formats as unknown as { default: (a: Ajv2020) => void }).default(ajv);
/** A validator of a schema of the document, its `#/components/...` references resolved in it. */
const validator = (schema: Json) => ajv.compile({ ...schema, components: doc.components });

const op = (id: string): Json => {
  for (const byMethod of Object.values(doc.paths as Record<string, Json>))
    for (const o of Object.values(byMethod) as Json[]) if (o.operationId === id) return o;
  throw new Error(`no operation ${id}`);
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('named schemas', () => {
  it('the resources, the envelope, the error body and the code union are in components.schemas', () => {
    const names = Object.keys(doc.components.schemas);
    for (const n of [
      'Brand',
      'Branch',
      'Order',
      'OrderStatus',
      'CartLine',
      'MenuSnapshot',
      'MenuSection',
      'MenuItem',
      'PriceGroup',
      'Provider',
      'Webhook',
      'OrderEventPayload',
      'Envelope',
      'Error',
      'ErrorCode',
    ])
      expect(names, n).toContain(n);
    expect(doc.components.schemas.ErrorCode.enum).toContain('state_invalid_transition');
    expect(Object.keys(doc.components.parameters)).toEqual(
      expect.arrayContaining(['IdempotencyKey', 'page', 'size']),
    );
    expect(Object.keys(doc.components.responses)).toEqual(
      expect.arrayContaining(['Unauthorized', 'TooManyRequests', 'InternalError']),
    );
    console.log(
      `OpenAPI document: ${size} bytes; ${names.length} named schemas, ${Object.keys(doc.components.responses).length} shared error responses`,
    );
    expect(size).toBeLessThan(400_000);
  });

  it('operations refer to them by $ref', () => {
    const data = (id: string) =>
      op(id).responses[Object.keys(op(id).responses)[0]!].content['application/json'].schema.allOf[1]
        .properties.data;
    expect(data('getOrder')).toEqual(ref('Order'));
    expect(data('getBranch')).toEqual(ref('Branch'));
    expect(data('listBranches').properties.results.items).toEqual(ref('Branch'));
    expect(data('listOrders').properties.results.items).toEqual(ref('Order'));
    expect(data('listPriceGroups').items).toEqual(ref('PriceGroup'));
    expect(op('getOrder').responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(
      doc.components.responses.Unauthorized.content['application/json'].schema.properties.error.allOf,
    ).toEqual([ref('Error')]);
    expect(op('patchOrderStatus').parameters).toContainEqual({
      $ref: '#/components/parameters/IdempotencyKey',
    });
  });
});

describe('webhooks', () => {
  it('declares the three order events with their headers and payload, as partner/webhooks has them', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    const params = (type: string) =>
      (doc.webhooks[type].post.parameters as Json[]).map((p) =>
        p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p,
      );
    for (const type of EVENT_TYPES) {
      const hook = doc.webhooks[type].post;
      expect(params(type).map((p) => [p.in, p.name, p.required])).toEqual(
        [HEADERS.signature, HEADERS.eventId, HEADERS.eventType, HEADERS.attempt].map((h) => [
          'header',
          h,
          true,
        ]),
      );
      expect(params(type).find((p) => p.name === HEADERS.eventType).schema.const).toBe(type);
      expect(hook.requestBody.content['application/json'].schema).toEqual(ref('OrderEventPayload'));
    }
    // The payload schema is the one partner/webhooks validates a delivery with.
    const inlined = toJsonSchema(OrderEventPayload, 'output');
    const resolve = (n: unknown): unknown =>
      Array.isArray(n)
        ? n.map(resolve)
        : n && typeof n === 'object'
          ? (n as Json).$ref
            ? resolve(doc.components.schemas[(n as Json).$ref.split('/').pop()])
            : Object.fromEntries(Object.entries(n).map(([k, v]) => [k, resolve(v)]))
          : n;
    expect(resolve(doc.components.schemas.OrderEventPayload)).toEqual(inlined);
  });

  it('a delivery made by signDelivery fits the document, and what fits it verifyEvent accepts', async () => {
    const example = doc.webhooks[EVENT_TYPES[0]!].post.requestBody.content['application/json'].example;
    expect(example.orders).toHaveLength(1);
    for (const type of EVENT_TYPES) {
      const hook = doc.webhooks[type].post;
      const { body, headers } = signDelivery('whsec_doc_test', { type, id: 'evt_doc_1', payload: example });
      const checkBody = validator(hook.requestBody.content['application/json'].schema);
      expect(checkBody(JSON.parse(body)), ajv.errorsText(checkBody.errors)).toBe(true);
      for (const p of hook.parameters as Json[]) {
        const param = p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p;
        const raw = headers[param.name];
        const value = param.schema.type === 'integer' ? Number(raw) : raw;
        const check = validator(param.schema);
        expect(check(value), `${type} ${param.name}=${raw}: ${ajv.errorsText(check.errors)}`).toBe(true);
      }
      const event = verifyEvent(body, headers, 'whsec_doc_test');
      expect(event).toMatchObject({ type, id: 'evt_doc_1', orders: [{ id: example.orders[0].id }] });
    }
  });
});

describe('rules the server enforces, stated by the document', () => {
  /** Every string node of the request parts (path, query, header parameters; request bodies). */
  function requestStrings(): [string, Json][] {
    const out: [string, Json][] = [];
    const walk = (n: unknown, at: string) => {
      if (Array.isArray(n)) {
        for (const [i, x] of n.entries()) walk(x, `${at}/${i}`);
      } else if (n && typeof n === 'object') {
        const o = n as Json;
        if (o.$ref)
          return walk(
            o.$ref.split('/').reduce((a: Json, k: string) => (k === '#' ? doc : a[k]), doc),
            o.$ref,
          );
        if (o.type === 'string') out.push([at, o]);
        for (const [k, v] of Object.entries(o))
          if (k !== 'example' && k !== 'examples') walk(v, `${at}/${k}`);
      }
    };
    for (const byMethod of Object.values(doc.paths as Record<string, Json>))
      for (const o of Object.values(byMethod) as Json[]) {
        walk(o.parameters, `${o.operationId}/parameters`);
        walk(o.requestBody, `${o.operationId}/requestBody`);
      }
    return out;
  }

  it('U+0000: every text of a request says it may not hold it (a pattern), and the server refuses it', async () => {
    const open: string[] = [];
    let n = 0;
    for (const [at, node] of requestStrings()) {
      if (node.format || node.enum || 'const' in node) continue;
      n++;
      const patterns = [node.pattern, ...((node.allOf ?? []) as Json[]).map((a) => a.pattern)].filter(
        Boolean,
      );
      const refuses = patterns.some((p) => !new RegExp(p, 'u').test('a\u0000b'));
      if (!refuses) open.push(at);
    }
    expect(n).toBeGreaterThan(50);
    expect(open).toEqual([]);
    // The server: in a body, a path and a query.
    const auth = { authorization: basic(s.credential), 'content-type': 'application/json' };
    const answers = await Promise.all([
      send(s.baseUrl, {
        method: 'POST',
        path: '/v1/partner/brands',
        headers: { ...auth, 'idempotency-key': 'nul-body' },
        body: Buffer.from(JSON.stringify({ title: 'a\u0000b' })),
      } as never),
      send(s.baseUrl, {
        method: 'PATCH',
        path: '/v1/partner/items/SKU%00X/availability',
        headers: { ...auth, 'idempotency-key': 'nul-path' },
        body: Buffer.from(JSON.stringify({ branch_id: 1, isAvailable: true })),
      } as never),
      send(s.baseUrl, { method: 'GET', path: '/v1/partner/orders?status=%00', headers: auth } as never),
    ]);
    for (const a of answers) {
      expect(a.status, a.text).toBe(400);
      expect(JSON.parse(a.text).error.code).toBe('request_invalid');
    }
  });

  it('cancellation_reason is required, not blank, when status is CANCELLED (if/then), as the server checks', async () => {
    const body = op('patchOrderStatus').requestBody.content['application/json'].schema;
    expect(body.if).toBeDefined();
    expect(body.then.required).toEqual(['cancellation_reason']);
    const valid = validator(body);
    const cases: [Json, boolean][] = [
      [{ status: 'CANCELLED' }, false],
      [{ status: 3 }, false],
      [{ status: 'CANCELLED', cancellation_reason: '  ' }, false],
      [{ status: 'CANCELLED', cancellation_reason: null }, false],
      [{ status: 'CANCELLED', cancellation_reason: 'out of stock' }, true],
      [{ status: 3, cancellation_reason: 'out of stock' }, true],
      [{ status: 'READY' }, true],
      [{ status: 2, cancellation_reason: null }, true],
    ];
    for (const [extra, ok] of cases) {
      const b = { id: 999_999, platform: 'enterprise', ...extra };
      expect(valid(b), JSON.stringify(b)).toBe(ok);
      // The server agrees: a body the document refuses is a 400; one it accepts reaches the order
      // (which does not exist: 404).
      const a = await send(s.baseUrl, {
        method: 'PATCH',
        path: '/v1/partner/orders/status',
        headers: {
          authorization: basic(s.credential),
          'content-type': 'application/json',
          'idempotency-key': `c-${JSON.stringify(extra)}`,
        },
        body: Buffer.from(JSON.stringify(b)),
      } as never);
      expect(a.status, `${JSON.stringify(b)} → ${a.text}`).toBe(ok ? 404 : 400);
    }
  });

  it('Idempotency-Key: the server accepts exactly the keys the document does', async () => {
    const param = doc.components.parameters.IdempotencyKey;
    const valid = validator(param.schema);
    // As the header's bytes arrive (Latin-1: one character a byte); Node drops spaces around it.
    const keys = [
      'order-1042-ready',
      'a b',
      'k'.repeat(64),
      'k'.repeat(65),
      ' ',
      '\u00e9t\u00e9',
      '\u00e3\u0080\u0080', // U+3000 (a space) sent as UTF-8
      '\u00a0',
      'x\ty',
    ];
    let disagreements = 0;
    for (const key of keys) {
      const a = await send(s.baseUrl, {
        method: 'PATCH',
        path: '/v1/partner/orders/status',
        headers: {
          authorization: basic(s.credential),
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: Buffer.from(JSON.stringify({ id: 999_999, status: 'READY', platform: 'enterprise' })),
      } as never);
      const byDoc = valid(key.replace(/^[ \t]+|[ \t]+$/g, ''));
      const byServer = a.status !== 400;
      if (byDoc !== byServer) {
        disagreements++;
        console.log(
          `Idempotency-Key ${JSON.stringify(key)}: document ${byDoc}, server ${a.status} ${a.text}`,
        );
      }
    }
    expect(disagreements).toBe(0);
  });

  it("the document's own GET refuses a query parameter with a documented 400", async () => {
    const a = await fetch(`${s.baseUrl}/v1/partner/openapi.json?format=yaml`);
    expect(a.status).toBe(400);
    expect(((await a.json()) as Json).error.code).toBe('request_invalid');
    expect(Object.keys(op('getOpenApi').responses)).toContain('400');
  });
});
