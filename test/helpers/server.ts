import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { type RunningServer, type ServerOptions, startServer } from '../../src/server/index.js';
import { openClient } from '../../src/server/store/postgres/pool.js';
import { createTestDatabase, type TestDatabase, testBackend } from './pg-databases.js';

/** A response envelope as tests read it. */
export interface Envelope {
  request_id: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests index into payloads of every shape
  data?: any;
  error?: { code: string; message: string; details?: unknown };
}

export interface TestServer {
  baseUrl: string;
  operatorToken: string;
  dataDir: string;
  /** Which backend it runs on (`PARTNER_TEST_BACKEND`, set per vitest project). */
  backend: 'sqlite' | 'postgres';
  /** Its PostgreSQL database (postgres backend only). */
  databaseUrl?: string;
  /** Full-scope credential of demo business 1 (with seed 'demo'). */
  credential: { key: string; secret: string; businessId: number };
  /** Full-scope credential of demo business 2 (with seed 'demo'), for tenancy tests. */
  other: { key: string; secret: string; businessId: number };
  server: RunningServer;
  issueCredential(input: {
    businessId: number;
    scopes: string[];
    rateLimit?: number;
  }): Promise<{ key: string; secret: string }>;
  /**
   * Rows of a query on the server's own database, on either backend (`?` placeholders; give
   * computed columns a name): for tests that look at what a request left behind. Values come
   * back as the server's repositories see them (ids and counts as numbers, instants as ISO text,
   * json as its text); booleans are SQLite's 0/1 or PostgreSQL's false/true.
   */
  rows<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** Runs statements on the server's own database (test set-up such as failure triggers). */
  exec(sql: string): Promise<void>;
  /** Calls the operator API. */
  operator(method: string, path: string, body?: unknown): Promise<{ status: number; body: Envelope }>;
  close(): Promise<void>;
}

/**
 * Databases of data dirs a test gave: starting again on the same dir is a restart, and on
 * PostgreSQL a restart finds the same database (dropped with the cluster, or at teardown).
 */
const databaseOfDir = new Map<string, string>();

/**
 * Starts the real server (node:http + SQLite file) on 127.0.0.1 and a free port in a fresh temp
 * dir; under `PARTNER_TEST_BACKEND=postgres` (the `postgres` vitest project) on a fresh
 * PostgreSQL database instead, copied from the migrated template. `now` injects a clock for tests
 * that move time. `database` reuses a database (a restart); it is then not dropped on close.
 */
export async function startTestServer(
  opts: {
    seed?: 'demo' | 'none';
    rateLimit?: number;
    now?: () => number;
    dataDir?: string;
    retrySchedule?: number[];
    /** Receives what the server would log as an internal error (default: stderr). */
    logErrors?: (err: unknown) => void;
    timeouts?: ServerOptions['timeouts'];
    authThrottle?: ServerOptions['authThrottle'];
    deliveryTimeoutMs?: number;
    deliveryFastMs?: number;
    requestLog?: ServerOptions['requestLog'];
    database?: string;
  } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'partner-test-'));
  const backend = testBackend();
  let fresh: TestDatabase | undefined;
  let database = opts.database ?? (opts.dataDir === undefined ? undefined : databaseOfDir.get(opts.dataDir));
  if (backend === 'postgres' && database === undefined) {
    const made = await createTestDatabase();
    database = made.url;
    if (opts.dataDir === undefined) fresh = made;
    else databaseOfDir.set(opts.dataDir, made.url);
  }
  let server: RunningServer;
  try {
    server = await startServer({
      dataDir,
      // PostgreSQL instances are given their shared secrets (they refuse to start without).
      ...(database === undefined
        ? {}
        : { database, sealKey: Buffer.alloc(32, 3), operatorToken: 'op_test_0123456789abcdefghijk' }),
      port: 0,
      seed: opts.seed ?? 'demo',
      version: '0.0.0-test',
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.retrySchedule ? { retrySchedule: opts.retrySchedule } : {}),
      ...(opts.logErrors ? { logErrors: opts.logErrors } : {}),
      ...(opts.timeouts ? { timeouts: opts.timeouts } : {}),
      ...(opts.authThrottle ? { authThrottle: opts.authThrottle } : {}),
      ...(opts.deliveryTimeoutMs ? { deliveryTimeoutMs: opts.deliveryTimeoutMs } : {}),
      ...(opts.deliveryFastMs ? { deliveryFastMs: opts.deliveryFastMs } : {}),
      ...(opts.requestLog ? { requestLog: opts.requestLog } : {}),
    });
  } catch (err) {
    await fresh?.drop();
    throw err;
  }
  const operator = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${server.operatorToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Envelope };
  };
  const seeded = server.seeded.map((c) => ({ key: c.key, secret: c.secret, businessId: c.business_id }));
  if (opts.rateLimit !== undefined) {
    for (const c of seeded)
      await operator('PUT', `/v1/operator/credentials/${c.key}/rate-limit`, { rate_limit: opts.rateLimit });
  }
  const none = { key: '', secret: '', businessId: 0 };
  let client: pg.Client | undefined;
  const pgClient = async () => {
    if (!client) {
      client = openClient(database!);
      await client.connect();
    }
    return client;
  };
  return {
    baseUrl: server.baseUrl,
    operatorToken: server.operatorToken,
    dataDir,
    backend,
    ...(database === undefined ? {} : { databaseUrl: database }),
    credential: seeded[0] ?? none,
    other: seeded[1] ?? none,
    server,
    operator,
    async rows<T>(sql: string, ...params: unknown[]): Promise<T[]> {
      if (backend === 'sqlite') return server.services.db.prepare(sql).all(...params) as T[];
      let n = 0;
      const text = sql.replace(/\?/g, () => `$${++n}`);
      return (await (await pgClient()).query(text, params)).rows as T[];
    },
    async exec(sql: string): Promise<void> {
      if (backend === 'sqlite') server.services.db.exec(sql);
      else await (await pgClient()).query(sql);
    },
    async issueCredential(input) {
      const r = await operator('POST', '/v1/operator/credentials', {
        business_id: input.businessId,
        scopes: input.scopes,
        ...(input.rateLimit === undefined ? {} : { rate_limit: input.rateLimit }),
      });
      if (r.status !== 201) throw new Error(`issueCredential: ${r.status} ${JSON.stringify(r.body)}`);
      return { key: r.body.data.key, secret: r.body.data.secret };
    },
    async close() {
      await client?.end();
      await server.close();
      await fresh?.drop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function basic(c: { key: string; secret: string }): string {
  return `Basic ${Buffer.from(`${c.key}:${c.secret}`).toString('base64')}`;
}

export interface CallOptions {
  cred?: { key: string; secret: string } | null;
  body?: unknown;
  /** Idempotency-Key; writes get a fresh one unless given (null sends none). */
  key?: string | null;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  body: Envelope;
}

let keySeq = 0;

/** One HTTP call to the partner API with the test server's credential by default. */
export async function call(
  s: TestServer,
  method: string,
  path: string,
  o: CallOptions = {},
): Promise<CallResult> {
  const cred = o.cred === undefined ? s.credential : o.cred;
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (cred) headers.authorization = basic(cred);
  if (method !== 'GET' && o.key !== null)
    headers['idempotency-key'] = o.key ?? `test-${process.pid}-${++keySeq}-${Date.now()}`;
  if (o.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(s.baseUrl + path, {
    method,
    headers,
    ...(o.body === undefined ? {} : { body: typeof o.body === 'string' ? o.body : JSON.stringify(o.body) }),
  });
  const text = await res.text();
  let body: Envelope;
  try {
    body = JSON.parse(text) as Envelope;
  } catch {
    body = { request_id: '', error: { code: 'not_json', message: text } };
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** Asserts the error envelope shape and returns its code. */
export function errorCode(r: CallResult): string | undefined {
  return r.body.error?.code;
}
