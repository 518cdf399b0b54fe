import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { OperationId, Operations } from '../contract/operations.js';
import { ApiError, ClientConfigError, NetworkError } from './errors.js';
import { Pacer, parseRateLimitHeaders } from './pacer.js';
import { HttpTransport } from './http-transport.js';
import { isLoopbackHost } from './loopback.js';
import { DEFAULT_RETRY, parseRetryAfter, type RetryPolicy, retryDelay } from './retry.js';
import type { Transport, WireResponse } from './wire.js';

export { isLoopbackHost };

/** What the client needs to know about an operation: a row of the table or of the CLI manifest. */
export interface Route {
  id: string;
  method: string;
  path: string;
  auth: 'partner' | 'operator' | 'none';
}

export interface RequestLog {
  method: string;
  url: string;
  /** 0 when no answer came back. */
  status: number;
  ms: number;
  request_id: string;
  attempt: number;
  /** Set when the client is about to wait before retrying. */
  retryInMs?: number;
  /** Set when the pacer delayed this request. */
  pacedMs?: number;
}

/** Said before the client sleeps: a retry's backoff or Retry-After, or pacing under the limit. */
export interface WaitNotice {
  reason: 'retry' | 'pace';
  ms: number;
  /** The status being retried. */
  status?: number;
  /** The attempt that failed (retries). */
  attempt?: number;
  /** Requests per minute of the credential (pacing). */
  limit?: number;
}

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface ClientOptions {
  baseUrl: string;
  /** Partner credential: sent as Basic auth on partner operations. */
  credential?: { key: string; secret: string } | undefined;
  /** Operator token: sent as Bearer on operator operations. */
  operatorToken?: string | undefined;
  /** Allows credentials over plain http to a non-loopback host. */
  insecure?: boolean;
  /** Operation routes by id (the contract table or the CLI manifest) for `call`. */
  routes?: Readonly<Record<string, Route>>;
  /**
   * Bring your own undici dispatcher (a pool you destroy, a proxy, a MockAgent); otherwise the
   * client keeps its own node:http keep-alive pool.
   */
  dispatcher?: Dispatcher;
  clock?: Clock;
  random?: () => number;
  retry?: Partial<RetryPolicy>;
  /** Pace requests under the credential's rate limit (default on). */
  pace?: boolean;
  onRequest?: (e: RequestLog) => void;
  /** Called before each wait, so a person can be told why nothing happens. */
  onWait?: (w: WaitNotice) => void;
  userAgent?: string;
  /** Idempotency key generator (default crypto.randomUUID). */
  newIdempotencyKey?: () => string;
  /** Per-attempt timeout for headers and body. */
  timeoutMs?: number;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, unknown> | undefined;
  /** Overrides the generated key (writes only). */
  idempotencyKey?: string | undefined;
  /** Which credential to send; by default operator paths get the token and the rest the credential. */
  auth?: Route['auth'];
  /** Extra headers; they win over the client's own (authorization, content-type, idempotency-key…). */
  headers?: Record<string, string>;
  /** A body sent byte for byte instead of `body` as JSON (`partner api --input`); JSON content type unless a header says otherwise. */
  rawBody?: string | Buffer;
}

export interface ApiResponse<T = unknown> {
  status: number;
  request_id: string;
  data: T;
  /** The parsed envelope exactly as received. */
  envelope: unknown;
  headers: Record<string, string>;
  /** `Idempotent-Replayed: true`: the server replayed a stored answer. */
  replayed: boolean;
  /** The key sent, for writes. */
  idempotencyKey?: string;
}

type In<S> = S extends z.ZodType ? z.input<S> : never;
type Out<S> = S extends z.ZodType ? z.output<S> : unknown;
type Field<K extends OperationId, F extends string> =
  Operations[K] extends Record<F, infer S> ? S : undefined;

export interface CallInput<K extends OperationId = OperationId> {
  params?: [In<Field<K, 'params'>>] extends [never]
    ? Record<string, string | number>
    : In<Field<K, 'params'>>;
  query?: [In<Field<K, 'query'>>] extends [never] ? Record<string, unknown> : Partial<In<Field<K, 'query'>>>;
  body?: [In<Field<K, 'body'>>] extends [never] ? unknown : In<Field<K, 'body'>>;
  idempotencyKey?: string;
}
export type CallOutput<K extends OperationId> = Out<Operations[K]['response']>;

export interface Page<T> {
  results: T[];
  page: number;
  size: number;
  total: number;
}

/** The operations whose result is a page (`{results, page, size, total}`): what `paginate` takes. */
export type PaginatedOperationId = {
  [K in OperationId]: CallOutput<K> extends Page<unknown> ? K : never;
}[OperationId];
/** The item of a paginated operation's pages (`Branch` for `listBranches`). */
export type PageItem<K extends PaginatedOperationId> = CallOutput<K> extends Page<infer T> ? T : never;
/** The input of `paginate`/`pages`: the operation's path and query, the page size, a page bound. */
export type PageInput<K extends OperationId = OperationId> = Omit<CallInput<K>, 'body' | 'idempotencyKey'> & {
  size?: number;
  maxPages?: number;
};

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** node:crypto loads on the first write only: reads (most CLI calls) never pay for it. */
function newUuid(): string {
  return process.getBuiltinModule('node:crypto').randomUUID();
}

function fillPath(path: string, params: Record<string, unknown>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined || v === null || v === '')
      throw new ClientConfigError(`missing path parameter ${name}`, 'missing_param');
    return encodeURIComponent(String(v));
  });
}

function headerGetter(
  headers: Record<string, string | string[] | undefined>,
): (name: string) => string | undefined {
  return (name) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
}

function appendQuery(url: URL, query: Record<string, unknown> | undefined): void {
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const x of v) url.searchParams.append(k, String(x));
    else url.searchParams.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
}

/**
 * The typed client of the Partner API (and of the local server's operator API). One keep-alive
 * dispatcher, Basic auth for partner operations, Bearer for operator ones, an Idempotency-Key on
 * every write, bounded retries on 429/502 and pacing under the credential's rate limit.
 */
export class PartnerClient {
  readonly baseUrl: string;
  private readonly opts: ClientOptions;
  private readonly clock: Clock;
  private readonly policy: RetryPolicy;
  private readonly pacer = new Pacer();
  private transport: Transport | undefined;

  constructor(opts: ClientOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new ClientConfigError(`invalid base URL "${opts.baseUrl}"`, 'invalid_base_url');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ClientConfigError(`base URL must be http(s), got "${opts.baseUrl}"`, 'invalid_base_url');
    }
    this.baseUrl = url.href.replace(/\/+$/, '');
    this.opts = opts;
    this.clock = opts.clock ?? realClock;
    this.policy = { ...DEFAULT_RETRY, ...opts.retry };
  }

  private async getTransport(): Promise<Transport> {
    if (!this.transport) {
      const d = this.opts.dispatcher;
      // undici loads only for a caller's dispatcher: importing it costs a CLI command ~25 ms.
      this.transport = d ? (await import('./undici-transport.js')).undiciTransport(d) : new HttpTransport();
    }
    return this.transport;
  }

  /** Calls an operation of the table by id. Resolves to the envelope's `data`. */
  async call<K extends OperationId>(id: K, input?: CallInput<K>): Promise<CallOutput<K>>;
  async call(id: string, input?: CallInput): Promise<unknown>;
  async call(id: string, input: CallInput = {}): Promise<unknown> {
    return (await this.callRaw(id, input)).data;
  }

  /** Like `call` but resolves to the whole response (status, request id, headers, envelope). */
  async callRaw(id: string, input: CallInput = {}): Promise<ApiResponse> {
    const route = this.opts.routes?.[id];
    if (!route) throw new ClientConfigError(`unknown operation "${id}"`, 'unknown_operation');
    const path = fillPath(route.path, (input.params ?? {}) as Record<string, unknown>);
    return this.request(route.method, path, {
      body: input.body,
      query: input.query as Record<string, unknown> | undefined,
      idempotencyKey: input.idempotencyKey,
      auth: route.auth,
    });
  }

  /** Any method and path (`partner api`); throws ApiError for an error envelope. */
  async request<T = unknown>(method: string, path: string, o: RequestOptions = {}): Promise<ApiResponse<T>> {
    const m = method.toUpperCase();
    const url = new URL(this.baseUrl + (path.startsWith('/') ? path : `/${path}`));
    appendQuery(url, o.query);
    const auth = o.auth ?? (url.pathname.startsWith('/v1/operator') ? 'operator' : 'partner');
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.opts.userAgent ?? 'partner-client',
    };
    if (auth === 'partner' && this.opts.credential) {
      const { key, secret } = this.opts.credential;
      headers.authorization = `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
    } else if (auth === 'operator' && this.opts.operatorToken) {
      headers.authorization = `Bearer ${this.opts.operatorToken}`;
    }
    let idempotencyKey: string | undefined;
    if (WRITE.has(m)) {
      idempotencyKey = o.idempotencyKey ?? (this.opts.newIdempotencyKey ?? newUuid)();
      headers['idempotency-key'] = idempotencyKey;
    }
    let body: string | Buffer | undefined;
    if (o.rawBody !== undefined) body = o.rawBody;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    for (const [k, v] of Object.entries(o.headers ?? {})) headers[k.toLowerCase()] = v;
    if (idempotencyKey !== undefined) idempotencyKey = headers['idempotency-key'];
    if (
      headers.authorization &&
      url.protocol === 'http:' &&
      !isLoopbackHost(url.hostname) &&
      !this.opts.insecure
    ) {
      throw new ClientConfigError(
        `refusing to send credentials over plain http to ${url.host}; use https or pass --insecure`,
        'insecure_transport',
      );
    }
    const pace = this.opts.pace !== false && auth === 'partner';

    let waitedMs = 0;
    // Set when the last attempt got a 429 and its Retry-After was waited out: the server promised
    // a token by then, so the retry goes without the pacer's reserve (no second wait).
    let waitedRetryAfter = false;
    for (let attempt = 1; ; attempt++) {
      let pacedMs = 0;
      if (pace) {
        pacedMs = this.pacer.take(this.clock.now(), waitedRetryAfter ? 0 : undefined);
        if (pacedMs > 0) {
          this.opts.onWait?.({
            reason: 'pace',
            ms: pacedMs,
            ...(this.pacer.perMinute ? { limit: this.pacer.perMinute } : {}),
          });
          await this.clock.sleep(pacedMs);
        }
      }
      const started = this.clock.now();
      let res: WireResponse;
      try {
        res = await (await this.getTransport()).send(url, {
          method: m,
          headers,
          body: body ?? null,
          timeoutMs: this.opts.timeoutMs ?? 30_000,
        });
      } catch (err) {
        if (pace) this.pacer.settled();
        const code = (err as { code?: string }).code ?? 'network_error';
        this.opts.onRequest?.({
          method: m,
          url: url.href,
          status: 0,
          ms: this.clock.now() - started,
          request_id: '',
          attempt,
          pacedMs,
        });
        throw new NetworkError(`cannot reach ${url.origin}: ${(err as Error).message || code}`, code, {
          cause: err,
          origin: url.origin,
        });
      }
      const { text } = res;
      const get = headerGetter(res.headers);
      const now = this.clock.now();
      const rl = parseRateLimitHeaders(get);
      if (rl && pace) this.pacer.observe(rl, now);
      if (pace) this.pacer.settled();
      const requestId = get('x-request-id') ?? '';
      let envelope: unknown;
      try {
        envelope = text === '' ? undefined : JSON.parse(text);
      } catch {
        envelope = undefined;
      }
      const env =
        envelope && typeof envelope === 'object' ? (envelope as Record<string, unknown>) : undefined;
      const rid = typeof env?.request_id === 'string' ? env.request_id : requestId;

      const retryAfterMs = parseRetryAfter(get('retry-after'), now);
      const wait =
        res.statusCode >= 400
          ? retryDelay(attempt, res.statusCode, retryAfterMs, this.policy, this.opts.random)
          : undefined;
      this.opts.onRequest?.({
        method: m,
        url: url.href,
        status: res.statusCode,
        ms: now - started,
        request_id: rid,
        attempt,
        ...(pacedMs > 0 ? { pacedMs } : {}),
        ...(wait !== undefined ? { retryInMs: wait } : {}),
      });
      if (wait !== undefined) {
        if (res.statusCode === 429 && pace) this.pacer.exhausted(now, wait);
        waitedRetryAfter = res.statusCode === 429 && retryAfterMs !== undefined;
        this.opts.onWait?.({ reason: 'retry', ms: wait, status: res.statusCode, attempt });
        await this.clock.sleep(wait);
        waitedMs += wait;
        continue;
      }
      const headersOut: Record<string, string> = {};
      for (const k of Object.keys(res.headers)) headersOut[k] = get(k) ?? '';

      if (res.statusCode >= 400 || !env || (env.error && typeof env.error === 'object')) {
        const e = env?.error as { code?: unknown; message?: unknown; details?: unknown } | undefined;
        if (e && typeof e.code === 'string') {
          throw new ApiError({
            code: e.code,
            message: typeof e.message === 'string' ? e.message : e.code,
            status: res.statusCode,
            request_id: rid,
            details: e.details,
            envelope,
            attempts: attempt,
            waitedMs,
            retryAfterMs,
            headers: headersOut,
          });
        }
        throw new ApiError({
          code: res.statusCode >= 400 ? `http_${res.statusCode}` : 'invalid_response',
          message: `${m} ${url.pathname} answered ${res.statusCode} without a JSON envelope${text ? `: ${text.slice(0, 200)}` : ''}`,
          status: res.statusCode,
          request_id: rid,
          envelope,
          attempts: attempt,
          waitedMs,
          retryAfterMs,
          headers: headersOut,
        });
      }
      return {
        status: res.statusCode,
        request_id: rid,
        data: env.data as T,
        envelope,
        headers: headersOut,
        replayed: get('idempotent-replayed') === 'true',
        ...(idempotencyKey ? { idempotencyKey } : {}),
      };
    }
  }

  /**
   * Every item of a paginated operation (`{results, page, size, total}`), fetching pages lazily.
   * Stops at `total`, at an empty page, or after `maxPages`.
   */
  paginate<K extends PaginatedOperationId>(
    id: K,
    input?: PageInput<K>,
  ): AsyncGenerator<PageItem<K>, void, undefined>;
  paginate<T = unknown>(id: string, input?: PageInput): AsyncGenerator<T, void, undefined>;
  async *paginate<T = unknown>(id: string, input: PageInput = {}): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages<T>(id, input)) yield* page.results;
  }

  /** The pages of a paginated operation, in order. */
  pages<K extends PaginatedOperationId>(
    id: K,
    input?: PageInput<K>,
  ): AsyncGenerator<Page<PageItem<K>>, void, undefined>;
  pages<T = unknown>(id: string, input?: PageInput): AsyncGenerator<Page<T>, void, undefined>;
  async *pages<T = unknown>(id: string, input: PageInput = {}): AsyncGenerator<Page<T>, void, undefined> {
    const size = input.size ?? 100;
    const maxPages = input.maxPages ?? 10_000;
    const startPage = Number((input.query as Record<string, unknown> | undefined)?.page ?? 1);
    let seen = 0;
    for (let page = startPage, n = 0; n < maxPages; page++, n++) {
      const data = (await this.call(id, {
        ...(input.params ? { params: input.params } : {}),
        query: { ...(input.query as Record<string, unknown> | undefined), page, size },
      })) as Page<T>;
      if (!data || !Array.isArray(data.results)) {
        throw new ApiError({ code: 'invalid_response', message: `${id} did not return a page`, status: 200 });
      }
      yield data;
      seen += data.results.length;
      if (data.results.length === 0 || seen + (startPage - 1) * size >= data.total) return;
    }
  }

  /** Closes the keep-alive connections (those of its own pool; a dispatcher passed in stays open). */
  async close(): Promise<void> {
    const t = this.transport;
    this.transport = undefined;
    await t?.close();
  }
}

/** Routes for `call` from the contract's operation table (for library users; the CLI uses its manifest). */
export function routesOf(ops: readonly Route[]): Record<string, Route> {
  return Object.fromEntries(
    ops.map((o) => [o.id, { id: o.id, method: o.method, path: o.path, auth: o.auth }]),
  );
}
