// PostgreSQL for the pg-* benchmarks: a throw-away cluster of the machine's PostgreSQL (initdb +
// pg_ctl in a temp dir, a free port on 127.0.0.1, stopped and removed afterwards), partner
// instances on one of its databases, and the floor: raw node:http plus one query of the same
// client (`pg`) per request on the same database.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { hasTaskset, modulePath, serverBundle, spawnNode } from './server.mjs';

const SEAL_KEY = randomBytes(32).toString('base64');
const OPERATOR_TOKEN = `op_bench_${randomBytes(16).toString('hex')}`;

function postgresBin() {
  if (process.env.PARTNER_PG_BIN) return process.env.PARTNER_PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const v = readdirSync(root)
    .filter((d) => existsSync(join(root, d, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return v && join(root, v, 'bin');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts a cluster with PostgreSQL's default durability (fsync, synchronous_commit on: a 2xx means
 * the commit is on disk), pinned to `core` like the servers under test. As root the server
 * programs run as `postgres` (initdb refuses root).
 */
export async function startCluster({ core = 0 } = {}) {
  const bin = postgresBin();
  if (!bin) throw new Error('the pg-* benches need PostgreSQL (initdb, pg_ctl): set PARTNER_PG_BIN');
  const dir = mkdtempSync(join(tmpdir(), 'partner-bench-pg-'));
  const root = process.getuid?.() === 0;
  if (root) {
    const id = (f) => Number(execFileSync('id', [f, 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const pin = hasTaskset ? ['taskset', '-c', String(core)] : [];
  const run = (prog, args) => {
    const argv = [...pin, ...(root ? ['runuser', '-u', 'postgres', '--'] : []), join(bin, prog), ...args];
    execFileSync(argv[0], argv.slice(1), { stdio: 'pipe' });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'partner', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  const opts = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c max_connections=200',
    ...(process.env.BENCH_PG_OPTS ? [process.env.BENCH_PG_OPTS] : []),
  ].join(' ');
  run('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  const admin = `postgres://partner@127.0.0.1:${port}/postgres`;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    } catch {
      // already down
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  return {
    admin,
    version: spawnSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout.trim(),
    /** A new empty database; resolves with its URL. */
    async database(name) {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return `postgres://partner@127.0.0.1:${port}/${name}`;
    },
    stop,
  };
}

/**
 * One partner instance on `database` in a child process pinned to `core`: resolves with
 * `{ info: {baseUrl, operatorToken, credential}, close }`. With `seed`, it seeds the demo data and
 * raises the first credential's rate limit so the bench measures the server, not its 429s.
 */
export async function startPgPartner({ database, core = 0, seed = false, rateLimit = 1_000_000 }) {
  const bundle = await serverBundle();
  const data = mkdtempSync(join(tmpdir(), 'partner-bench-data-'));
  const s = await spawnNode(
    `import { startServer } from ${JSON.stringify(bundle)};
     const s = await startServer({ dataDir: ${JSON.stringify(data)}, database: ${JSON.stringify(database)}, port: 0,
       seed: ${JSON.stringify(seed ? 'demo' : 'none')}, logErrors: () => {},
       sealKey: Buffer.from(${JSON.stringify(SEAL_KEY)}, 'base64'), operatorToken: ${JSON.stringify(OPERATOR_TOKEN)} });
     const c = s.seeded[0];
     if (c) await fetch(s.baseUrl + '/v1/operator/credentials/' + c.key + '/rate-limit', {
       method: 'PUT', headers: { authorization: 'Bearer ' + s.operatorToken, 'content-type': 'application/json' },
       body: JSON.stringify({ rate_limit: ${rateLimit} }) });
     console.log(JSON.stringify({ baseUrl: s.baseUrl, operatorToken: s.operatorToken, credential: c }));
     process.on('SIGTERM', () => s.close().then(() => process.exit(0)));`,
    { core },
  );
  const close = s.close;
  return {
    ...s,
    async close() {
      await close();
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/**
 * The floor: raw node:http where each request runs one query (`sql`, `params(body)`) on a `pg`
 * pool of the partner's size (10) on `database`, then answers `answer(rows, body)`: the least any
 * server on this client and database can do per request.
 */
export function startPgFloor({ database, core = 0, setup = '', sql, params, answer }) {
  const pgPath = modulePath('pg/lib/index.js');
  return spawnNode(
    `import http from 'node:http';
     import { createRequire } from 'node:module';
     const pg = createRequire(import.meta.url)(${JSON.stringify(pgPath)});
     const pool = new pg.Pool({ connectionString: ${JSON.stringify(database)}, max: 10 });
     ${setup ? `await pool.query(${JSON.stringify(setup)});` : ''}
     const params = ${params};
     const answer = ${answer};
     const s = http.createServer((req, res) => {
       let body = '';
       req.setEncoding('utf8');
       req.on('data', (c) => { body += c; });
       req.on('end', async () => {
         try {
           const b = body ? JSON.parse(body) : undefined;
           const r = await pool.query({ name: 'floor', text: ${JSON.stringify(sql)}, values: params(b, req) });
           const out = answer(r.rows, b);
           res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(out) });
           res.end(out);
         } catch (err) {
           res.writeHead(500).end(String(err));
         }
       });
     });
     s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + s.address().port + '/' })));
     process.on('SIGTERM', () => pool.end().then(() => process.exit(0)));`,
    { core },
  );
}
