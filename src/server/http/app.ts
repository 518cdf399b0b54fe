import { createServer } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ERROR_CATALOGUE } from '../../contract/errors.js';
import type { OperationSpec } from '../../contract/operation.js';
import { OPERATION_LIST } from '../../contract/operations.js';
import { tenantQuery } from '../../contract/schemas/common.js';
import {
  decide,
  fingerprint,
  type IdempotencyDecision,
  isStorable,
  type StoredResponse,
  MAX_BODY_DEPTH,
  nestsDeeperThan,
  validKey,
} from '../domain/idempotency.js';
import { AllowedMethods } from './allowed-methods.js';
import { ApiError, type FieldIssue } from '../errors.js';
import { CredentialAuth, checkOperator, type AuthedCredential } from './auth.js';
import { decodedBody, hasBody } from './content-encoding.js';
import { illFormedString, registerStrictJson } from './json-body.js';
import type { HandlerTable, PartnerCtx, Services } from '../handlers/context.js';
import { RawJson, SharedJson } from '../handlers/context.js';
import type { Tx } from '../store/store.js';
import { attachRequestLog, keepAnswer } from '../services/request-log.js';

export const BODY_LIMIT = 1024 * 1024;
/** Longer than any request line Node accepts (its header block is 16 KiB). */
const MAX_PARAM_LENGTH = 16 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    credential?: AuthedCredential;
    idemKey?: string;
    idemStored?: { answer: StoredResponse; at: number };
    /** The claim on the Idempotency-Key, while this request holds one. */
    idemClaim?: { release(): Promise<void>; unit?: Promise<unknown>; recheck: boolean };
  }
}

let seq = 0;
const prefix = Math.random().toString(36).slice(2, 8);
const genReqId = () => `req_${prefix}${(++seq).toString(36).padStart(6, '0')}`;

function sendData(reply: FastifyReply, status: number, dataJson: string): FastifyReply {
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
function sendDataBytes(reply: FastifyReply, status: number, data: Buffer, closing: boolean): void {
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

function sendError(reply: FastifyReply, status: number, errorJson: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(`{"request_id":"${reply.request.id}","error":${errorJson}}`);
}

function errorJson(e: ApiError): string {
  return JSON.stringify({
    code: e.code,
    message: e.message,
    ...(e.details === undefined ? {} : { details: e.details }),
  });
}

function issues(err: z.ZodError, root: string): FieldIssue[] {
  return err.issues.map((i) => ({
    path: [root, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    // A bad map key: zod says only "Invalid key in record"; the key's own rule says why.
    message: i.code === 'invalid_key' && i.issues[0] ? i.issues[0].message : i.message,
  }));
}

function parsePart(schema: z.ZodType | undefined, value: unknown, root: string, out: FieldIssue[]): unknown {
  if (!schema) return {};
  // A path or query may carry %00 too: refused as in a body, before any store sees it.
  const bad = root === 'body' ? undefined : illFormedString(value);
  if (bad) {
    out.push({ path: [root, ...bad.path], message: bad.why });
    return undefined;
  }
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  out.push(...issues(r.error, root));
  return undefined;
}

/** Maps Fastify's own failures (body parsing, limits) onto the catalogue. */
function fromFastifyError(err: { code?: string; statusCode?: number; message: string }): ApiError {
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

const isWrite = (op: OperationSpec) => op.method !== 'GET';
const serialise = (out: unknown) => (out instanceof RawJson ? out.json : JSON.stringify(out));
/** The outbox event an answer is the one order of, when the handler said so (RawJson.event). */
const eventOf = (out: unknown) => (out instanceof RawJson ? out.event : undefined);

/** Keeps the request's Idempotency-Key claim until `unit` has settled, then gives it back. */
async function holding<T>(req: FastifyRequest, unit: Promise<T>): Promise<T> {
  const claim = req.idemClaim;
  if (claim) claim.unit = unit.catch(() => undefined);
  try {
    return await unit;
  } finally {
    void claim?.release();
  }
}

type WriteOutcome =
  | Exclude<IdempotencyDecision, { kind: 'proceed' }>
  | { kind: 'done'; json: string }
  | { kind: 'failed'; err: unknown };
const NO_QUERY = tenantQuery();

function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`;
}

/** How long a client may take to send its request, and to keep an idle connection open. */
export interface HttpTimeouts {
  /** From the connection (or the previous answer) to the end of the request headers. */
  headersMs: number;
  /** From the start of a request to the end of its body: a stalled upload is cut off here. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = Object.freeze({
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 30_000,
});

export interface AppOptions {
  logErrors?: (err: unknown) => void;
  timeouts?: Partial<HttpTimeouts>;
}

/** What the app needs beyond what handlers see: the credential verifier itself. */
export interface AppServices extends Services {
  auth: CredentialAuth;
}

export function buildApp(
  services: AppServices,
  handlers: HandlerTable,
  opts: AppOptions = {},
): FastifyInstance {
  const logErrors =
    opts.logErrors ??
    ((err: unknown) => process.stderr.write(`partner server: ${String((err as Error)?.stack ?? err)}\n`));
  const t = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const app = Fastify({
    logger: false,
    // Node's own bounds, checked often enough that a short bound (in tests) is kept closely. A
    // request cut off answers 408 request_timeout (clientErrorHandler below) and its socket
    // closes, which releases its Idempotency-Key.
    serverFactory: (handler) =>
      createServer(
        {
          headersTimeout: t.headersMs,
          requestTimeout: t.requestMs,
          keepAliveTimeout: t.keepAliveMs,
          connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(t.headersMs / 4))),
        },
        handler,
      ),
    bodyLimit: BODY_LIMIT,
    genReqId,
    // Stopping (SIGTERM): a request that still reaches the server on a connection it had (new
    // ones are refused) is answered in full, in the envelope, with `Connection: close`; the
    // store closes only after it. Fastify's own 503 would be outside the envelope, with no id.
    return503OnClosing: false,
    // Parameters of any length reach their route, so a long one answers like any invalid one
    // (after auth, 400); the request line is bounded by Node's header size limit anyway.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Errors raised before routing still answer in the envelope.
    frameworkErrors: (err, _req, reply) => {
      const e = fromFastifyError(err as { code?: string; statusCode?: number; message: string });
      if (e.code === 'internal_error') logErrors(err);
      reply.header('x-request-id', reply.request.id);
      void sendError(reply, e.status, errorJson(e));
    },
    // Requests Node's HTTP parser refuses (header block too large, garbage) never reach Fastify.
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return;
      const code = (err as NodeJS.ErrnoException).code;
      const [status, error] =
        code === 'HPE_HEADER_OVERFLOW'
          ? ['413 Payload Too Large', { code: 'request_too_large', message: 'request headers are too large' }]
          : code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [
                '408 Request Timeout',
                {
                  code: 'request_timeout',
                  message: `the request was not received within ${t.requestMs / 1000} s (headers within ${t.headersMs / 1000} s)`,
                },
              ]
            : ['400 Bad Request', { code: 'request_invalid', message: 'malformed HTTP request' }];
      const id = genReqId();
      const body = JSON.stringify({ request_id: id, error });
      socket.end(
        `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-Id: ${id}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      socket.destroySoon();
    },
  });
  // Only JSON bodies: Fastify would otherwise parse text/plain into a string (→ 400, not 415).
  app.removeContentTypeParser('text/plain');
  registerStrictJson(app);
  if (services.requestLog) attachRequestLog(app, services.requestLog, services.now);
  const { store } = services;

  // A known path with a method it does not serve → 405 before anything else (auth, body), with
  // the same Allow whichever method was tried.
  const allowed = new AllowedMethods(OPERATION_LIST);
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    const methods = allowed.of(req.url);
    if (methods && !methods.includes(req.method)) {
      const path = req.url.split('?')[0]!;
      reply.header('allow', methods.join(', '));
      void sendError(
        reply,
        405,
        errorJson(
          new ApiError(
            'request_method_not_allowed',
            `${req.method} is not allowed on ${path}; use ${methods.join(', ')}`,
          ),
        ),
      );
      return;
    }
    done();
  });

  // Bodies may come compressed; the limit applies after decoding (content-encoding.ts).
  // A callback hook: most requests have no body, and need no promise to say so.
  app.addHook('preParsing', (req, _reply, payload, done) => {
    if (!hasBody(req.headers)) return done(null, payload);
    let decoded: typeof payload;
    try {
      decoded = decodedBody(req.headers['content-encoding'], payload, BODY_LIMIT);
    } catch (err) {
      return done(err as Error);
    }
    done(null, decoded);
  });

  app.setErrorHandler((err: unknown, _req, reply) => {
    let e: ApiError;
    if (err instanceof ApiError) e = err;
    else {
      const fe = err as { code?: string; statusCode?: number; message: string };
      e = fromFastifyError(fe);
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

  app.get('/healthz', (_req, reply) =>
    sendData(reply, 200, JSON.stringify({ status: 'ok', version: services.version })),
  );

  for (const op of OPERATION_LIST) {
    const handler = (handlers as unknown as Record<string, (ctx: unknown, input: unknown) => unknown>)[op.id];
    if (!handler) throw new Error(`operation ${op.id} has no handler`);
    const status = op.status ?? 200;
    const write = isWrite(op);
    // A partner operation without query fields still takes the tenancy keys, and nothing else.
    const query = op.query ?? (op.auth === 'partner' ? NO_QUERY : undefined);

    const onRequest = async (req: FastifyRequest, reply: FastifyReply) => {
      if (op.auth === 'operator') {
        checkOperator(req.headers.authorization, services.operatorToken);
        return;
      }
      if (op.auth === 'none') return;
      const { cred, rate } = await services.auth.admit(req.headers.authorization, req.ip, services.now());
      req.credential = cred;
      reply.headers({
        'ratelimit-limit': rate.limit,
        'ratelimit-remaining': rate.remaining,
        'ratelimit-reset': rate.reset,
      });
      if (!rate.allowed) {
        throw new ApiError(
          'rate_limit_exceeded',
          `rate limit of ${rate.limit} request${rate.limit === 1 ? '' : 's'} per minute exceeded; retry in ${rate.retryAfter} s`,
          { retry_after: rate.retryAfter },
          { 'retry-after': String(rate.retryAfter) },
        );
      }
      CredentialAuth.requireScope(cred, op.scopes);
      if (!write) return;
      const key = req.headers['idempotency-key'];
      const k = Array.isArray(key) ? key[0] : key;
      const v = validKey(k);
      if (v === 'missing')
        throw new ApiError('request_missing_idempotency_key', `${op.method} needs an Idempotency-Key header`);
      if (v === 'too_long')
        throw new ApiError('request_invalid', 'Idempotency-Key is longer than 64 characters', [
          { path: ['header', 'Idempotency-Key'], message: 'at most 64 characters' },
        ]);
      const at = services.now();
      const begun = await store.claims.begin(cred.key, k!, at);
      if (begun.kind === 'in_flight') {
        throw new ApiError(
          'state_idempotency_conflict',
          'a request with this Idempotency-Key is still in flight',
          { reason: 'in_flight' },
        );
      }
      req.idemKey = k!;
      // A stored answer is replayed (or conflicts) without a claim: nothing runs again.
      if (begun.kind === 'stored') req.idemStored = { answer: begun.answer, at };
      else {
        // Held until the request's unit has settled (its answer, if any, is then committed and
        // replayed to whoever comes next), or until the request ends without one. A client that
        // goes away does not free the key while its unit may still run.
        let released: Promise<void> | undefined;
        const claim: NonNullable<FastifyRequest['idemClaim']> = {
          recheck: begun.recheck,
          release: () => {
            released ??= store.claims.release(cred.key, k!);
            return released;
          },
        };
        req.idemClaim = claim;
        reply.raw.once(
          'close',
          () => void (claim.unit ? claim.unit.finally(claim.release) : claim.release()),
        );
      }
    };

    app.route({
      method: op.method,
      url: op.path.replace(/\{(\w+)\}/g, ':$1'),
      onRequest,
      // An error answer stored nothing the next request would find first (a validation failure,
      // a body that did not parse): the key is given back BEFORE the answer goes out, so a client
      // that fixes its request and resends at once is not told in_flight. A 2xx was stored with
      // its change, and the next request finds it before the claim: its release need not wait.
      onSend: async (req, reply, payload) => {
        const claim = req.idemClaim;
        if (claim && reply.statusCode >= 400) await (claim.unit ?? Promise.resolve()).then(claim.release);
        return payload;
      },
      handler: async (req, reply) => {
        if (op.body && req.body !== undefined && !isJsonObject(req.body)) {
          throw new ApiError('request_invalid', 'the body must be a JSON object', [
            { path: ['body'], message: `expected a JSON object, got ${jsonType(req.body)}` },
          ]);
        }
        if (nestsDeeperThan(req.body, MAX_BODY_DEPTH)) {
          throw new ApiError('request_invalid', `body nests deeper than ${MAX_BODY_DEPTH} levels`, [
            { path: ['body'], message: `nested deeper than ${MAX_BODY_DEPTH} levels` },
          ]);
        }
        const bad: FieldIssue[] = [];
        const input = {
          params: parsePart(op.params, req.params, 'params', bad),
          query: parsePart(query, req.query, 'query', bad),
          body: op.body ? parsePart(op.body, req.body, 'body', bad) : undefined,
        };
        // An empty object is tolerated (some clients always send one); anything else is a mistake.
        if (
          !op.body &&
          write &&
          req.body !== undefined &&
          !(isJsonObject(req.body) && Object.keys(req.body).length === 0)
        ) {
          bad.push({ path: ['body'], message: 'this operation takes no body' });
        }
        // Validation failures are not stored against the Idempotency-Key: the client may fix and resend.
        if (bad.length > 0)
          throw new ApiError(
            'request_invalid',
            `invalid request: ${bad.map((b) => `${b.path.join('.')}: ${b.message}`).join('; ')}`,
            bad,
          );

        const now = services.now();

        if (op.auth !== 'partner') {
          const json = serialise(
            await handler(op.auth === 'operator' ? { services, now, store } : { services, now }, input),
          );
          // The OpenAPI document as tools expect it at its URL: no envelope (X-Request-Id is set).
          if (op.raw) return reply.code(status).type('application/json; charset=utf-8').send(json);
          return sendData(reply, status, json);
        }

        const cred = req.credential!;
        const ctxIn = (tx: Tx): PartnerCtx => ({
          services,
          now,
          credential: cred,
          store: tx.tenant(cred.businessId),
        });
        if (!write) {
          // A read unit answers only from committed data.
          const out = await store.read((tx) => Promise.resolve(handler(ctxIn(tx), input)));
          if (out instanceof SharedJson) {
            sendDataBytes(reply, status, out.bytes, services.requestLog?.closed ?? false);
            return reply;
          }
          return sendData(reply, status, serialise(out));
        }

        // The whole write in one unit of work: the stored answer is looked up once more where one
        // may have been stored since the claim began, the handler runs in a savepoint of its own, and
        // its answer is stored beside what it wrote. A client mistake rolls the handler's writes
        // back but keeps its stored error answer.
        const idemKey = req.idemKey!;
        const fp = fingerprint(op.method, req.url.split('?')[0]!, req.body);
        const stored = req.idemStored;
        // A claim whose look and take were one step (SQLite's in-process claims) cannot have missed
        // an answer: only the claim's holder stores one. A shared store's claim looks once more.
        const recheck = req.idemClaim?.recheck ?? true;
        const outcome = stored
          ? (decide(stored.answer, fp, stored.at) as WriteOutcome)
          : await holding(
              req,
              store.write(async (tx): Promise<WriteOutcome> => {
                if (recheck) {
                  const decision = decide(await tx.idempotency.get(cred.key, idemKey), fp, now);
                  if (decision.kind !== 'proceed') return decision;
                }
                let json: string;
                let event: string | undefined;
                try {
                  json = await tx.attempt(async () => {
                    const out = await handler(ctxIn(tx), input);
                    event = eventOf(out);
                    return serialise(out);
                  });
                } catch (err) {
                  // Not a client's mistake: a race lost to another instance (the store runs the
                  // whole unit again) or a bug. Either way the unit fails whole.
                  if (!(err instanceof ApiError)) throw err;
                  if (isStorable(err.status)) {
                    await tx.idempotency.put(cred.key, idemKey, {
                      fingerprint: fp,
                      status: err.status,
                      isError: true,
                      payload: errorJson(err),
                      createdAt: now,
                    });
                  }
                  return { kind: 'failed', err };
                }
                // Outside the handler's savepoint: if the answer cannot be stored, the unit fails whole.
                await tx.idempotency.put(cred.key, idemKey, {
                  fingerprint: fp,
                  status,
                  isError: false,
                  payload: json,
                  createdAt: now,
                  event,
                });
                return { kind: 'done', json };
              }),
            );
        switch (outcome.kind) {
          case 'conflict':
            throw new ApiError(
              'state_idempotency_conflict',
              'this Idempotency-Key was used with a different request',
              { reason: 'body_mismatch' },
            );
          case 'replay': {
            reply.header('idempotent-replayed', 'true');
            const s = outcome.stored;
            return s.isError ? sendError(reply, s.status, s.payload) : sendData(reply, s.status, s.payload);
          }
          case 'failed':
            throw outcome.err;
          case 'done':
            return sendData(reply, status, outcome.json);
        }
      },
    });
  }
  return app;
}

export { ERROR_CATALOGUE };
