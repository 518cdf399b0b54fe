import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import inject, { type InjectOptions, type Response } from 'light-my-request';
import type { AuthThrottleLimits } from '../domain/auth-throttle.js';
import { type RunningServer, startServer } from '../index.js';
import { errorAnswers } from './envelope.js';
import { HttpApp, type Reply, type Request, type RouteOptions } from './http-app.js';
import { genReqId, requestIdHeader } from './request-id.js';
import type { AppStage } from './stage.js';

// For the stage tests beside each stage (never loaded by the server): a bare app with only the
// stages a test gives (plus request ids and error answers, which every answer needs), driven
// in-process with light-my-request's inject() (Fastify's, on any request listener); and, for
// stages that need them, the real services of a server on a SQLite file in a temp dir (demo
// seed, its credentials), with an injectable clock.

/** A test route's handler: what it returns (not undefined) is the answer, text or JSON. */
type TestHandler = (req: Request, reply: Reply) => unknown;

type TestRoute = Pick<RouteOptions, 'onRequest' | 'onSend'>;

export interface StageApp {
  app: HttpApp;
  get(url: string, h: TestHandler): void;
  get(url: string, o: TestRoute, h: TestHandler): void;
  post(url: string, h: TestHandler): void;
  post(url: string, o: TestRoute, h: TestHandler): void;
  inject(o: InjectOptions): Promise<Response>;
  close(): Promise<void>;
}

export function stageApp(
  stages: readonly AppStage[] = [],
  logErrors: (err: unknown) => void = () => {},
  o: { genReqId?: () => string } = {},
): StageApp {
  const app = new HttpApp({ genReqId: o.genReqId ?? genReqId, logErrors, maxParamLength: 100 });
  for (const stage of [requestIdHeader, ...stages, errorAnswers(logErrors)]) stage(app);
  const route = (method: string) => (url: string, a: TestHandler | TestRoute, b?: TestHandler) => {
    const [options, h] = typeof a === 'function' ? [{}, a] : [a, b!];
    app.route({ method, url, ...options, handler: answering(h) });
  };
  return {
    app,
    get: route('GET'),
    post: route('POST'),
    inject: (opts) => inject(app.handle, opts),
    close: () => app.close(),
  };
}

function answering(h: TestHandler) {
  return async (req: Request, reply: Reply) => {
    const out = await h(req, reply);
    if (reply.sent || out === undefined) return;
    if (typeof out === 'string') reply.send(out);
    else reply.type('application/json; charset=utf-8').send(JSON.stringify(out));
  };
}

export interface RealServices {
  server: RunningServer;
  /** Full-scope credential of demo business 1. */
  cred: { key: string; secret: string };
  /** `Authorization: Basic …` of key and secret. */
  basic(c: { key: string; secret: string }): string;
  /** Calls the operator API in-process. */
  operator(method: 'POST' | 'PUT' | 'GET', url: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

export async function realServices(
  opts: { now?: () => number; authThrottle?: Partial<AuthThrottleLimits> } = {},
): Promise<RealServices> {
  const dataDir = mkdtempSync(join(tmpdir(), 'partner-stage-'));
  const server = await startServer({
    dataDir,
    port: 0,
    seed: 'demo',
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.authThrottle ? { authThrottle: opts.authThrottle } : {}),
    logErrors: () => {},
  });
  const first = server.seeded[0]!;
  return {
    server,
    cred: { key: first.key, secret: first.secret },
    basic: (c) => `Basic ${Buffer.from(`${c.key}:${c.secret}`).toString('base64')}`,
    operator: (method, url, body) =>
      inject(server.app.handle, {
        method,
        url,
        headers: { authorization: `Bearer ${server.operatorToken}` },
        ...(body === undefined ? {} : { payload: body as object }),
      }),
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
