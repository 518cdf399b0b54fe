import type { OperationId, Operations } from '../../contract/operations.js';
import type { OperationInput, OperationOutput, OperationSpec } from '../../contract/operation.js';
import type { AuthedCredential } from '../domain/auth.js';
import type { Sealer } from '../security/sealed.js';
import type { SecretHasher } from '../security/secrets.js';
import type { MenuRenderCache } from '../services/menus/publish.js';
import type { Store, TenantTx } from '../store/store.js';
import type { RequestLog } from '../services/request-log.js';

/** Long-lived parts of a running server, shared by every request. */
export interface Services {
  /** The store: units of work over the backend (store/store.ts). */
  store: Store;
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now: () => number;
  /** Cached verifications: every operator change to a credential forgets its key's. */
  auth: { invalidate(key: string): void };
  operatorToken: string;
  version: string;
  /** Webhook retry delays in ms. */
  retrySchedule: number[];
  /** Parsed menu snapshots and their last renderings (GET /menus). */
  menuRenders: MenuRenderCache;
  /** Seals webhook signing keys at rest. */
  sealer: Sealer;
  /** Hashes partner credential secrets for storage (a key derived from the seal key). */
  secrets: SecretHasher;
  /** The webhook dispatcher, when running: operator actions wake it. */
  dispatcher?: { kick(): void };
  /** The bounded log of answered requests (`partner logs tail`); absent, nothing is logged. */
  requestLog?: RequestLog;
}

/** What a partner handler may use of the services: everything but the unscoped store. */
type PartnerServices = Omit<Services, 'store'>;

interface PublicCtx {
  services: PartnerServices;
  now: number;
}
/**
 * Tenancy is structural: a partner handler's only way to the data is `store`, the request's unit
 * of work seen by the credential's business. Its repositories take no business id, so no handler
 * can forget the filter or pass another business's.
 */
export interface PartnerCtx extends PublicCtx {
  credential: AuthedCredential;
  /** A write operation's whole handler runs in one unit with its Idempotency-Key answer, a read's in a read unit. */
  store: TenantTx;
}
export interface OperatorCtx {
  services: Services;
  now: number;
  /** Unscoped: operator handlers open their own units (they may hash between them). */
  store: Store;
}

/** A payload already serialised (e.g. stored records concatenated), sent as `data` untouched. */
export class RawJson {
  /** `event`: the outbox event whose one order is exactly `json` (see StoredResponse.event). */
  constructor(
    readonly json: string,
    readonly event?: string,
  ) {}
}

/**
 * JSON a handler hands out again and again (a cached page): encoded to bytes once, so each answer
 * copies bytes instead of flattening, measuring and encoding the text again.
 */
export class SharedJson extends RawJson {
  private encoded?: Buffer;
  get bytes(): Buffer {
    this.encoded ??= Buffer.from(this.json, 'utf8');
    return this.encoded;
  }
}

type Result<O extends OperationSpec> = OperationOutput<O> | RawJson;

/**
 * A partner handler runs inside a unit of work (ctx.store): it awaits nothing but the store, so
 * a write and its idempotency answer (and any outbox event) commit together or not at all.
 */
type Handler<O extends OperationSpec> = O['auth'] extends 'operator'
  ? (ctx: OperatorCtx, input: OperationInput<O>) => Result<O> | Promise<Result<O>>
  : O['auth'] extends 'none'
    ? (ctx: PublicCtx, input: OperationInput<O>) => Result<O>
    : (ctx: PartnerCtx, input: OperationInput<O>) => Result<O> | Promise<Result<O>>;

export type HandlerTable = { [K in OperationId]: Handler<Operations[K]> };
export type HandlersFor<K extends OperationId> = { [P in K]: Handler<Operations[P]> };
