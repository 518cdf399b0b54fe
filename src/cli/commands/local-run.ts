import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import type { RunningServer } from '../../server/index.js';
import { UsageError } from '../errors.js';
import type { LocalStartOptions } from './local.js';
import { defaultDataDir } from '../paths.js';
import { lockDataDir } from './data-dir-lock.js';
import { untilSignal } from '../io.js';
import { openProfiles } from '../profiles.js';

/** What `local start` needs of the CLI's IO (structurally a subset of the command Io). */
interface LocalIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: NodeJS.ProcessEnv;
  configDir?: string;
  /** Resolves when the process is asked to stop; defaults to SIGINT/SIGTERM. */
  untilStopped?: () => Promise<string>;
}

declare const __PARTNER_VERSION__: string | undefined;

/**
 * How to type the CLI in another terminal: `partner` when the first `partner` on PATH is this very
 * script (a global install, `npm link`), else `npx partner` (a clone: `npm start`, `node bin/…`).
 */
function cliCommand(env: NodeJS.ProcessEnv, script: string | undefined): string {
  let self: string;
  try {
    self = realpathSync(script ?? '');
  } catch {
    return 'npx partner';
  }
  const names = process.platform === 'win32' ? ['partner.cmd', 'partner.exe', 'partner'] : ['partner'];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of names) {
      let found: string;
      try {
        found = realpathSync(join(dir, name));
      } catch {
        continue;
      }
      return found === self ? 'partner' : 'npx partner';
    }
  }
  return 'npx partner';
}

type Profiles = ReturnType<typeof openProfiles>;

/** The data dir as its real path (the same dir named two ways is one owner). */
function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

const LOCAL_NAME = /^local(-\d+)?$/;

/** The `local`/`local-N` profile saved by the server of this data dir, if any. */
function ownedProfile(profiles: Profiles, dirKey: string, env: NodeJS.ProcessEnv) {
  const mine = profiles
    .list()
    .filter((p) => LOCAL_NAME.test(p.name) && p.local_data_dir === dirKey)
    .sort((a, b) => a.name.length - b.name.length || a.name.localeCompare(b.name));
  if (mine[0]) return mine[0];
  // Saved before profiles recorded their data dir (or added by hand as `local`): the default
  // data dir's, as `npm start` has always made it.
  const legacy = profiles.get('local');
  return legacy && legacy.local_data_dir === undefined && dirKey === realDir(defaultDataDir(env))
    ? legacy
    : undefined;
}

/** Without a recorded data dir, `local` is this server's when its credential is (checked by the caller). */
function legacyLocal(profiles: Profiles) {
  const local = profiles.get('local');
  return local && local.local_data_dir === undefined ? local : undefined;
}

/** `local` when free, else the first free `local-N` (N ≥ 2). */
function freeLocalName(profiles: Profiles): string {
  if (!profiles.get('local')) return 'local';
  for (let n = 2; ; n++) if (!profiles.get(`local-${n}`)) return `local-${n}`;
}

/**
 * `partner local start`: runs the API server in the foreground until SIGINT/SIGTERM. Bad input,
 * a data dir another server uses and a port in use are usage errors (exit 2, printed by the CLI
 * like every other error).
 */
export async function runLocalStart(
  opts: LocalStartOptions,
  io: LocalIo,
  insecure: boolean,
): Promise<number> {
  // Shared configuration (the environment and secret files every instance is given) is read and
  // checked before anything is opened: a mistake is a usage error naming the variable or flag.
  const { readSharedConfig } = await import('../../server/config.js');
  let shared: Awaited<ReturnType<typeof readSharedConfig>>;
  let retrySchedule: number[] | undefined;
  try {
    shared = readSharedConfig(io.env, {
      sealKeyFile: opts.sealKeyFile,
      operatorTokenFile: opts.operatorTokenFile,
    });
    retrySchedule = opts.retrySchedule ?? shared.retrySchedule;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const database = opts.database ?? (io.env.PARTNER_DATABASE_URL || undefined);
  if (database !== undefined && !/^postgres(ql)?:\/\//i.test(database))
    throw new UsageError(
      `${opts.database === undefined ? 'PARTNER_DATABASE_URL' : '--database'} must be a postgres:// or postgresql:// URL`,
    );
  // --open implies --inspect.
  const wantInspect = opts.inspect || opts.open;
  const dataDir = opts.data ?? defaultDataDir(io.env);
  // Before anything is opened or written: a second server on these files would rewrite
  // local.json and the `local` profile under the first one's feet.
  // The first directory this start created (undefined when it was there): a start that fails
  // removes it again, so a failed `--data NEWDIR` leaves nothing behind.
  const created = mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const locked = await lockDataDir(dataDir);
  if (!locked.ok) {
    const { pid, url } = locked.heldBy;
    throw new UsageError(
      `${url ? `already served at ${url}` : 'already being started'} (pid ${pid}): another \`partner local start\` uses ${dataDir}; use that one, stop it, or pass --data DIR for a second server`,
    );
  }
  const lock = locked.lock;
  if (lock.recoveredFrom !== undefined)
    io.stderr.write(`partner: took over the lock of a server that is gone (pid ${lock.recoveredFrom})\n`);
  // Listening for SIGINT/SIGTERM before the server accepts its first request: a signal during
  // the work after listen (on PostgreSQL, tens of ms of queries) used to kill the process by its
  // default action, leaving server.lock behind. One that comes early stops the server once started.
  const unstarted = new AbortController();
  const stopRequested = io.untilStopped ? io.untilStopped() : untilSignal(unstarted.signal);
  let server: RunningServer;
  try {
    const { startServer } = await import('../../server/index.js');
    server = await startServer({
      dataDir,
      ...(database === undefined ? {} : { database }),
      host: opts.host ?? '127.0.0.1',
      port: opts.port ?? 8787,
      seed: opts.seed ?? 'none',
      durability: opts.durability ?? 'normal',
      version: typeof __PARTNER_VERSION__ === 'string' ? __PARTNER_VERSION__ : '0.0.0',
      ...(retrySchedule ? { retrySchedule } : {}),
      ...(shared.deliveryPollMs ? { deliveryPollMs: shared.deliveryPollMs } : {}),
      ...(shared.sealKey ? { sealKey: shared.sealKey } : {}),
      ...(shared.operatorToken ? { operatorToken: shared.operatorToken } : {}),
    });
  } catch (err) {
    unstarted.abort();
    lock.release();
    if (created !== undefined) rmSync(created, { recursive: true, force: true });
    // By name: the bundle may hold the server's copy of the class apart from this one.
    if ((err as Error).name === 'ConfigError') throw new UsageError((err as Error).message);
    const e = err as NodeJS.ErrnoException;
    // better-sqlite3 is an optional dependency (docs/library.md): absent after
    // `npm install --omit=optional`, or when its native build failed.
    if (e.code === 'MODULE_NOT_FOUND' && /better-sqlite3/.test(e.message))
      throw new Error(
        'the local server needs better-sqlite3, an optional dependency that is not installed (npm install --omit=optional, or its native build failed); install it with `npm install better-sqlite3` next to partner',
      );
    if (e.code === 'EADDRINUSE')
      throw new UsageError(
        `port ${opts.port ?? 8787} on ${opts.host ?? '127.0.0.1'} is in use; pass --port N (0 picks a free one)`,
      );
    throw new Error(`could not start the local server: ${e.message}`);
  }
  lock.setUrl(server.baseUrl);

  const profiles = openProfiles({ ...(io.configDir ? { configDir: io.configDir } : {}), env: io.env });
  const out: string[] = [`partner local server listening on ${server.baseUrl}`, `  data:     ${dataDir}`];
  // Its password is never printed.
  if (database) out.push(`  database: ${database.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@')}`);
  const [first, ...others] = server.seeded;
  const dirKey = realDir(dataDir);
  // The profile this data dir's server saved (and alone refreshes): `local`, or `local-N` when
  // `local` belongs to another server's data dir.
  const owned = ownedProfile(profiles, dirKey, io.env);
  let profileName: string | undefined = owned?.name;
  if (first) {
    const name = owned?.name ?? freeLocalName(profiles);
    profileName = name;
    profiles.save(
      { name, base_url: server.baseUrl, key: first.key, secret: first.secret, local_data_dir: dirKey },
      { makeDefault: profiles.defaultName() === undefined || profiles.defaultName() === name },
    );
    out.push(
      `  seeded:   demo data for ${server.seeded.map((c) => `"${c.business_title}" (business ${c.business_id})`).join(' and ')}`,
      `  profile:  ${name} → ${first.key} (business ${first.business_id}), saved to ${profiles.path}`,
      ...(name === 'local'
        ? []
        : [
            `            (profile local belongs to the server of another data dir; use this one with --profile ${name})`,
          ]),
      '',
      'Credentials issued by the seed (secrets are shown this once and stored only as hashes):',
      ...server.seeded.map((c) => `  business ${c.business_id}: ${c.key}:${c.secret}`),
      '',
      `  curl -u ${first.key}:${first.secret} ${server.baseUrl}/v1/partner/brands`,
    );
    if (others.length)
      out.push("  (the second business shows tenancy: its key sees none of the first one's data)");
  } else {
    // Only this data dir's own profile is refreshed: never one another server saved.
    const local = owned ?? legacyLocal(profiles);
    if (local && (await server.hasCredential(local.key))) {
      if (local.base_url !== server.baseUrl || local.local_data_dir !== dirKey)
        profiles.save({ ...local, base_url: server.baseUrl, local_data_dir: dirKey });
      profileName = local.name;
      out.push(`  profile:  ${local.name} → ${local.key}, base URL ${server.baseUrl}`);
    } else {
      profileName = undefined;
      out.push(
        '  profile:  none saved (start with --seed demo on an empty data dir, or issue one with `partner operator credentials create`)',
      );
    }
  }
  let inspect: Awaited<ReturnType<typeof startLocalInspect>> | undefined;
  try {
    inspect = wantInspect
      ? await startLocalInspect(server, profiles, profileName ?? 'local', opts.inspectPort ?? 0, insecure, io)
      : undefined;
  } catch (err) {
    // Nothing half-started: the server stops and the data dir is free again.
    await server.close().catch(() => undefined);
    unstarted.abort();
    lock.release();
    throw err;
  }
  if (inspect) out.push(`  inspect:  ${inspect.url}`);
  const cli = cliCommand(io.env, process.argv[1]);
  out.push(
    `  operator: ${dataDir}/local.json (base_url and operator token, mode 0600)`,
    '',
    'Next, in another terminal:',
    `  ${cli} brands list`,
    `  ${cli} branches list`,
    `  ${cli} orders list`,
    `  ${cli} operator businesses list${opts.data !== undefined && opts.data !== defaultDataDir(io.env) ? ` --data ${dataDir}` : ''}`,
    '',
    'Stop with Ctrl-C.',
  );
  io.stdout.write(`${out.join('\n')}\n`);
  if (inspect && opts.open) {
    const { openBrowser } = await import('../inspect/open-browser.js');
    const failed = await openBrowser(inspect.url, io.env);
    if (failed)
      io.stderr.write(`partner: could not open a browser (${failed}): open the inspect URL above yourself\n`);
  }

  const signal = await stopRequested;
  io.stderr.write(`partner: ${signal}: finishing in-flight requests and closing the database\n`);
  try {
    await inspect?.close();
    await server.close();
  } finally {
    lock.release();
  }
  return 0;
}

/**
 * The inspect page of `local start --inspect`: this server's deliveries and request log through
 * its operator API, and the menu preview with profile `local` when it is a credential of this server.
 */
async function startLocalInspect(
  server: RunningServer,
  profiles: ReturnType<typeof openProfiles>,
  profileName: string,
  port: number,
  insecure: boolean,
  io: LocalIo,
) {
  const [{ startInspect }, { menuHistoryDir }, { resolvePartnerTarget }, { defaultConfigDir }] =
    await Promise.all([
      import('../inspect/start.js'),
      import('../inspect/menu-history.js'),
      import('../target.js'),
      import('../paths.js'),
    ]);
  const configDir = io.configDir ?? defaultConfigDir(io.env);
  let partner: { baseUrl: string; key: string; secret: string } | { error: string };
  try {
    const t = resolvePartnerTarget({ configDir, env: io.env, profile: profileName, baseUrl: undefined });
    partner = (await server.hasCredential(t.key))
      ? { baseUrl: server.baseUrl, key: t.key, secret: t.secret }
      : { error: `profile ${profileName} (${t.key}) is not a credential of this server` };
  } catch {
    partner = {
      error: `no profile ${profileName} (in ${profiles.path}): start with --seed demo on an empty data dir, or add one`,
    };
  }
  return startInspect({
    mode: 'local',
    version: typeof __PARTNER_VERSION__ === 'string' ? __PARTNER_VERSION__ : '0.0.0',
    port,
    operator: { baseUrl: server.baseUrl, token: server.operatorToken },
    partner,
    insecure,
    historyDir: menuHistoryDir(io.env, configDir),
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE')
      throw new UsageError(`--inspect-port ${port} is in use: pass --inspect-port N (0 picks a free one)`);
    throw err;
  });
}
