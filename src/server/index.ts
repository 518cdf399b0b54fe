import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HANDLERS } from './handlers/index.js';
import type { AuthThrottleLimits } from './domain/auth-throttle.js';
import { type App, type AppServices, buildApp, type HttpTimeouts } from './http/app.js';
import { CredentialAuth } from './http/auth.js';
import { RequestLog, type RequestLogLimits } from './services/request-log.js';
import { Dispatcher } from './delivery/dispatcher.js';
import { Sealer } from './security/sealed.js';
import { CREDENTIAL_SECRETS, newToken, SecretHasher } from './security/secrets.js';
import { checkSealKey } from './security/seal-check.js';
import { requireSharedSecrets } from './config.js';
import { type SeededCredential, seedDemo } from './seed/demo.js';
import { MenuRenderCache } from './services/menus/publish.js';
import { SharedCredentialAuth } from './shared-auth.js';
import { isPostgresUrl, openStore } from './store/open.js';
import type { Db } from './store/sqlite/db.js';

/** docs/webhooks.md: 8 attempts in all, the first at once. */
export const DEFAULT_RETRY_SCHEDULE = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000];

export type { SeededCredential } from './seed/demo.js';

export interface ServerOptions {
  dataDir: string;
  /** `postgres://…`: the shared PostgreSQL backend (N instances, one service); default SQLite in dataDir. */
  database?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  seed?: 'demo' | 'none';
  durability?: 'normal' | 'full';
  /** Injectable clock (ms since epoch) for tests that move time. */
  now?: () => number;
  version?: string;
  /** Webhook retry delays in ms (docs/webhooks.md); the default is 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h. */
  retrySchedule?: number[];
  logErrors?: (err: unknown) => void;
  /** Bounds on slow clients (defaults: headers 10 s, whole request 30 s, idle keep-alive 30 s). */
  timeouts?: Partial<HttpTimeouts>;
  /** Failed-authentication budgets and the cap on concurrent secret hashing. */
  authThrottle?: Partial<AuthThrottleLimits>;
  /** A webhook attempt fails unless the receiver answers 2xx within this (spec: 10 s). */
  deliveryTimeoutMs?: number;
  /** Longest sleep of the webhook dispatcher between looks when nothing wakes it (default 5 s). */
  deliveryPollMs?: number;
  /** A 2xx within this long widens a receiver's window by one slot (default 250 ms). */
  deliveryFastMs?: number;
  /** Bounds of the in-memory request log (default 5,000 requests; docs/api.md, "Request log"). */
  requestLog?: Partial<RequestLogLimits>;
  /**
   * Shared configuration (config.ts, docs/deploy.md): the same for every instance of a service.
   * Without them SQLite keeps its own in the data dir (secret.key, local.json); PostgreSQL
   * refuses to start.
   */
  sealKey?: Buffer;
  operatorToken?: string;
}

export interface RunningServer {
  baseUrl: string;
  port: number;
  dataDir: string;
  operatorToken: string;
  /** Credentials issued by this start's demo seed (their secrets exist only here), else empty. */
  seeded: SeededCredential[];
  /**
   * `db`: the SQLite connection itself, for tests and tools; handlers never see it. With
   * PostgreSQL there is none: reading it throws.
   */
  services: AppServices & { db: Db };
  app: App;
  hasCredential(key: string): Promise<boolean>;
  /** Graceful: stops accepting, lets in-flight requests finish, closes the database. */
  close(): Promise<void>;
}

export interface LocalJson {
  base_url: string;
  operator_token: string;
}

/** Writes a file readable by its owner only, creating it that way so it is never briefly world-readable. */
function writePrivate(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}

function readLocalJson(file: string): Partial<LocalJson> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalJson>;
  } catch {
    return {};
  }
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  if (opts.database && isPostgresUrl(opts.database)) requireSharedSecrets(opts);
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  chmodSync(opts.dataDir, 0o700);
  const localFile = join(opts.dataDir, 'local.json');
  const previous = existsSync(localFile) ? readLocalJson(localFile) : {};
  const now = opts.now ?? Date.now;
  const logErrors =
    opts.logErrors ??
    ((err: unknown) => process.stderr.write(`partner server: ${String((err as Error)?.stack ?? err)}\n`));
  const opened = await openStore({
    database: opts.database,
    dataDir: opts.dataDir,
    durability: opts.durability ?? 'normal',
    logErrors,
  });
  const store = opened.store;
  const sealer = opts.sealKey ? new Sealer(opts.sealKey) : Sealer.fromFile(join(opts.dataDir, 'secret.key'));
  const secrets = new SecretHasher(sealer.derive(CREDENTIAL_SECRETS));
  const services: AppServices & { db: Db } = {
    get db(): Db {
      if (!opened.sqlite)
        throw new Error('services.db is the SQLite connection: this server runs on PostgreSQL');
      return opened.sqlite;
    },
    store,
    now,
    // On a shared store another instance may change a credential: each request checks its row.
    auth:
      opened.backend === 'postgres'
        ? new SharedCredentialAuth(
            store,
            secrets,
            (key) => opened.peek((tx) => tx.credentials.get(key)),
            opened.admitCredential!,
            now,
            opts.authThrottle,
          )
        : new CredentialAuth(store, secrets, now, opts.authThrottle),
    // Given (shared by all instances), else kept across restarts so `partner operator …` keeps
    // working against the same data dir.
    operatorToken: opts.operatorToken ?? previous.operator_token ?? newToken('op_', 24),
    version: opts.version ?? '0.0.0',
    retrySchedule: opts.retrySchedule ?? DEFAULT_RETRY_SCHEDULE,
    sealer,
    secrets,
    menuRenders: new MenuRenderCache(),
    requestLog: new RequestLog(opts.requestLog),
  };
  // A failed group commit takes back what it wrote: renderings built from it go too.
  opened.onRollback(() => services.menuRenders.clear());
  await checkSealKey(
    store,
    services.sealer,
    opts.sealKey ? 'the seal key given' : join(opts.dataDir, 'secret.key'),
  ).catch(async (err) => {
    await store.close();
    throw err;
  });
  const purgeAnswers = () => store.write((tx) => tx.idempotency.purge(now()));
  await purgeAnswers();
  // Stored answers are kept 24 h; drop expired ones hourly so a long-running server stays small.
  const purge = setInterval(() => void purgeAnswers().catch(logErrors), 3_600_000);
  purge.unref();

  let seeded: SeededCredential[] = [];
  if (opts.seed === 'demo' && !(await store.read((tx) => tx.businesses.any()))) {
    seeded = await seedDemo(services);
  }

  const dispatcher = new Dispatcher({
    store,
    sealer: services.sealer,
    now,
    retrySchedule: services.retrySchedule,
    logErrors,
    ...(opts.deliveryTimeoutMs ? { timeoutMs: opts.deliveryTimeoutMs } : {}),
    ...(opts.deliveryPollMs ? { idleMs: opts.deliveryPollMs } : {}),
    ...(opts.deliveryFastMs ? { fastMs: opts.deliveryFastMs } : {}),
  });
  services.dispatcher = dispatcher;
  const app = buildApp(services, HANDLERS, {
    logErrors,
    ...(opts.timeouts ? { timeouts: opts.timeouts } : {}),
  });
  const host = opts.host ?? '127.0.0.1';
  const { port } = await app.listen({ host, port: opts.port ?? 8787 });
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  writePrivate(
    localFile,
    `${JSON.stringify({ base_url: baseUrl, operator_token: services.operatorToken }, null, 2)}\n`,
  );
  // Pending deliveries of an earlier run (even one killed with -9) resume from here.
  await dispatcher.start();

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    port,
    dataDir: opts.dataDir,
    operatorToken: services.operatorToken,
    seeded,
    services,
    app,
    hasCredential: async (key) => (await store.read((tx) => tx.credentials.get(key))) !== undefined,
    close() {
      clearInterval(purge);
      closing ??= app
        .close()
        .then(() => dispatcher.stop())
        .then(() => store.close());
      return closing;
    },
  };
}
