import { Agent, request } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { NON_BLANK_PATTERN, toJsonSchema } from '../../src/contract/json-schema.js';
import { OPERATION_EXAMPLES } from '../../src/contract/openapi.js';
import { fillPath, type OperationSpec, pathParamNames } from '../../src/contract/operation.js';
import { basic } from '../helpers/server.js';

// Requests generated from the contract table: for every operation, valid ones (its documented
// example, or values drawn from its JSON Schema) and invalid ones (wrong types, missing and extra
// fields, huge values, bad UTF-8, wrong content types, truncated JSON, path ids out of range, bad
// credentials and keys). Shared by the fuzz suite and the OpenAPI conformance suite.

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes of every shape
type Json = Record<string, any>;

export interface FuzzTarget {
  cred: { key: string; secret: string };
  operatorToken: string;
}

export interface FuzzRequest {
  op: OperationSpec;
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const VALID_KINDS = ['example', 'generated'] as const;
const INVALID_KINDS = [
  'drop-field',
  'extra-field',
  'wrong-type',
  'huge-string',
  'huge-number',
  'deep-nesting',
  'bad-utf8',
  'lone-surrogate',
  'truncated-json',
  'wrong-content-type',
  'non-object-body',
  'gzip-body',
  'bad-gzip',
  'unknown-encoding',
  'path-out-of-range',
  'query-junk',
  'no-auth',
  'malformed-auth',
  'wrong-secret',
  'no-idempotency-key',
  'long-idempotency-key',
  'other-business-id',
  'nul-in-text',
  'non-ascii-idempotency-key',
] as const;
export type Kind = (typeof VALID_KINDS)[number] | (typeof INVALID_KINDS)[number];

const KNOWN_PATTERNS: Record<string, fc.Arbitrary<string>> = {
  [NON_BLANK_PATTERN]: fc.string({ minLength: 1, maxLength: 24 }).filter((s) => /\S/.test(s)),
  '^[1-9]\\d{0,15}$': fc.integer({ min: 1, max: 12 }).map(String),
  '^-?\\d+(\\.\\d+)?$': fc.nat(1_000_000).map((n) => (n / 100).toFixed(2)),
  '^\\d+(\\.\\d+)?$': fc.nat(1_000_000).map((n) => (n / 100).toFixed(2)),
  '^\\+[1-9]\\d{6,14}$': fc.integer({ min: 10_000_000, max: 99_999_999 }).map((n) => `+62812${n}`),
};

const isoDate = fc
  .integer({ min: Date.parse('2024-01-01'), max: Date.parse('2027-12-31') })
  .map((ms) => new Date(ms).toISOString());

/** An arbitrary of values a JSON Schema node describes (bounded in size; biased to small ids). */
export function fromSchema(s: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!s || depth > 6) return fc.constant(null);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const alts = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (alts && !s.type) return fc.oneof(...alts.map((a) => fromSchema(a, depth + 1)));
  if (Array.isArray(s.type))
    return fc.oneof(...s.type.map((t: string) => fromSchema({ ...s, type: t }, depth)));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1000);
      const hi = Math.min(s.maximum ?? 1_000_000, lo + 1_000_000);
      return fc.oneof(fc.integer({ min: lo, max: Math.min(hi, lo + 6) }), fc.integer({ min: lo, max: hi }));
    }
    case 'number':
      return fc.double({
        min: s.minimum ?? -1e6,
        max: s.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string': {
      if (s.format === 'date-time') return isoDate;
      if (s.format === 'date') return isoDate.map((d) => d.slice(0, 10));
      if (s.pattern && KNOWN_PATTERNS[s.pattern]) return KNOWN_PATTERNS[s.pattern]!;
      // No pattern, or only the one excluding U+0000: fast-check's strings hold none.
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 24, 24) });
    }
    case 'array':
      return fc.array(fromSchema(s.items, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 3, Math.max(3, s.minItems ?? 0)),
      });
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Json>;
      const required = new Set<string>(s.required ?? []);
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) shape[k] = fromSchema(v, depth + 1);
      if (Object.keys(props).length > 0 || s.additionalProperties === false) {
        return fc.record(shape, { requiredKeys: [...required] as never[] }) as fc.Arbitrary<Json>;
      }
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        const key = s.propertyNames
          ? (fromSchema(s.propertyNames, depth + 1) as fc.Arbitrary<string>)
          : fc.string();
        return fc.dictionary(key, fromSchema(s.additionalProperties, depth + 1), { maxKeys: 3 });
      }
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

let keySeq = 0;
const freshKey = () => `fuzz-${process.pid}-${++keySeq}`;

interface Parts {
  params: Record<string, string | number>;
  query: Record<string, unknown>;
  body: unknown;
}

function encodeQuery(q: Record<string, unknown>): string {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    out.append(k, Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const s = out.toString();
  return s ? `?${s}` : '';
}

function mutateBody(body: unknown, kind: Kind, pick: number): unknown {
  const obj = body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as Json) } : {};
  const keys = Object.keys(obj);
  const k = keys.length ? keys[pick % keys.length]! : 'title';
  switch (kind) {
    case 'drop-field':
      delete obj[k];
      return obj;
    case 'extra-field':
      return { ...obj, [`unexpected_${pick % 7}`]: pick };
    case 'wrong-type': {
      const v = obj[k];
      obj[k] =
        typeof v === 'string'
          ? pick
          : typeof v === 'number'
            ? String(v)
            : typeof v === 'boolean'
              ? 'yes'
              : true;
      return obj;
    }
    case 'huge-string':
      obj[k] = 'x'.repeat(200_000 + (pick % 1000));
      return obj;
    case 'huge-number':
      obj[k] = [1e308, -1e308, 2 ** 63, 2 ** 53 + 2, 1e-300][pick % 5];
      return obj;
    case 'other-business-id':
      return { ...obj, business_id: 2 };
    case 'nul-in-text': {
      // U+0000 in a text field (the document's patterns exclude it; the server refuses it).
      const text = keys.find((x) => typeof obj[x] === 'string') ?? 'title';
      obj[text] = `${typeof obj[text] === 'string' ? obj[text] : 'a'}\u0000`;
      return obj;
    }
    default:
      return obj;
  }
}

function build(op: OperationSpec, parts: Parts, kind: Kind, pick: number, t: FuzzTarget): FuzzRequest {
  const headers: Record<string, string> = {};
  const write = op.method !== 'GET';
  if (op.auth === 'partner') {
    headers.authorization =
      kind === 'no-auth'
        ? ''
        : kind === 'malformed-auth'
          ? ['Basic', 'Basic !!!', 'Bearer x', `Basic ${Buffer.from(t.cred.key).toString('base64')}`][
              pick % 4
            ]!
          : basic(kind === 'wrong-secret' ? { key: t.cred.key, secret: `wrong-${pick}` } : t.cred);
  } else if (op.auth === 'operator') {
    headers.authorization =
      kind === 'no-auth'
        ? ''
        : kind === 'wrong-secret'
          ? `Bearer wrong-${pick}`
          : `Bearer ${t.operatorToken}`;
  }
  if (!headers.authorization) delete headers.authorization;
  if (write && op.auth === 'partner' && kind !== 'no-idempotency-key') {
    headers['idempotency-key'] =
      kind === 'long-idempotency-key'
        ? 'k'.repeat(65 + (pick % 100))
        : kind === 'non-ascii-idempotency-key'
          ? // As the bytes arrive (Latin-1): é, a tab inside, UTF-8 of U+3000 (a space).
            [`\u00e9t\u00e9-${pick}`, `x\ty-${pick}`, `\u00e3\u0080\u0080`][pick % 3]!
          : freshKey();
  }

  const params = { ...parts.params };
  const names = pathParamNames(op.path);
  if (kind === 'path-out-of-range' && names.length > 0) {
    params[names[0]!] = ['0', '-1', '99999999999999999999', 'abc', 'a'.repeat(600), '1.5', '%00', ' '][
      pick % 8
    ]!;
  }
  let path = names.length ? fillPath(op.path, params) : op.path;
  if (kind === 'path-out-of-range' && params[names[0]!] === '%00') path = path.replace('%2500', '%00');
  const query = { ...parts.query };
  // A long poll (the request log's `wait`, up to 30 s) waits at most 1 s here: a run stays bounded.
  if (typeof query.wait === 'number' && query.wait > 1) query.wait = 1;
  if (kind === 'query-junk' || (!write && kind === 'extra-field')) query[`junk_${pick % 5}`] = 'x';
  if (
    kind === 'query-junk' &&
    op.query &&
    'page' in ((toJsonSchema(op.query, 'input').properties ?? {}) as Json)
  )
    query.page = ['0', '-1', 'abc', '1e3', '99999999999999999999'][pick % 5];
  if (!write && kind === 'huge-string') query.x = 'y'.repeat(5000);
  if (!write && kind === 'nul-in-text') {
    const text = Object.keys(query).find((k) => typeof query[k] === 'string');
    if (text) query[text] = `${query[text]}\u0000`;
    else query.filterByBusiness = '\u0000';
  }
  path += encodeQuery(query);

  let body: Buffer | undefined;
  if (write && (op.body || pick % 4 === 0)) {
    const value = mutateBody(parts.body, kind, pick);
    let text = JSON.stringify(value ?? {});
    if (kind === 'deep-nesting') text = `{"x":${'['.repeat(3000 + pick)}${']'.repeat(3000 + pick)}}`;
    if (kind === 'non-object-body') text = ['null', '[]', '"text"', '42', 'true'][pick % 5]!;
    if (kind === 'truncated-json') text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    if (kind === 'lone-surrogate') text = text.replace(/^\{/, '{"\\ud800x":1,');
    body = Buffer.from(text);
    if (kind === 'bad-utf8')
      body = Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xff, 0xc0, 0xaf]), Buffer.from('"}')]);
    headers['content-type'] =
      kind === 'wrong-content-type'
        ? [
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/xml',
            'multipart/form-data; boundary=x',
          ][pick % 4]!
        : 'application/json';
    if (kind === 'gzip-body') {
      body = gzipSync(body);
      headers['content-encoding'] = 'gzip';
    }
    if (kind === 'bad-gzip') headers['content-encoding'] = 'gzip';
    if (kind === 'unknown-encoding')
      headers['content-encoding'] = ['compress', 'zstd', 'gzip, br'][pick % 3]!;
  }
  return { op, kind, method: op.method, path, headers, ...(body ? { body } : {}) };
}

function partsArb(op: OperationSpec): fc.Arbitrary<Parts> {
  const params = op.params
    ? (fromSchema(toJsonSchema(op.params, 'input')) as fc.Arbitrary<Json>)
    : fc.constant({});
  const query = op.query
    ? (fromSchema(toJsonSchema(op.query, 'input')) as fc.Arbitrary<Json>)
    : fc.constant({});
  const body = op.body ? fromSchema(toJsonSchema(op.body, 'input')) : fc.constant(undefined);
  return fc.record({ params, query, body }) as fc.Arbitrary<Parts>;
}

/** Requests for one operation: its example or generated parts, under one of the kinds. */
function opArb(op: OperationSpec, t: FuzzTarget): fc.Arbitrary<FuzzRequest> {
  const ex = OPERATION_EXAMPLES[op.id];
  const example: fc.Arbitrary<Parts> = ex
    ? fc.constant({ params: ex.params ?? {}, query: ex.query ?? {}, body: ex.body })
    : partsArb(op);
  const kind = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...VALID_KINDS) },
    { weight: 5, arbitrary: fc.constantFrom(...INVALID_KINDS) },
  );
  return fc
    .tuple(kind, example, partsArb(op), fc.nat(1_000_000))
    .map(([k, exParts, genParts, pick]) =>
      build(op, k === 'generated' ? genParts : exParts, k as Kind, pick, t),
    );
}

/** `n` requests over `ops`, reproducible from `seed`. */
export function fuzzRequests(
  ops: readonly OperationSpec[],
  t: FuzzTarget,
  n: number,
  seed: number,
): FuzzRequest[] {
  const arb = fc.oneof(...ops.map((op) => opArb(op, t)));
  return fc.sample(arb, { seed, numRuns: n });
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Sends the exact bytes (no client-side normalisation); bounded by a 15 s guard. */
export function send(baseUrl: string, r: FuzzRequest): Promise<Answer> {
  const u = new URL(baseUrl);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: r.path,
        method: r.method,
        agent,
        headers: { ...r.headers, ...(r.body ? { 'content-length': String(r.body.length) } : {}) },
        timeout: 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - t0,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer within 15 s: ${r.method} ${r.path.slice(0, 80)}`)),
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

export function describeRequest(r: FuzzRequest): string {
  const body = r.body ? r.body.subarray(0, 200).toString('utf8') : '';
  return `${r.kind}: ${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers).slice(0, 200)} ${body}`;
}
