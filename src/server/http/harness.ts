import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import type { LightMyRequestResponse as Response } from 'fastify';
import type { AuthThrottleLimits } from '../domain/auth-throttle.js';
import { type RunningServer, startServer } from '../index.js';
import { errorAnswers } from './envelope.js';
import { genReqId, requestIdHeader } from './request-id.js';
import type { AppStage } from './stage.js';

// For the stage tests beside each stage (never loaded by the server): a bare Fastify app with
// only the stages a test gives (plus request ids and error answers, which every answer needs),
// driven in-process with inject(); and, for stages that need them, the real services of a server
// on a SQLite file in a temp dir (demo seed, its credentials), with an injectable clock.

export function stageApp(stages: readonly AppStage[] = [], logErrors: (err: unknown) => void = () => {}) {
  const app = Fastify({ genReqId });
  for (const stage of [requestIdHeader, ...stages, errorAnswers(logErrors)]) stage(app);
  return app;
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
      server.app.inject({
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
