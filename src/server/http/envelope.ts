import { ApiError } from '../errors.js';
import type { HttpApp, Reply } from './http-app.js';

// Stage: the envelope of every /v1 answer, `{request_id, data}` or `{request_id, error}`, and the
// error answers: whatever a stage throws answers in the envelope.

const JSON_TYPE = 'application/json; charset=utf-8';

export function sendData(reply: Reply, status: number, dataJson: string): void {
  reply.code(status).type(JSON_TYPE).send(`{"request_id":"${reply.request.id}","data":${dataJson}}`);
}

const CLOSE = Buffer.from('}');

/**
 * The envelope around shared bytes, written in three pieces so the shared part is never copied;
 * its head is text (Node writes it as it writes the header block: no Buffer of its own to make).
 */
export function sendDataBytes(reply: Reply, status: number, data: Buffer): void {
  const head = `{"request_id":"${reply.request.id}","data":`;
  reply.code(status).type(JSON_TYPE).send([head, data, CLOSE]);
}

export function sendError(reply: Reply, status: number, errorJson: string): void {
  reply.code(status).type(JSON_TYPE).send(`{"request_id":"${reply.request.id}","error":${errorJson}}`);
}

export function errorJson(e: ApiError): string {
  return JSON.stringify({
    code: e.code,
    message: e.message,
    ...(e.details === undefined ? {} : { details: e.details }),
  });
}

/**
 * Stage: every error a later stage throws answers in the envelope: an ApiError as it is (with its
 * headers), anything else internal_error (logged). An unknown route answers 404
 * resource_not_found.
 */
export function errorAnswers(logErrors: (err: unknown) => void) {
  return (app: HttpApp): void => {
    app.errorAnswer = (err, _req, reply) => {
      let e: ApiError;
      if (err instanceof ApiError) e = err;
      else {
        e = new ApiError('internal_error');
        logErrors(err);
      }
      if (e.headers) reply.headers(e.headers);
      sendError(reply, e.status, errorJson(e));
    };
    app.notFound = (req, reply) =>
      sendError(
        reply,
        404,
        errorJson(new ApiError('resource_not_found', `no route ${req.method} ${req.url.split('?')[0]!}`)),
      );
  };
}
