import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { errorJson, fromFastifyError, sendData, sendDataBytes, sendError } from './envelope.js';

// The envelope stage in-process, through Fastify's inject(): no socket, no store.

const app = Fastify({ genReqId: () => 'req_test' });
app.get('/v1/data', (_req, reply) => sendData(reply, 201, '{"a":1}'));
app.get('/v1/error', (_req, reply) =>
  sendError(reply, 404, errorJson(new ApiError('resource_not_found', 'no such thing'))),
);
const shared = Buffer.from('{"results":[1,2,3]}');
app.get('/v1/shared', (req, reply) => {
  reply.header('x-extra', 'kept');
  sendDataBytes(reply, 200, shared, req.query !== null && (req.query as { close?: string }).close === '1');
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
    expect(r.headers.connection).not.toBe('close');
    const closing = await app.inject({ method: 'GET', url: '/v1/shared?close=1' });
    expect(closing.headers.connection).toBe('close');
    const head = await app.inject({ method: 'HEAD', url: '/v1/shared' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it("the framework's own failures map onto the catalogue; anything unknown is internal_error", () => {
    const code = (e: { code?: string; statusCode?: number; message: string }) => fromFastifyError(e).code;
    expect(code({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: '' })).toBe('request_too_large');
    expect(code({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', message: '' })).toBe(
      'request_unsupported_media_type',
    );
    expect(code({ code: 'FST_ERR_CTP_EMPTY_JSON_BODY', message: '' })).toBe('request_invalid');
    expect(code({ code: 'FST_ERR_CTP_INVALID_JSON_BODY', message: 'Unexpected token' })).toBe(
      'request_invalid',
    );
    expect(code({ code: 'FST_ERR_BAD_URL', message: '' })).toBe('request_invalid');
    expect(code({ statusCode: 413, message: '' })).toBe('request_too_large');
    expect(code({ message: 'boom' })).toBe('internal_error');
  });
});
