import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as formats from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATION_LIST } from '../../src/contract/operations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FULL, mode, pool, SEED, scale } from './config.js';
import { describeRequest, fuzzRequests, send } from './fuzz-requests.js';

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
    await pool(reqs, 8, async (r) => {
      const a = await send(s.baseUrl, r);
      let problem: string | undefined;
      // 405 concerns the path, not the operation: every operation's path lists its Allow instead.
      const validate = a.status === 405 ? undefined : schemaFor(r.op.id, a.status);
      if (a.status !== 405 && !validate) problem = `status ${a.status} is not documented for ${r.op.id}`;
      else if (validate && !validate(JSON.parse(a.text)))
        problem = `body does not fit: ${ajv.errorsText(validate.errors)}`;
      if (!problem) checked.set(String(a.status), (checked.get(String(a.status)) ?? 0) + 1);
      else if (failures.length < 20)
        failures.push(`${problem}\n    ${describeRequest(r)}\n    → ${a.text.slice(0, 300)}`);
    });
    console.log(
      `OpenAPI conformance (${mode()}): ${reqs.length} answers over ${ops.length} operations checked against the served document; ` +
        `conforming by status ${JSON.stringify(Object.fromEntries(checked))}; non-conforming ${reqs.length - [...checked.values()].reduce((a, b) => a + b, 0)}`,
    );
    expect(failures, failures.join('\n')).toEqual([]);
  },
  FULL ? 600_000 : 60_000,
);
