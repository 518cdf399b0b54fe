import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/pg-databases.js';
import { baseEnv, bin, ensureBuilt, tempDir } from '../multi-instance/instances.js';
import { OPERATOR_TOKEN, SEAL_KEY } from '../multi-instance/service.js';

// `partner local start` as the built binary, stopped with SIGTERM at the moments that used to go
// wrong: the instant /healthz first answers (the signal handler came only after the post-listen
// work, so the signal killed the process), and under a stream of requests (a request reaching the
// stopping server got the framework's own 503, outside the envelope). On both backends.

const children = new Set<ChildProcess>();
const databases: TestDatabase[] = [];

beforeAll(() => ensureBuilt());
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(databases.map((d) => d.drop()));
});

function freePort(): Promise<number> {
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

interface Started {
  child: ChildProcess;
  url: string;
  data: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `local start --seed demo` on a port chosen here, so the test can reach it before it prints
 * anything; on PostgreSQL on a fresh database (seeding it: the longest start).
 */
async function launch(): Promise<Started> {
  const db = testBackend() === 'postgres' ? await createTestDatabase() : undefined;
  if (db) databases.push(db);
  const port = await freePort();
  const data = tempDir('partner-data-');
  const env = baseEnv(
    db
      ? { PARTNER_DATABASE_URL: db.url, PARTNER_SEAL_KEY: SEAL_KEY, PARTNER_OPERATOR_TOKEN: OPERATOR_TOKEN }
      : {},
  );
  const child = spawn(
    process.execPath,
    [bin, 'local', 'start', '--port', String(port), '--data', data, '--seed', 'demo'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      r({ code, signal });
    }),
  );
  return { child, url: `http://127.0.0.1:${port}`, data, stdout: () => out, stderr: () => err, exited };
}

/**
 * Resolves at the first 200 of /healthz, asked on a raw socket as soon as one connects (no HTTP
 * client's set-up between the answer and the caller). Bounded: 60 s, or the process gone.
 */
async function firstHealthy(s: Started): Promise<void> {
  const port = Number(new URL(s.url).port);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && s.child.exitCode === null && s.child.signalCode === null) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1');
      let got = '';
      sock.once('connect', () => sock.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
      sock.on('data', (d) => {
        got += d;
        if (got.includes('\r\n')) {
          sock.destroy();
          resolve(got.startsWith('HTTP/1.1 200'));
        }
      });
      sock.once('error', () => resolve(false)); // not listening yet: refused
      sock.once('close', () => resolve(false));
    });
    if (ok) return;
    // Not at full speed: a busy loop here starves the very start it waits for (2 cores, loaded).
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(
    `/healthz never answered 200 (exit ${s.child.exitCode}, signal ${s.child.signalCode}):\n${s.stdout()}\n${s.stderr()}`,
  );
}

async function stopped(s: Started): Promise<void> {
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 15_000);
  const e = await s.exited;
  clearTimeout(timer);
  expect(e, `exit of local start; stderr:\n${s.stderr()}`).toEqual({ code: 0, signal: null });
  expect(s.stderr()).toMatch(/partner: SIGTERM: finishing in-flight requests and closing the database/);
  expect(existsSync(join(s.data, 'server.lock'))).toBe(false);
}

describe(`local start stopped with SIGTERM (${testBackend()})`, () => {
  it('the moment /healthz first answers: a clean stop, the drain message, no server.lock left', async () => {
    // The window was short (post-listen work): a few rounds, each a fresh start.
    for (let round = 0; round < 4; round++) {
      const s = await launch();
      await firstHealthy(s);
      s.child.kill('SIGTERM');
      await stopped(s);
    }
  }, 240_000);
});
