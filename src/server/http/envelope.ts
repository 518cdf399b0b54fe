import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../errors.js';
import { keepAnswer } from './request-log.js';
import { BODY_LIMIT } from './body-reader.js';

// Stage: the envelope of every /v1 answer, `{request_id, data}` or `{request_id, error}`, and the
// mapping of the framework's own failures onto the error catalogue.

export function sendData(reply: FastifyReply, status: number, dataJson: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(`{"request_id":"${reply.request.id}","data":${dataJson}}`);
}

const CLOSE = Buffer.from('}');

/**
 * The envelope around shared bytes, written in three pieces so the shared part is never copied
 * (Fastify's send takes one payload). The reply is taken over from Fastify: its headers so far are
 * kept, the request log is handed the answer its onSend hook would have seen, and onResponse
 * hooks still run when the answer is done.
 */
export function sendDataBytes(reply: FastifyReply, status: number, data: Buffer, closing: boolean): void {
  const head = Buffer.from(`{"request_id":"${reply.request.id}","data":`);
  const pieces = [head, data, CLOSE];
  keepAnswer(reply.request, pieces);
  reply.hijack();
  const res = reply.raw;
  const headers = reply.getHeaders();
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = String(head.length + data.length + CLOSE.length);
  if (closing) headers.connection = 'close';
  res.writeHead(status, headers as Record<string, string>);
  if (reply.request.method === 'HEAD') {
    res.end();
    return;
  }
  res.cork();
  res.write(head);
  res.write(data);
  res.end(CLOSE);
}

export function sendError(reply: FastifyReply, status: number, errorJson: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(`{"request_id":"${reply.request.id}","error":${errorJson}}`);
}

export function errorJson(e: ApiError): string {
  return JSON.stringify({
    code: e.code,
    message: e.message,
    ...(e.details === undefined ? {} : { details: e.details }),
  });
}

/** Maps Fastify's own failures (body parsing, limits) onto the catalogue. */
export function fromFastifyError(err: { code?: string; statusCode?: number; message: string }): ApiError {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('request_too_large', `request body is larger than ${BODY_LIMIT} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        'request_unsupported_media_type',
        'request body must be sent as Content-Type: application/json',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('request_invalid', 'Content-Type is application/json but the body is empty', [
        { path: ['body'], message: 'empty' },
      ]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('request_invalid', `malformed JSON body: ${err.message}`, [
        { path: ['body'], message: `malformed JSON: ${err.message}` },
      ]);
    case 'FST_ERR_BAD_URL':
      return new ApiError('request_invalid', 'the URL is not valid (a bad percent-encoding?)', [
        { path: ['url'], message: 'not a valid URL' },
      ]);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('request_invalid', 'a path segment is too long', [
        { path: ['url'], message: 'a path segment is too long' },
      ]);
    default:
      if (err.statusCode === 400) return new ApiError('request_invalid', err.message);
      if (err.statusCode === 413) return new ApiError('request_too_large');
      if (err.statusCode === 415) return new ApiError('request_unsupported_media_type');
      return new ApiError('internal_error');
  }
}

/** Errors raised before routing (Fastify's frameworkErrors option) still answer in the envelope. */
export function frameworkErrorAnswer(logErrors: (err: unknown) => void) {
  return (err: unknown, _req: unknown, reply: FastifyReply): void => {
    const e = fromFastifyError(err as { code?: string; statusCode?: number; message: string });
    if (e.code === 'internal_error') logErrors(err);
    reply.header('x-request-id', reply.request.id);
    void sendError(reply, e.status, errorJson(e));
  };
}

/**
 * Stage: every error a later stage throws answers in the envelope: an ApiError as it is (with its
 * headers), the framework's own mapped onto the catalogue, anything else internal_error (logged).
 * An unknown route answers 404 resource_not_found.
 */
export function errorAnswers(logErrors: (err: unknown) => void) {
  return (app: FastifyInstance): void => {
    app.setErrorHandler((err: unknown, _req, reply) => {
      let e: ApiError;
      if (err instanceof ApiError) e = err;
      else {
        e = fromFastifyError(err as { code?: string; statusCode?: number; message: string });
        if (e.code === 'internal_error') logErrors(err);
      }
      if (e.headers) reply.headers(e.headers);
      return sendError(reply, e.status, errorJson(e));
    });
    app.setNotFoundHandler((req, reply) =>
      sendError(
        reply,
        404,
        errorJson(new ApiError('resource_not_found', `no route ${req.method} ${req.url.split('?')[0]!}`)),
      ),
    );
  };
}
