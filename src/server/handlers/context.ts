import type { OperationId, Operations } from '../../contract/operations.js';
import type { OperationInput, OperationOutput, OperationSpec } from '../../contract/operation.js';
import type { Db } from '../store/db.js';
import type { AuthedCredential, CredentialAuth } from '../http/auth.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import type { Sealer } from '../security/sealed.js';
import type { GroupCommit } from '../http/group-commit.js';

/** Long-lived parts of a running server, shared by every request. */
export interface Services {
  db: Db;
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now: () => number;
  auth: CredentialAuth;
  limiter: RateLimiter;
  operatorToken: string;
  version: string;
  /** Webhook retry delays in ms. */
  retrySchedule: number[];
  /** The shared transaction of this event-loop turn's partner writes. */
  group: GroupCommit;
  /** Seals webhook signing keys at rest. */
  sealer: Sealer;
  /** The webhook dispatcher, when running: operator actions wake it. */
  dispatcher?: { kick(): void };
}

export interface PublicCtx {
  services: Services;
  db: Db;
  now: number;
}
export interface PartnerCtx extends PublicCtx {
  credential: AuthedCredential;
  /** Tenancy: every read and write is confined to this business. */
  businessId: number;
}
export type OperatorCtx = PublicCtx;

/** A payload already serialised (e.g. stored records concatenated), sent as `data` untouched. */
export class RawJson {
  constructor(readonly json: string) {}
}

type Result<O extends OperationSpec> = OperationOutput<O> | RawJson;

/**
 * Partner writes must be synchronous: they run inside one SQLite transaction together with the
 * idempotency record (and any outbox event), so a failure leaves nothing half-written.
 */
export type Handler<O extends OperationSpec> = O['auth'] extends 'operator'
  ? (ctx: OperatorCtx, input: OperationInput<O>) => Result<O> | Promise<Result<O>>
  : O['auth'] extends 'none'
    ? (ctx: PublicCtx, input: OperationInput<O>) => Result<O>
    : O['method'] extends 'GET'
      ? (ctx: PartnerCtx, input: OperationInput<O>) => Result<O> | Promise<Result<O>>
      : (ctx: PartnerCtx, input: OperationInput<O>) => Result<O>;

export type HandlerTable = { [K in OperationId]: Handler<Operations[K]> };
export type HandlersFor<K extends OperationId> = { [P in K]: Handler<Operations[P]> };
