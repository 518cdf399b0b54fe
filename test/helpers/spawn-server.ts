import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

let bundle: string | undefined;

/** The server bundled to plain JS once per test file, so it can run in a real child process. */
async function serverBundle(): Promise<string> {
  if (bundle) return bundle;
  // Inside node_modules so the bundle's bare imports (better-sqlite3, pg) resolve: ESM ignores NODE_PATH.
  const cache = new URL('../../node_modules/.cache/', import.meta.url).pathname;
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'partner-srv-'));
  const entry = new URL('../../src/server/index.ts', import.meta.url).pathname;
  await build({
    entryPoints: [entry],
    outfile: join(dir, 'server.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3', 'pg'],
    // Bundled CommonJS dependencies (undici) call require(): give the ESM bundle one.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'error',
  });
  bundle = join(dir, 'server.mjs');
  return bundle;
}

export interface ChildServer {
  baseUrl: string;
  operatorToken: string;
  credential?: { key: string; secret: string; businessId: number };
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** Starts the real server in a child node process on a free port; resolves once it listens. */
export async function spawnServer(opts: {
  dataDir: string;
  seed?: 'demo' | 'none';
  retrySchedule?: number[];
  /** A postgres:// URL: the child runs on PostgreSQL (several children may share one database). */
  database?: string;
}): Promise<ChildServer> {
  const file = await serverBundle();
  const main = join(mkdtempSync(join(tmpdir(), 'partner-srv-main-')), 'main.mjs');
  writeFileSync(
    main,
    `const { startServer } = await import(${JSON.stringify(pathToFileURL(file).href)});
     const s = await startServer({ dataDir: ${JSON.stringify(opts.dataDir)},${opts.database ? ` database: ${JSON.stringify(opts.database)}, sealKey: Buffer.alloc(32, 3), operatorToken: 'op_test_0123456789abcdefghijk',` : ''} port: 0, seed: ${JSON.stringify(opts.seed ?? 'none')}, retrySchedule: ${JSON.stringify(opts.retrySchedule ?? [60_000])}, logErrors: () => {} });
     const c = s.seeded[0];
     console.log(JSON.stringify({ baseUrl: s.baseUrl, operatorToken: s.operatorToken, credential: c && { key: c.key, secret: c.secret, businessId: c.business_id } }));
     process.on('SIGTERM', () => s.close().then(() => process.exit(0)));`,
  );
  const child = spawn(process.execPath, [main], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const info = await new Promise<Omit<ChildServer, 'child' | 'exited'>>((resolve, reject) => {
    let buf = '';
    const t = setTimeout(() => reject(new Error('server child did not start within 15 s')), 15_000);
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(t);
        resolve(JSON.parse(buf.slice(0, nl)));
      }
    });
    void exited.then((code) => {
      clearTimeout(t);
      reject(new Error(`server child exited early with ${code}`));
    });
  });
  return { ...info, child, exited };
}
