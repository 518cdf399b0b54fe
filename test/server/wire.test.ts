import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/contract/errors.js';
import { call, type CallResult, startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

function expectError(r: CallResult, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.body.error?.code).toBe(code);
  expect(typeof r.body.error?.message).toBe('string');
  expect(r.body.request_id).toMatch(/^req_/);
  expect(r.headers.get('x-request-id')).toBe(r.body.request_id);
  expect(r.body).not.toHaveProperty('data');
  expect(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status).toBe(status);
}

describe('envelope on every answer', () => {
  it('success carries request_id and data, same id in X-Request-Id', async () => {
    const r = await call(s, 'GET', '/v1/partner/brands');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['data', 'request_id']);
    expect(r.headers.get('x-request-id')).toBe(r.body.request_id);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('request ids are unique', async () => {
    const a = await call(s, 'GET', '/v1/partner/brands');
    const b = await call(s, 'GET', '/v1/partner/brands');
    expect(a.body.request_id).not.toBe(b.body.request_id);
  });

  it('unknown route → 404 resource_not_found', async () => {
    expectError(await call(s, 'GET', '/v1/partner/nope'), 404, 'resource_not_found');
    expectError(await call(s, 'GET', '/v2/anything', { cred: null }), 404, 'resource_not_found');
  });

  it('wrong method → 405 request_method_not_allowed with Allow', async () => {
    const r = await call(s, 'DELETE', '/v1/partner/brands');
    expectError(r, 405, 'request_method_not_allowed');
    expect(r.headers.get('allow')).toContain('GET');
    expect(r.headers.get('allow')).toContain('POST');
    expectError(await call(s, 'POST', '/v1/partner/branches/1'), 405, 'request_method_not_allowed');
  });

  it('malformed JSON → 400 request_invalid', async () => {
    expectError(await call(s, 'POST', '/v1/partner/brands', { body: '{"title": ' }), 400, 'request_invalid');
  });

  it('empty JSON body → 400 request_invalid', async () => {
    expectError(await call(s, 'POST', '/v1/partner/brands', { body: '' }), 400, 'request_invalid');
  });

  it('wrong content type → 415 request_unsupported_media_type', async () => {
    const r = await call(s, 'POST', '/v1/partner/brands', {
      body: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(r, 415, 'request_unsupported_media_type');
  });

  it('body over 1 MiB → 413 request_too_large', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(1024 * 1024) });
    expectError(await call(s, 'POST', '/v1/partner/brands', { body: big }), 413, 'request_too_large');
  });

  it('validation errors list [{path, message}] in details', async () => {
    const r = await call(s, 'POST', '/v1/partner/brands', { body: { title: '', colour: 'red' } });
    expectError(r, 400, 'request_invalid');
    const details = r.body.error!.details as { path: unknown[]; message: string }[];
    expect(details.map((d) => d.path.join('.'))).toEqual(expect.arrayContaining(['body.title', 'body']));
    for (const d of details) expect(typeof d.message).toBe('string');
  });

  it('a non-JSON answer never escapes, even for a garbled request line', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(new URL(s.baseUrl).port), '127.0.0.1');
      let out = '';
      sock.on('data', (d) => {
        out += d.toString();
      });
      sock.on('end', () => resolve(out));
      sock.on('error', reject);
      sock.write('GET /v1/partner/brands HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    expect(raw).toMatch(/^HTTP\/1\.1 401/);
    expect(raw).toContain('"code":"auth_missing"');
  });
});

describe('public endpoints', () => {
  it('GET /healthz answers 200 without auth', async () => {
    const r = await call(s, 'GET', '/healthz', { cred: null });
    expect(r.status).toBe(200);
    expect(r.body.data.status).toBe('ok');
  });

  it('GET /v1/partner/openapi.json is the raw OpenAPI 3.1 document of every partner operation, no auth', async () => {
    const r = await call(s, 'GET', '/v1/partner/openapi.json', { cred: null });
    expect(r.status).toBe(200);
    // The one answer without an envelope: tools given the URL expect the document itself.
    const doc = JSON.parse(r.text);
    expect(doc.openapi).toBe('3.1.0');
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    expect(doc.paths['/v1/partner/branches'].get.operationId).toBe('listBranches');
    expect(doc.paths['/v1/partner/brands'].post.requestBody).toBeDefined();
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/v1/operator'))).toBe(false);
  });
});
