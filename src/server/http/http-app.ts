import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { RateDecision } from '../domain/rate-limit.js';
import type { StoredResponse } from '../domain/idempotency.js';
import { ApiError } from '../errors.js';
import type { Begun } from '../store/idempotency-repo.js';
import type { Admitted, AuthedCredential } from './auth.js';

// The ground the stages stand on: Node's HTTP server, find-my-way's router (the one Fastify
// uses) and the few points a stage attaches to. Ours rather than Fastify's because the same
// stages cost less on it, measured A/B (docs/development.md, "Why node:http"): what a request
// meets here is one object per side and no hook runner, and its flow reads top to bottom in
// `handle`:
//   onRequest hooks → route → its steps → its body → its handler → its onSend → write → onResponse.

/** A request as the stages see it: Node's message, its route's parts, what stages found. */
export class Request {
  params: Record<string, string | undefined> = NO_PARAMS;
  query: Record<string, unknown> = NO_PARAMS;
  /** The parsed JSON body (a write's), or undefined when none was sent. */
  body: unknown = undefined;
  credential?: AuthedCredential;
  /** The credential's rate decision for this request (authenticate → rate-limit). */
  rate?: RateDecision;
  /** A read going ahead of its admission (authenticate → read-ahead → unit of work). */
  ahead?: { cred: AuthedCredential; admitted: Promise<Admitted>; read?: Promise<unknown> };
  idemKey?: string;
  /** What the look at the Idempotency-Key found (authenticate.ts or idempotency-key.ts). */
  idemBegun?: Begun;
  idemStored?: { answer: StoredResponse; at: number };
  /** The claim on the Idempotency-Key, while this request holds one. */
  idemClaim?: { release(): Promise<void>; unit?: Promise<unknown>; recheck: boolean };
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;

  constructor(
    readonly raw: IncomingMessage,
    readonly id: string,
  ) {
    this.method = raw.method!;
    this.url = raw.url!;
    this.headers = raw.headers;
  }

  get ip(): string {
    return this.raw.socket.remoteAddress ?? '';
  }
}

const NO_PARAMS: Record<string, never> = Object.freeze({}) as Record<string, never>;

/** What an answer is written from: text, or pieces (text or buffers) written one after the other, never joined. */
export type Payload = string | readonly (string | Buffer)[];

/** The answer being made: status and headers until `send` writes them with the payload. */
export class Reply {
  statusCode = 200;
  /** Whether an answer was given (it may still be on its way, after a route's onSend). */
  sent = false;
  private readonly head: Record<string, string | number | string[]>;
  private readonly startedAt = performance.now();

  constructor(
    readonly raw: ServerResponse,
    readonly request: Request,
    private readonly app: HttpApp,
    private readonly route: Route | undefined,
  ) {
    this.head = {};
  }

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  header(name: string, value: string | number | string[]): this {
    this.head[name] = value;
    return this;
  }

  headers(values: Record<string, string | number | string[]>): this {
    for (const name in values) this.head[name] = values[name]!;
    return this;
  }

  type(contentType: string): this {
    this.head['content-type'] = contentType;
    return this;
  }

  getHeaders(): Readonly<Record<string, string | number | string[]>> {
    return this.head;
  }

  /** Milliseconds since the request arrived. */
  get elapsedTime(): number {
    return performance.now() - this.startedAt;
  }

  /**
   * Answers: a route's onSend first (it may wait: an Idempotency-Key given back before an error
   * answer goes out), then the bytes, then the onResponse hooks.
   */
  send(payload: Payload): void {
    if (this.sent) throw new Error('an answer was already sent');
    this.sent = true;
    const before = this.route?.onSend?.(this.request, this);
    if (before)
      before.then(
        () => this.write(payload),
        (err: unknown) => {
          this.app.logErrors(err);
          this.write(payload);
        },
      );
    else this.write(payload);
  }

  private write(payload: Payload): void {
    const { app, raw, request } = this;
    const head = this.head;
    head['content-type'] ??= 'text/plain; charset=utf-8';
    // Stopping: a request that still came on a connection it had is answered, and the connection
    // closed after it.
    if (app.closing) head.connection = 'close';
    if (typeof payload === 'string') {
      head['content-length'] = Buffer.byteLength(payload);
      raw.writeHead(this.statusCode, head);
      raw.end(payload);
    } else {
      let length = 0;
      for (const piece of payload)
        length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
      head['content-length'] = length;
      raw.writeHead(this.statusCode, head);
      // One write to the kernel for all pieces (and with node-server.ts, one per turn).
      raw.cork();
      const last = payload.length - 1;
      for (let i = 0; i < last; i++) raw.write(payload[i]);
      raw.end(payload[last]);
    }
    for (const hook of app.onResponse) hook(request, this, payload);
  }
}

/** A step of a route: synchronous where it can be (no promise for a step that needs none). */
export type RequestStage = (req: Request, reply: Reply) => void | Promise<void>;
type Handler = (req: Request, reply: Reply) => unknown;

export interface RouteOptions {
  method: string;
  url: string;
  /** Run in order before the body is read; a step answers by throwing an ApiError. */
  onRequest?: RequestStage | undefined;
  /** Run before this route's answer is written (may delay it). */
  onSend?: ((req: Request, reply: Reply) => Promise<void> | undefined) | undefined;
  handler: Handler;
}

interface Route extends RouteOptions {
  /** Whether the method carries a body to read (not GET or HEAD). */
  reads: boolean;
}

export interface AppOptions {
  genReqId: () => string;
  logErrors: (err: unknown) => void;
  /** Longer path parameters do not match (find-my-way's bound). */
  maxParamLength: number;
}

/** An error answer: a stage's ApiError, or anything else (then internal_error, logged). */
export type ErrorAnswer = (err: unknown, req: Request, reply: Reply) => void;

export class HttpApp {
  /** Before routing: a hook answers (reply.send) to end the request there. */
  readonly onRequest: ((req: Request, reply: Reply) => void)[] = [];
  /** After the answer was written, with what was written. */
  readonly onResponse: ((req: Request, reply: Reply, payload: Payload) => void)[] = [];
  /** When the app starts closing, before the server stops listening. */
  readonly onClose: (() => void)[] = [];
  /** Reads a write's body (decoding.ts); without one, bodies are not read. */
  bodyReader: ((req: Request) => Promise<unknown>) | undefined;
  errorAnswer: ErrorAnswer = (err, _req, reply) => {
    this.logErrors(err);
    reply.code(500).send('internal error');
  };
  notFound: (req: Request, reply: Reply) => void = (_req, reply) => reply.code(404).send('not found');
  readonly logErrors: (err: unknown) => void;
  /** Set by close(): every answer from then on closes its connection. */
  closing = false;
  private readonly genReqId: () => string;
  private readonly router;
  private server: Server | undefined;

  constructor(o: AppOptions) {
    this.genReqId = o.genReqId;
    this.logErrors = o.logErrors;
    this.router = FindMyWay({
      ignoreTrailingSlash: true,
      maxParamLength: o.maxParamLength,
      onBadUrl: badUrl,
      // Unused: a route is found with find(), never looked up with its handler.
      defaultRoute: () => undefined,
    });
  }

  route(o: RouteOptions): void {
    const route: Route = { ...o, reads: o.method !== 'GET' && o.method !== 'HEAD' };
    const methods = (o.method === 'GET' ? ['GET', 'HEAD'] : [o.method]) as HTTPMethod[];
    this.router.on(methods, o.url, routeMarker, route);
  }

  /** Node's request listener: the whole life of one request. */
  readonly handle = (raw: IncomingMessage, res: ServerResponse): void => {
    const req = new Request(raw, this.genReqId());
    const found = this.router.find(req.method as HTTPMethod, req.url);
    const route = found?.handler === routeMarker ? (found.store as Route) : undefined;
    const reply = new Reply(res, req, this, route);
    try {
      for (const hook of this.onRequest) {
        hook(req, reply);
        if (reply.sent) return;
      }
      if (found === null) {
        this.notFound(req, reply);
        return;
      }
      if (route === undefined) throw badUrlError();
      req.params = found.params;
      req.query = found.searchParams;
      this.run(route, req, reply).catch((err: unknown) => this.fail(err, req, reply));
    } catch (err) {
      this.fail(err, req, reply);
    }
  };

  private async run(route: Route, req: Request, reply: Reply): Promise<void> {
    if (route.onRequest) {
      const pending = route.onRequest(req, reply);
      if (pending) await pending;
    }
    if (route.reads && this.bodyReader) req.body = await this.bodyReader(req);
    await route.handler(req, reply);
  }

  private fail(err: unknown, req: Request, reply: Reply): void {
    // An answer is on its way already: nothing more to say to the client.
    if (reply.sent) {
      this.logErrors(err);
      return;
    }
    try {
      this.errorAnswer(err, req, reply);
    } catch (again) {
      this.logErrors(again);
      if (!reply.raw.headersSent) reply.raw.destroy();
    }
  }

  /** Listens on `server`, whose requests go to `handle`. */
  listen(server: Server, o: { host: string; port: number }): Promise<void> {
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.port, o.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  }

  /**
   * Stops taking connections and resolves once every connection has ended: idle ones are closed
   * now, a busy one after its answer (the answers in flight are given in full).
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const hook of this.onClose) hook();
    const server = this.server;
    if (!server?.listening) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }
}

/** Stands for every route in the router, whose own object is the route's store. */
function routeMarker(): void {}

/** find-my-way's answer to a path it cannot decode: a handler that is not routeMarker. */
function badUrl(): void {}

function badUrlError(): ApiError {
  return new ApiError('request_invalid', 'the URL is not valid (a bad percent-encoding?)', [
    { path: ['url'], message: 'not a valid URL' },
  ]);
}
