// `partner/client`: the typed client of the Partner API, as a library (docs/library.md). The CLI
// imports ./client.js directly with routes from its build-time manifest; this entry point fills
// them in from the contract's operation table, so `call('listOrders', …)` works out of the box
// and its input and result are typed from the same zod schemas the server validates with.

import { OPERATION_LIST, type OperationId } from '../contract/operations.js';
import {
  type CallInput,
  type CallOutput,
  type ClientOptions,
  type Page,
  type PageInput,
  type PageItem,
  type PaginatedOperationId,
  PartnerClient as CoreClient,
  type Route,
  routesOf,
} from './client.js';

const ROUTES: Readonly<Record<string, Route>> = routesOf(OPERATION_LIST);

/**
 * The client: one keep-alive connection pool, Basic auth for partner operations and Bearer for the
 * local server's operator API, an Idempotency-Key on every write, bounded retries of 429 and 502
 * (honouring Retry-After), and pacing under the credential's rate limit. Close it when done.
 *
 * @example
 * const client = new PartnerClient({ baseUrl: 'https://api.example.com', credential: { key, secret } });
 * const page = await client.call('listOrders', { query: { status: 'PLACED', size: 50 } });
 * for await (const branch of client.paginate('listBranches')) console.log(branch);
 * await client.close();
 */
export class PartnerClient extends CoreClient {
  constructor(opts: ClientOptions) {
    super({ routes: ROUTES, userAgent: 'partner-client', ...opts });
  }

  /**
   * Calls an operation of the table by id and resolves to the envelope's `data`. Typed strictly:
   * an unknown id or an input that does not fit the operation is a compile error here (the CLI's
   * client also takes any string, for ids it reads from its manifest).
   */
  override call<K extends OperationId>(id: K, input?: CallInput<K>): Promise<CallOutput<K>> {
    return super.call(id, input);
  }

  /**
   * Every item of a paginated operation, typed from the table like `call()`: an id that is not a
   * paginated operation does not compile, and `paginate('listBranches')` yields `Branch`es.
   */
  override paginate<K extends PaginatedOperationId>(
    id: K,
    input?: PageInput<K>,
  ): AsyncGenerator<PageItem<K>, void, undefined> {
    return super.paginate<PageItem<K>>(id as string, input as PageInput);
  }

  /** The pages of a paginated operation, in order, typed as `paginate`. */
  override pages<K extends PaginatedOperationId>(
    id: K,
    input?: PageInput<K>,
  ): AsyncGenerator<Page<PageItem<K>>, void, undefined> {
    return super.pages<PageItem<K>>(id as string, input as PageInput);
  }
}

/** `new PartnerClient(opts)`. */
export function createClient(opts: ClientOptions): PartnerClient {
  return new PartnerClient(opts);
}

export {
  type ApiResponse,
  type CallInput,
  type CallOutput,
  type ClientOptions,
  type Clock,
  isLoopbackHost,
  type Page,
  type PageInput,
  type PageItem,
  type PaginatedOperationId,
  type RequestLog,
  type RequestOptions,
  type Route,
  realClock,
  type WaitNotice,
} from './client.js';
export { ApiError, ClientConfigError, type ErrorEnvelope, NetworkError } from './errors.js';
export { parseRateLimitHeaders, type RateLimitHeaders } from './pacer.js';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
export { OPERATIONS, type OperationId, type Operations } from '../contract/operations.js';
export { isScope, SCOPES, type Scope } from '../contract/scopes.js';
export { ERROR_CATALOGUE, type ErrorCode, isErrorCode } from '../contract/errors.js';
export { STATUS_CODES, STATUS_ID, type StatusCode, statusName } from '../contract/order-statuses.js';
export type { OrderEventType } from '../contract/schemas/orders.js';
export type * from './resources.js';
