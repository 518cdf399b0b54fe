import type { OperationSpec } from '../../contract/operation.js';
import { tenantQuery } from '../../contract/schemas/common.js';
import { decide, fingerprint, type IdempotencyDecision, isStorable } from '../domain/idempotency.js';
import { ApiError } from '../errors.js';
import type { PartnerCtx } from '../handlers/context.js';
import { RawJson, SharedJson } from '../handlers/context.js';
import type { Tx } from '../store/store.js';
import { errorJson, sendData, sendDataBytes, sendError } from './envelope.js';
import type { Reply, Request } from './http-app.js';
import { holdingClaim } from './idempotency-key.js';
import type { AppServices } from './stage.js';
import { validInput } from './validate.js';

// Stage: the operation itself. Its input validated (validate.ts), then its handler run in one
// unit of work: a read unit answers from committed data only; a write unit looks the stored
// answer up once more where one may have been stored since the claim began, runs the handler in a
// savepoint of its own and stores its answer beside what it wrote, so a 2xx means committed and a
// retry with the same key replays it.

export type OperationHandler = (ctx: unknown, input: unknown) => unknown;

const serialise = (out: unknown) => (out instanceof RawJson ? out.json : JSON.stringify(out));
/** The outbox event an answer is the one order of, when the handler said so (RawJson.event). */
const eventOf = (out: unknown) => (out instanceof RawJson ? out.event : undefined);
const NO_QUERY = tenantQuery();

type WriteOutcome =
  | Exclude<IdempotencyDecision, { kind: 'proceed' }>
  | { kind: 'done'; json: string }
  | { kind: 'failed'; err: unknown };

const partnerCtx =
  (services: AppServices) =>
  (req: Request, now: number, tx: Tx): PartnerCtx => ({
    services,
    now,
    credential: req.credential!,
    store: tx.tenant(req.credential!.businessId),
  });

/** A partner GET's handler in a read unit, which answers only from committed data. */
export function partnerRead(
  op: OperationSpec,
  handler: OperationHandler,
  services: AppServices,
): (req: Request) => Promise<unknown> {
  const ctxIn = partnerCtx(services);
  const query = op.query ?? NO_QUERY;
  return async (req) => {
    const input = validInput(op, query, req);
    const now = services.now();
    return services.store.read((tx) => Promise.resolve(handler(ctxIn(req, now, tx), input)));
  };
}

export function unitOfWork(
  op: OperationSpec,
  handler: OperationHandler,
  services: AppServices,
): (req: Request, reply: Reply) => Promise<unknown> {
  const { store } = services;
  const status = op.status ?? 200;
  // A partner operation without query fields still takes the tenancy keys, and nothing else.
  const query = op.query ?? (op.auth === 'partner' ? NO_QUERY : undefined);

  if (op.auth !== 'partner') {
    return async (req, reply) => {
      const input = validInput(op, query, req);
      const now = services.now();
      const json = serialise(
        await handler(op.auth === 'operator' ? { services, now, store } : { services, now }, input),
      );
      // The OpenAPI document as tools expect it at its URL: no envelope (X-Request-Id is set).
      if (op.raw) reply.code(status).type('application/json; charset=utf-8').send(json);
      else sendData(reply, status, json);
    };
  }

  const ctxIn = partnerCtx(services);

  if (op.method === 'GET') {
    const read = partnerRead(op, handler, services);
    return async (req, reply) => {
      // What went ahead of the admission, when the admission agreed with it (read-ahead.ts).
      const out = await (req.ahead?.read ?? read(req));
      if (out instanceof SharedJson) sendDataBytes(reply, status, out.bytes);
      else sendData(reply, status, serialise(out));
    };
  }

  return async (req, reply) => {
    const input = validInput(op, query, req);
    const now = services.now();
    const cred = req.credential!;
    const idemKey = req.idemKey!;
    const fp = fingerprint(op.method, req.url.split('?')[0]!, req.body);
    const stored = req.idemStored;
    // A claim whose look and take were one step (SQLite's in-process claims) cannot have missed an
    // answer: only the claim's holder stores one. A shared store's claim looks once more.
    const recheck = req.idemClaim?.recheck ?? true;
    const outcome = stored
      ? (decide(stored.answer, fp, stored.at) as WriteOutcome)
      : await holdingClaim(
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
                const out = await handler(ctxIn(req, now, tx), input);
                event = eventOf(out);
                return serialise(out);
              });
            } catch (err) {
              // Not a client's mistake: a race lost to another instance (the store runs the whole
              // unit again) or a bug. Either way the unit fails whole.
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
          {
            reason: 'body_mismatch',
          },
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
  };
}
