import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as formats from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATION_LIST } from '../../src/contract/operations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FULL, mode, pool, SEED, scale } from './config.js';
import { describeRequest, type FuzzRequest, fuzzRequests, send } from './fuzz-requests.js';

// Suite 7, OpenAPI conformance: the document served at /v1/partner/openapi.json validates, and
// every answer of a fuzz run over the partner operations is one the document describes — its
// status among the operation's responses, its body valid against that response's schema (so an
// error code outside the operation's documented list fails).

const N = scale(1_200, 6_000);

// biome-ignore lint/suspicious/noExplicitAny: a JSON document
type Json = Record<string, any>;

let s: TestServer;
let doc: Json;
beforeAll(async () => {
  s = await startTestServer({
    rateLimit: 1_000_000,
    authThrottle: {
      failuresPerKeyPerMinute: 1_000_000,
      failuresPerAddressPerMinute: 1_000_000,
      maxQueuedHashes: 10_000,
    },
  });
  doc = (await (await fetch(`${s.baseUrl}/v1/partner/openapi.json`)).json()) as Json;
});
afterAll(() => s.close());

it('the served document is valid OpenAPI 3.1', async () => {
  const r = await new Validator().validate(doc);
  expect(r.valid, JSON.stringify(r.errors ?? '').slice(0, 2000)).toBe(true);
});

/** Kinds whose refusal is not about the data the document describes (credentials, encodings). */
const NOT_DATA = new Set([
  'no-auth',
  'malformed-auth',
  'wrong-secret',
  'bad-utf8',
  'lone-surrogate',
  'gzip-body',
  'bad-gzip',
  'unknown-encoding',
  'deep-nesting',
]);
/** Refusals of data the document accepts that it states as such: rules about the stored state. */
const STATE_CODES = new Set([
  'resource_not_found',
  'resource_unmapped',
  'state_invalid_transition',
  'state_idempotency_conflict',
  'state_resource_in_use',
  'request_invalid_range',
]);

/** A path or query value as the document types it: digits for an integer, a list split on commas. */
function coerce(schema: Json | undefined, text: string): unknown {
  if (!schema) return text;
  if (schema.type === 'array') return text.split(',').map((x) => coerce(schema.items, x));
  const alts = (schema.anyOf ?? []) as Json[];
  const numeric =
    schema.type === 'integer' || schema.type === 'number' || alts.some((a) => a.type === 'integer');
  return numeric && /^-?\d+$/.test(text) ? Number(text) : text;
}

/** Whether a request is valid by the document (undefined: not a question of its data), and why not. */
function validByDocument(
  r: FuzzRequest,
  entry: Json,
  doc: Json,
  compile: (schema: Json) => ValidateFunction,
): { valid: boolean; why?: string } | undefined {
  if (NOT_DATA.has(r.kind)) return undefined;
  const url = new URL(r.path, 'http://x');
  const template = new RegExp(`^${r.op.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]*)')}$`);
  const m = template.exec(url.pathname);
  if (!m) return { valid: false, why: 'path' };
  const params = ((entry.parameters ?? []) as Json[]).map((p) =>
    p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p,
  );
  for (const p of params) {
    let raw: string | undefined;
    if (p.in === 'path') {
      try {
        raw = decodeURIComponent(m.groups![p.name]!);
      } catch {
        return { valid: false, why: `path ${p.name} is not UTF-8` };
      }
    } else if (p.in === 'query') raw = url.searchParams.get(p.name) ?? undefined;
    else if (p.in === 'header') raw = r.headers[p.name.toLowerCase()]?.replace(/^[ \t]+|[ \t]+$/g, '');
    if (raw === undefined || (p.in === 'header' && raw === '')) {
      if (p.required) return { valid: false, why: `${p.name} missing` };
      continue;
    }
    const v = compile(p.schema);
    if (!v(coerce(p.schema, raw))) return { valid: false, why: `${p.in} ${p.name}` };
  }
  // Query parameters the operation does not list are refused (info.description says so).
  const listed = new Set(params.filter((p) => p.in === 'query').map((p) => p.name));
  for (const k of url.searchParams.keys())
    if (!listed.has(k)) return { valid: false, why: `query ${k} not listed` };
  if (r.method === 'GET') return { valid: true };
  const body = entry.requestBody?.content?.['application/json'];
  if (r.body === undefined)
    return body && entry.requestBody.required ? { valid: false, why: 'no body' } : { valid: true };
  if (!/^application\/json\b/.test(r.headers['content-type'] ?? ''))
    return { valid: false, why: 'content type' };
  if (r.body.length > 1024 * 1024) return { valid: false, why: 'larger than 1 MiB' };
  let value: unknown;
  try {
    value = JSON.parse(r.body.toString('utf8'));
  } catch {
    return { valid: false, why: 'not JSON' };
  }
  if (!body) {
    // No request body in the document: none is taken (an empty object is tolerated).
    const empty =
      value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
    return empty ? { valid: true } : { valid: false, why: 'a body where none is taken' };
  }
  const v = compile(body.schema);
  return v(value)
    ? { valid: true }
    : { valid: false, why: `body: ${v.errors?.[0]?.instancePath} ${v.errors?.[0]?.message}` };
}

it(
  `every answer to ${N} generated partner requests conforms to the document`,
  async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: false });
    (formats as unknown as { default: (a: Ajv2020) => void }).default(ajv);
    const validators = new Map<string, ValidateFunction>();
    const byId = new Map<string, Json>();
    for (const byMethod of Object.values(doc.paths as Record<string, Record<string, Json>>))
      for (const op of Object.values(byMethod)) byId.set(op.operationId, op);
    const schemaFor = (opId: string, status: number): ValidateFunction | undefined => {
      const key = `${opId} ${status}`;
      if (!validators.has(key)) {
        let response = byId.get(opId)?.responses?.[String(status)];
        if (response?.$ref) response = doc.components.responses[response.$ref.split('/').pop()];
        const schema = response?.content?.['application/json']?.schema;
        if (!schema) return undefined;
        // Its `#/components/...` references resolve in the document's components.
        validators.set(key, ajv.compile({ ...schema, components: doc.components }));
      }
      return validators.get(key);
    };

    const ops = OPERATION_LIST.filter((o) => o.auth !== 'operator');
    const reqs = fuzzRequests(ops, { cred: s.credential, operatorToken: s.operatorToken }, N, SEED + 7);
    const failures: string[] = [];
    const checked = new Map<string, number>();
    let judged = 0;
    let disagreements = 0;
    const compiled = new Map<string, ValidateFunction>();
    const compileSchema = (schema: Json): ValidateFunction => {
      const key = JSON.stringify(schema);
      const v = compiled.get(key) ?? ajv.compile({ ...schema, components: doc.components });
      compiled.set(key, v);
      return v;
    };
    await pool(reqs, 8, async (r) => {
      const a = await send(s.baseUrl, r);
      let problem: string | undefined;
      // 405 concerns the path, not the operation: every operation's path lists its Allow instead.
      const validate = a.status === 405 ? undefined : schemaFor(r.op.id, a.status);
      if (a.status !== 405 && !validate) problem = `status ${a.status} is not documented for ${r.op.id}`;
      else if (validate && !validate(JSON.parse(a.text)))
        problem = `body does not fit: ${ajv.errorsText(validate.errors)}`;
      // Both ways: data valid by the document is accepted, or refused for a reason it states (the
      // state of what it names); data invalid by it is refused.
      const verdict = validByDocument(r, byId.get(r.op.id)!, doc, compileSchema);
      if (!problem && verdict) {
        judged++;
        const code = a.status >= 400 ? (JSON.parse(a.text) as Json).error?.code : undefined;
        const stated = new Set(
          ((byId.get(r.op.id)!['x-rules'] ?? []) as Json[]).map((x) => `${x.in}.${x.field}`),
        );
        const details = (a.status === 400 ? (JSON.parse(a.text) as Json).error?.details : undefined) as
          | { path?: unknown[] }[]
          | undefined;
        // A refusal for a rule the operation states (x-rules): every field it names is one of them.
        const forStatedRule =
          code === 'request_invalid' &&
          Array.isArray(details) &&
          details.length > 0 &&
          details.every((d) => Array.isArray(d.path) && stated.has(`${d.path[0]}.${d.path[1]}`));
        if (verdict.valid && a.status >= 400 && a.status !== 429 && !STATE_CODES.has(code) && !forStatedRule)
          problem = `valid by the document, refused with ${a.status} ${code} for a rule it does not state`;
        else if (!verdict.valid && a.status < 300)
          problem = `invalid by the document (${verdict.why}), accepted`;
        if (problem) disagreements++;
      }
      if (!problem) checked.set(String(a.status), (checked.get(String(a.status)) ?? 0) + 1);
      else if (failures.length < 20)
        failures.push(`${problem}\n    ${describeRequest(r)}\n    → ${a.text.slice(0, 300)}`);
    });
    console.log(
      `OpenAPI conformance (${mode()}): ${reqs.length} answers over ${ops.length} operations checked against the served document; ` +
        `conforming by status ${JSON.stringify(Object.fromEntries(checked))}; non-conforming ${reqs.length - [...checked.values()].reduce((a, b) => a + b, 0)}; ` +
        `requests judged by the document both ways ${judged}: disagreements ${disagreements}`,
    );
    expect(failures, failures.join('\n')).toEqual([]);
  },
  FULL ? 600_000 : 60_000,
);
