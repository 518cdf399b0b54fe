import { afterAll, describe, expect, it } from 'vitest';
import { RequestLog } from '../services/request-log.js';
import { decoding } from './decoding.js';
import { sendData, sendDataBytes } from './envelope.js';
import { ApiError } from '../errors.js';
import { stageApp } from './harness.js';
import { keptBody, requestLogHooks } from './request-log.js';

// The request log's hooks in-process: which requests they hand to the log, and with what.

const CLOCK = Date.parse('2026-01-01T00:00:00Z');
const log = new RequestLog();
const app = stageApp([decoding({ limit: 1 << 20 }), requestLogHooks(log, () => CLOCK)]);
app.post('/v1/partner/things', async (_req, reply) => sendData(reply, 201, '{"id":1,"token":"kept-answer"}'));
app.get('/v1/partner/missing', async () => {
  throw new ApiError('resource_not_found', 'no such thing');
});
app.get('/v1/operator/requests', async (_req, reply) => sendData(reply, 200, '[]'));
app.get('/healthz', async (_req, reply) => sendData(reply, 200, '{}'));
afterAll(() => app.close());

const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

describe('request log hooks', () => {
  it('a /v1 request is logged once answered: method, path, status, credential key, never the secret', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/partner/things?x=1',
      headers: { authorization: basic('pk_test_1', 'sk_the_secret'), 'content-type': 'application/json' },
      payload: { title: 'Tea', secret: 'body-secret' },
    });
    expect(r.statusCode).toBe(201);
    const [e] = log.list({ limit: 10 }).results.filter((x) => x.request_id === r.json().request_id);
    expect(e).toMatchObject({
      method: 'POST',
      path: '/v1/partner/things?x=1',
      status: 201,
      credential_key: 'pk_test_1',
      error_code: null,
    });
    // When it started: the clock at its answer less its duration.
    expect(Math.abs(Date.parse(e!.at) - (CLOCK - e!.duration_ms))).toBeLessThanOrEqual(1);
    const detail = JSON.stringify(log.get(e!.request_id));
    expect(detail).not.toContain('sk_the_secret');
    expect(detail).not.toContain('body-secret');
    expect(detail).not.toContain('kept-answer');
    expect(log.get(e!.request_id)!.request.body).toContain('"title":"Tea"');
  });

  it('an error answer is logged with its catalogue code', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/partner/missing' });
    const e = log.list({ limit: 10 }).results.find((x) => x.request_id === r.json().request_id);
    expect(e).toMatchObject({ status: 404, error_code: 'resource_not_found', credential_key: null });
  });

  it('the log’s own routes and anything outside /v1/ are not logged', async () => {
    const before = log.size.entries;
    await app.inject({ method: 'GET', url: '/v1/operator/requests?after=1' });
    await app.inject({ method: 'GET', url: '/healthz' });
    expect(log.size.entries).toBe(before);
    await app.inject({ method: 'GET', url: '/v1/operator/requestsX' });
    expect(log.size.entries).toBe(before + 1);
  });
});

describe('an answer written from shared bytes', () => {
  const small = new RequestLog({ maxBodyChars: 100 });
  const bytesApp = stageApp([requestLogHooks(small, () => CLOCK)]);
  const page = (n: number) => Buffer.from(JSON.stringify({ results: 'x'.repeat(n) }));
  const short = page(10);
  const long = page(200);
  bytesApp.get('/v1/partner/short', (_req, reply) => sendDataBytes(reply, 200, short));
  bytesApp.get('/v1/partner/long', (_req, reply) => sendDataBytes(reply, 200, long));
  afterAll(() => bytesApp.close());

  it('is kept by reference and read back whole, cut at maxBodyChars only when read', async () => {
    const before = small.size.detailChars;
    const a = await bytesApp.inject({ method: 'GET', url: '/v1/partner/short' });
    const shortDetail = small.get(a.json().request_id)!;
    expect(shortDetail.response.body).toBe(a.body);
    expect(shortDetail.response).toMatchObject({ body_size: a.rawPayload.length, body_truncated: false });
    // The budget counts all the bytes held.
    expect(small.size.detailChars - before).toBeGreaterThanOrEqual(a.rawPayload.length);

    const b = await bytesApp.inject({ method: 'GET', url: '/v1/partner/long' });
    const longDetail = small.get(b.json().request_id)!;
    expect(longDetail.response.body).toBe(b.body.slice(0, 100));
    expect(longDetail.response).toMatchObject({ body_size: b.rawPayload.length, body_truncated: true });
  });
});

describe('keptBody', () => {
  it('keeps a buffer of its own by reference, copies a small one out of the pool it shares, encodes a text piece', () => {
    const own = Buffer.from('x'.repeat(10_000));
    const pooled = Buffer.from('{"request_id":"req_1","data":');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.byteLength);
    const [a, b, c] = keptBody([pooled, own, '{"é":1}']) as Uint8Array[];
    expect(a!.buffer.byteLength).toBe(pooled.byteLength);
    expect(Buffer.from(a!).toString()).toBe(pooled.toString());
    expect(b).toBe(own);
    expect(c!.buffer.byteLength).toBe(8);
    expect(Buffer.from(c!).toString()).toBe('{"é":1}');
    expect(keptBody('text')).toBe('text');
    expect(keptBody(undefined)).toBeNull();
  });
});
