import { createTestDatabase, type TestDatabase } from '../helpers/pg-databases.js';
import { baseEnv, type Instance, killAll, startInstance, stopInstance } from './instances.js';

// Three `partner local start` processes on one fresh PostgreSQL database: one service. Requests
// go round-robin across them (`next()`), or to a chosen instance.

export const SEAL_KEY = Buffer.alloc(32, 42).toString('base64');
export const OPERATOR_TOKEN = 'op_multi_instance_0123456789abcdef';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: { data?: unknown; error?: { code: string; details?: Record<string, unknown> }; request_id?: string };
}

export interface Service {
  db: TestDatabase;
  instances: Instance[];
  urls: string[];
  /** Environment every instance was given (shared configuration). */
  env: NodeJS.ProcessEnv;
  credential: { key: string; secret: string; businessId: number };
  /** Round-robin: the next instance's URL. */
  next(): string;
  partner(
    url: string,
    method: string,
    path: string,
    opts?: { body?: unknown; key?: string; cred?: { key: string; secret: string } },
  ): Promise<Answer>;
  operator(url: string, method: string, path: string, body?: unknown): Promise<Answer>;
  stop(): Promise<void>;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: Answer['json'] = {};
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: left empty, the status tells
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const basic = (c: { key: string; secret: string }) =>
  `Basic ${Buffer.from(`${c.key}:${c.secret}`).toString('base64')}`;

/** Starts three instances on a fresh database; the first seeds the demo data before the others start. */
export async function startService(
  extraEnv: NodeJS.ProcessEnv = {},
  /** Another database than a fresh one of the shared test server (one the test may restart). */
  database?: TestDatabase,
): Promise<Service> {
  const db = database ?? (await createTestDatabase());
  const env = baseEnv({
    PARTNER_DATABASE_URL: db.url,
    PARTNER_SEAL_KEY: SEAL_KEY,
    PARTNER_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PARTNER_RETRY_SCHEDULE: '1s,1s,1s',
    ...extraEnv,
  });
  const instances: Instance[] = [];
  try {
    instances.push(await startInstance(['--seed', 'demo'], env));
    instances.push(...(await Promise.all([startInstance([], env), startInstance([], env)])));
  } catch (err) {
    await Promise.all(instances.map(stopInstance));
    await db.drop();
    throw err;
  }
  const m = /business (\d+): (\S+?):(\S+)/.exec(instances[0]!.stdout());
  if (!m) throw new Error(`no seeded credential in:\n${instances[0]!.stdout()}`);
  const credential = { businessId: Number(m[1]), key: m[2]!, secret: m[3]! };
  const urls = instances.map((i) => i.url);
  let rr = 0;
  const service: Service = {
    db,
    instances,
    urls,
    env,
    credential,
    next: () => urls[rr++ % urls.length]!,
    async partner(url, method, path, opts = {}) {
      const headers: Record<string, string> = { authorization: basic(opts.cred ?? credential) };
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      if (opts.key !== undefined) headers['idempotency-key'] = opts.key;
      return answer(
        await fetch(url + path, {
          method,
          headers,
          ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
          signal: AbortSignal.timeout(15_000),
        }),
      );
    },
    async operator(url, method, path, body) {
      return answer(
        await fetch(url + path, {
          method,
          headers: {
            authorization: `Bearer ${OPERATOR_TOKEN}`,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(15_000),
        }),
      );
    },
    async stop() {
      await Promise.all(instances.map(stopInstance));
      killAll();
      await db.drop();
    },
  };
  return service;
}
