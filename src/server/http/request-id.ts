import type { AppStage } from './stage.js';

// Stage: every request gets an id (`X-Request-Id`, the envelope's request_id), unique in this
// process and unlike another process's (a random prefix), short and ordered within a process.

let seq = 0;
const prefix = Math.random().toString(36).slice(2, 8);
export const genReqId = () => `req_${prefix}${(++seq).toString(36).padStart(6, '0')}`;

/** Every answer, whatever stage gives it, carries the id as X-Request-Id. */
export const requestIdHeader: AppStage = (app) => {
  app.onRequest.push((req, reply) => {
    reply.header('x-request-id', req.id);
  });
};
