// A throw-away PostgreSQL cluster for the tests: initdb + pg_ctl of the machine's PostgreSQL in a
// temp dir, on a free port of 127.0.0.1, stopped and removed afterwards. Nothing is assumed to
// be running. As root, the server programs run as the `postgres` user (initdb refuses root).
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The directory holding initdb and pg_ctl: $PARTNER_PG_BIN, the newest /usr/lib/postgresql/N/bin, or none. */
export function postgresBin(): string | undefined {
  const given = process.env.PARTNER_PG_BIN;
  if (given) return existsSync(join(given, 'pg_ctl')) ? given : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')) && existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function uidOf(user: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

export interface Cluster {
  /** Superuser URL of the `postgres` database (user `partner`, trust auth on 127.0.0.1). */
  url: string;
  stop(): void;
  /** `pg_ctl stop -m immediate` (a crash, as a failover looks to clients); the data dir stays. */
  halt(): Promise<void>;
  /** Starts it again after halt(), on the same port (crash recovery first). */
  resume(): Promise<void>;
}

export interface ClusterOptions {
  /**
   * Every commit flushed before it returns (synchronous_commit on): a test that crashes the server
   * and counts acknowledged writes needs it. Default off (a throw-away cluster, faster).
   */
  durable?: boolean;
}

export async function startCluster(bin: string, o: ClusterOptions = {}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'partner-pg-'));
  const root = process.getuid?.() === 0;
  const owner = root ? uidOf('postgres') : undefined;
  if (root && !owner) throw new Error('running as root and there is no `postgres` user to run PostgreSQL as');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const run = (prog: string, args: string[]) =>
    root
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, prog), ...args], { stdio: 'pipe' })
      : execFileSync(join(bin, prog), args, { stdio: 'pipe' });
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'partner', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const port = await freePort();
  // A throw-away cluster: durability settings off (nothing here must survive a power cut),
  // room for the connections of many test servers at once.
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    // fsync off loses nothing unless the machine itself crashes; synchronous_commit off loses
    // the last commits on a server crash.
    '-c fsync=off',
    o.durable ? '' : '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
  ]
    .filter(Boolean)
    .join(' ');
  const runAsync = (prog: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const [file, argv] = root
        ? ['runuser', ['-u', 'postgres', '--', join(bin, prog), ...args]]
        : [join(bin, prog), args];
      execFile(file as string, argv as string[], (err) => (err ? reject(err) : resolve()));
    });
  const stop = () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  } catch (err) {
    stop();
    throw err;
  }
  return {
    url: `postgres://partner@127.0.0.1:${port}/postgres`,
    stop,
    halt: () => runAsync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    resume: () =>
      runAsync('pg_ctl', [
        '-D',
        data,
        '-o',
        settings,
        '-l',
        join(dir, 'server.log'),
        '-w',
        '-t',
        '30',
        'start',
      ]),
  };
}
