// Typed errors of the client. Callers switch on `code` (the API's stable error codes) or on the class.

export interface ErrorEnvelope {
  request_id: string;
  error: { code: string; message: string; details?: unknown };
}

/** The API answered with an error envelope (or with something that is not an envelope at all). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** Normalised code: `FORBIDDEN_SCOPE` (the spec's second spelling) becomes `auth_forbidden`. */
  readonly code: string;
  /** The code exactly as the server sent it. */
  readonly wireCode: string;
  readonly status: number;
  readonly request_id: string;
  readonly details: unknown;
  /** The whole envelope when the body was one, for `partner api`. */
  readonly envelope: unknown;
  /** Requests made for this call, retries included (1 when it was not retried). */
  readonly attempts: number;
  /** Time spent waiting before retries. */
  readonly waitedMs: number;
  /** The last answer's Retry-After, when it had one. */
  readonly retryAfterMs: number | undefined;
  /** The answer's headers (lower-case names), for `partner api -i`. */
  readonly headers: Record<string, string>;

  constructor(init: {
    code: string;
    message: string;
    status: number;
    request_id?: string;
    details?: unknown;
    envelope?: unknown;
    attempts?: number;
    waitedMs?: number;
    retryAfterMs?: number | undefined;
    headers?: Record<string, string>;
  }) {
    super(init.message);
    this.wireCode = init.code;
    this.code = init.code === 'FORBIDDEN_SCOPE' ? 'auth_forbidden' : init.code;
    this.status = init.status;
    this.request_id = init.request_id ?? '';
    this.details = init.details;
    this.envelope = init.envelope;
    this.attempts = init.attempts ?? 1;
    this.waitedMs = init.waitedMs ?? 0;
    this.retryAfterMs = init.retryAfterMs;
    this.headers = init.headers ?? {};
  }

  get isAuth(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

/** The request never got an HTTP answer (refused, reset, timed out, DNS). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly code: string;
  /** The server it tried (`http://127.0.0.1:8787`), when known: says which server to start or check. */
  readonly origin: string | undefined;
  constructor(message: string, code: string, options?: { cause?: unknown; origin?: string }) {
    super(message, options);
    this.code = code;
    this.origin = options?.origin;
  }
}

/** The client refused to send a request as configured (e.g. credentials over plain http to a remote host). */
export class ClientConfigError extends Error {
  override readonly name = 'ClientConfigError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}
