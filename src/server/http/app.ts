import { OPERATION_LIST } from '../../contract/operations.js';
import type { HandlerTable } from '../handlers/context.js';
import { authenticate } from './authenticate.js';
import { BODY_LIMIT, BodyBudget } from './body-reader.js';
import { decoding } from './decoding.js';
import { errorAnswers, sendData } from './envelope.js';
import { HttpApp } from './http-app.js';
import { claimIdempotencyKey, releaseClaimOnError } from './idempotency-key.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { DEFAULT_TIMEOUTS, type HttpTimeouts, nodeServer } from './node-server.js';
import { rateLimit } from './rate-limit.js';
import { readAhead } from './read-ahead.js';
import { genReqId, requestIdHeader } from './request-id.js';
import { requestLogHooks } from './request-log.js';
import { requireScope } from './scope.js';
import { type AppServices, type AppStage, inOrder } from './stage.js';
import { type OperationHandler, partnerRead, unitOfWork } from './unit-of-work.js';

// The request pipeline: the stages, in the order a request meets them. Each is a module of its
// own beside its test; what they stand on (node:http, find-my-way) is http-app.ts.

export type { AppServices, HttpTimeouts };

/** Bytes of request bodies read at once over all requests (body-reader.ts): 8 bodies at the limit. */
const BODY_BUDGET = 8 * BODY_LIMIT;
/** Longer than any request line Node accepts (its header block is 16 KiB). */
const MAX_PARAM_LENGTH = 16 * 1024;

interface AppOptions {
  logErrors?: (err: unknown) => void;
  timeouts?: Partial<HttpTimeouts>;
}

export interface App {
  /** Listens; requests are answered from here on. */
  listen(o: { host: string; port: number }): Promise<import('node:net').AddressInfo>;
  /**
   * Stops: new connections are refused; a request still reaching the server on a connection it
   * had is answered in full, in the envelope, with `Connection: close`; resolves when every
   * connection has ended.
   */
  close(): Promise<void>;
  /** Node's request listener (tests drive it in-process). */
  handle: HttpApp['handle'];
}

export function buildApp(services: AppServices, handlers: HandlerTable, opts: AppOptions = {}): App {
  const logErrors =
    opts.logErrors ??
    ((err: unknown) => process.stderr.write(`partner server: ${String((err as Error)?.stack ?? err)}\n`));
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  // Parameters of any length reach their route, so a long one answers like any invalid one
  // (after auth, 400); the request line is bounded by Node's header size limit anyway.
  const app = new HttpApp({ genReqId, logErrors, maxParamLength: MAX_PARAM_LENGTH });

  const everyRequest: AppStage[] = [
    requestIdHeader,
    methodNotAllowed(OPERATION_LIST),
    decoding({ limit: BODY_LIMIT, budget: new BodyBudget(BODY_BUDGET) }),
    ...(services.requestLog ? [requestLogHooks(services.requestLog, services.now)] : []),
    errorAnswers(logErrors),
  ];
  for (const stage of everyRequest) stage(app);

  app.route({
    method: 'GET',
    url: '/healthz',
    handler: (_req, reply) =>
      sendData(reply, 200, JSON.stringify({ status: 'ok', version: services.version })),
  });
  for (const op of OPERATION_LIST) {
    const handler = (handlers as unknown as Record<string, OperationHandler>)[op.id];
    if (!handler) throw new Error(`operation ${op.id} has no handler`);
    app.route({
      method: op.method,
      url: op.path.replace(/\{(\w+)\}/g, ':$1'),
      onRequest: inOrder([
        authenticate(op, services),
        op.auth === 'partner' && op.method === 'GET'
          ? readAhead(partnerRead(op, handler, services))
          : undefined,
        rateLimit(op),
        requireScope(op),
        claimIdempotencyKey(op, services.store, services.now),
      ]),
      // Only a partner write holds a claim to give back.
      ...(op.auth === 'partner' && op.method !== 'GET' ? { onSend: releaseClaimOnError } : {}),
      // validate.ts, then the handler in its unit of work.
      handler: unitOfWork(op, handler, services),
    });
  }

  const server = nodeServer(timeouts, app.handle);
  return {
    handle: app.handle,
    async listen(o) {
      await app.listen(server, o);
      return server.address() as import('node:net').AddressInfo;
    },
    close: () => app.close(),
  };
}
