import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { errorJson, sendData, sendDataBytes, sendError } from './envelope.js';
import { stageApp } from './harness.js';

// The envelope stage in-process: no socket, no store.

const failures: unknown[] = [];
const app = stageApp([], (err) => failures.push(err), { genReqId: () => 'req_test' });
app.get('/v1/data', (_req, reply) => sendData(reply, 201, '{"a":1}'));
app.get('/v1/error', (_req, reply) =>
  sendError(reply, 404, errorJson(new ApiError('resource_not_found', 'no such thing'))),
);
const shared = Buffer.from('{"results":[1,2,3]}');
app.get('/v1/shared', (_req, reply) => {
  reply.header('x-extra', 'kept');
  sendDataBytes(reply, 200, shared);
});
app.get('/v1/thrown/:kind', (req) => {
  if (req.params.kind === 'api')
    throw new ApiError('rate_limit_exceeded', 'slow down', { retry_after: 3 }, { 'retry-after': '3' });
  throw new Error('a bug');
});
afterAll(() => app.close());

describe('envelope', () => {
  it('data: {request_id, data} as JSON, with the status given', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/data' });
    expect(r.statusCode).toBe(201);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.json()).toEqual({ request_id: 'req_test', data: { a: 1 } });
  });

  it('error: {request_id, error:{code, message}} (details only when there are some)', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/error' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({
      request_id: 'req_test',
      error: { code: 'resource_not_found', message: 'no such thing' },
    });
    expect(
      JSON.parse(errorJson(new ApiError('request_invalid', 'x', [{ path: ['body'], message: 'm' }]))),
    ).toEqual({
      code: 'request_invalid',
      message: 'x',
      details: [{ path: ['body'], message: 'm' }],
    });
  });

  it('shared bytes: the same envelope, its length exact, headers set before kept; HEAD sends no body', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/shared' });
    expect(r.json()).toEqual({ request_id: 'req_test', data: { results: [1, 2, 3] } });
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
    expect(r.headers['x-extra']).toBe('kept');
    const head = await app.inject({ method: 'HEAD', url: '/v1/shared' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(r.body));
  });

  it('a thrown ApiError answers as it is, with its headers; anything else is internal_error, logged', async () => {
    const api = await app.inject({ url: '/v1/thrown/api' });
    expect(api.statusCode).toBe(429);
    expect(api.headers['retry-after']).toBe('3');
    expect(api.headers['x-request-id']).toBe('req_test');
    expect(api.json().error).toEqual({
      code: 'rate_limit_exceeded',
      message: 'slow down',
      details: { retry_after: 3 },
    });
    failures.length = 0;
    const bug = await app.inject({ url: '/v1/thrown/bug' });
    expect(bug.statusCode).toBe(500);
    expect(bug.json().error.code).toBe('internal_error');
    expect(bug.body).not.toContain('a bug');
    expect(failures).toEqual([new Error('a bug')]);
  });

  it('no route: 404 resource_not_found naming the method and path, not the query', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/nowhere?x=1' });
    expect(r.statusCode).toBe(404);
    expect(r.json().error).toEqual({ code: 'resource_not_found', message: 'no route POST /v1/nowhere' });
  });
});
