import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripAnsi } from '../../src/cli/output/display-width.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { type CliResult, runCli, tempDir } from './run-cli.js';

// `partner logs tail` against the real local server: what the test's own requests answered is
// what the tail prints (same request ids), filters, history, and the two ways it ends: Ctrl-C
// (exit 0) and the server going away (exit 7).

let s: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
  env = { PARTNER_DATA_DIR: s.dataDir };
});
afterAll(() => s?.close());

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs `partner logs tail ARGS` in-process until `stop()`; `out()` is what it printed so far. */
function tail(args: string[], o: { tty?: boolean; server?: TestServer } = {}) {
  let stdout = '';
  let stderr = '';
  let stopNow!: (s: string) => void;
  const stopped = new Promise<string>((r) => {
    stopNow = r;
  });
  const srv = o.server ?? s;
  const done: Promise<CliResult> = runCli(['logs', 'tail', ...args], {
    env: { PARTNER_DATA_DIR: srv.dataDir },
    tty: o.tty ?? false,
    untilStopped: () => stopped,
    onStderr: (c) => {
      stderr += c;
    },
    onStdout: (c) => {
      stdout += c;
    },
  });
  return {
    done,
    stderr: () => stderr,
    ready: () => until('the tail to start', () => stderr.includes('Tailing requests')),
    /** Waits until the tail printed `text`. */
    printed: (text: string) => until(`the tail to print ${text}`, () => stdout.includes(text)),
    stop: () => stopNow('SIGINT'),
  };
}

describe('partner logs tail', () => {
  it("prints the test's requests as they are answered, with the request ids of their answers", async () => {
    const t = tail(['--json']);
    await t.ready();
    const answers = [
      await call(s, 'GET', '/v1/partner/brands'),
      await call(s, 'GET', '/v1/partner/orders/987654'),
      await call(s, 'PATCH', '/v1/partner/orders/status', {
        body: { id: 987654, status: 'READY', platform: 'enterprise' },
      }),
    ];
    const ids = answers.map((a) => a.body.request_id);
    for (const a of answers) expect(a.headers.get('x-request-id')).toBe(a.body.request_id);
    await t.printed(ids[2]!);
    t.stop();
    const r = await t.done;
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.request_id)).toEqual(ids);
    expect(lines.map((l) => [l.method, l.path, l.status, l.credential_key, l.error_code])).toEqual([
      ['GET', '/v1/partner/brands', 200, s.credential.key, null],
      ['GET', '/v1/partner/orders/987654', 404, s.credential.key, 'resource_not_found'],
      ['PATCH', '/v1/partner/orders/status', 404, s.credential.key, 'resource_not_found'],
    ]);
  });

  it('filters by status and path (relative to /v1/partner/)', async () => {
    const t = tail(['--json', '--status', '4xx', '--path', 'orders']);
    await t.ready();
    await call(s, 'GET', '/v1/partner/brands/999999'); // 4xx, other path
    await call(s, 'GET', '/v1/partner/orders?size=1'); // the path, 200
    const miss = await call(s, 'GET', '/v1/partner/orders/555555');
    await t.printed(miss.body.request_id);
    t.stop();
    const r = await t.done;
    expect(r.code).toBe(0);
    expect(t.stderr()).toContain('(status 4xx, path /v1/partner/orders)');
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ request_id: miss.body.request_id, status: 404 });
  });

  it('one line per request: coloured on a terminal, tab-separated when piped', async () => {
    const ok = await call(s, 'GET', '/v1/partner/brands');
    const bad = await call(s, 'GET', '/v1/partner/orders/424242');
    const onTty = await runCli(['logs', 'tail', '--limit', '2', '--no-follow'], { env, tty: true });
    expect(onTty.code).toBe(0);
    const [l1, l2] = onTty.stdout.trimEnd().split('\n');
    expect(l1).toContain('\u001b[32m200'); // green
    expect(l2).toContain('\u001b[33m404'); // yellow
    expect(stripAnsi(l1!)).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d\\.\\d{3}  200  GET     /v1/partner/brands +\\d+(\\.\\d)? ms  ${ok.body.request_id}  ${s.credential.key}$`,
      ),
    );
    expect(stripAnsi(l2!)).toMatch(
      new RegExp(`  404  GET .* ${bad.body.request_id}  ${s.credential.key}  resource_not_found$`),
    );
    // The columns line up: the request ids start at the same place on both lines.
    const at = (l: string, id: string) => stripAnsi(l).indexOf(id);
    expect(at(l1!, ok.body.request_id)).toBe(at(l2!, bad.body.request_id));
    const piped = await runCli(['logs', 'tail', '--limit', '2', '--no-follow'], { env });
    const cols = piped.stdout.trimEnd().split('\n')[1]!.split('\t');
    expect(cols[0]).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(cols.slice(1, 4)).toEqual(['GET', '/v1/partner/orders/424242', '404']);
    expect(cols.slice(5)).toEqual([bad.body.request_id, s.credential.key, 'resource_not_found']);
    expect(piped.stdout).not.toContain('\u001b[');
  });

  it('--since and --limit print history; --no-follow exits after it', async () => {
    const own = await startTestServer({ seed: 'demo' });
    try {
      const ownEnv = { PARTNER_DATA_DIR: own.dataDir };
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await call(own, 'GET', `/v1/partner/branches?page=${i + 1}`)).body.request_id);
      const last2 = await runCli(['logs', 'tail', '--limit', '2', '--no-follow', '--json'], { env: ownEnv });
      expect(last2.code).toBe(0);
      expect(
        last2.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).request_id),
      ).toEqual(ids.slice(3));
      const all = await runCli(['logs', 'tail', '--since', '1h', '--no-follow', '--jq', '.request_id'], {
        env: ownEnv,
      });
      expect(all.code).toBe(0);
      expect(all.stdout.trim().split('\n')).toEqual(ids);
      const none = await runCli(['logs', 'tail', '--since', '2999-01-01T00:00:00Z', '--no-follow'], {
        env: ownEnv,
      });
      expect(none).toMatchObject({ code: 0, stdout: '' });
    } finally {
      await own.close();
    }
  });

  it('stops with exit 7 and a clear error when the server goes away', async () => {
    const own = await startTestServer({ seed: 'demo' });
    const t = tail(['--json'], { server: own });
    await t.ready();
    const seen = await call(own, 'GET', '/v1/partner/brands');
    await t.printed(seen.body.request_id);
    const t0 = performance.now();
    await own.close();
    const r = await t.done;
    expect(r.code).toBe(7);
    // Ended by the server going away, not by its 20 s long poll running out.
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(r.stderr).toMatch(
      new RegExp(`^error: the local server at ${own.baseUrl} went away \\(.+\\); 1 request shown$`, 'm'),
    );
    expect(JSON.parse(r.stdout.trim()).request_id).toBe(seen.body.request_id);
    t.stop();
  });

  it('bad input is a usage error naming the flag, before any request', async () => {
    const cases: [string[], RegExp][] = [
      [['--status', '4x'], /^error: --status: "4x" is not a status such as 404 nor a class such as 4xx\n$/],
      [['--status', '404,6xx'], /--status: "6xx"/],
      [['--limit', '0'], /^error: --limit must be between 1 and 1000, got "0"\n$/],
      [['--method', 'FETCH'], /^error: --method must be one of GET, POST, PUT, PATCH, DELETE/],
      [['--since', 'yesterday'], /^error: --since expects an ISO 8601 time/],
      [['--server', 'http://127.0.0.1:1'], /^error: --server and --token go together/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(['logs', 'tail', ...args], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(re);
      expect(r.stdout).toBe('');
    }
    const noServer = await runCli(['logs', 'tail'], { env: { PARTNER_DATA_DIR: tempDir() } });
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toMatch(/^error: no local server found .*local\.json is missing/);
  });

  it('a local.json whose server is gone: exit 7 saying so', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'local.json'),
      JSON.stringify({ base_url: 'http://127.0.0.1:9', operator_token: 'op_x' }),
    );
    const r = await runCli(['logs', 'tail'], { env: { PARTNER_DATA_DIR: dir } });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(
      /^error: no local server answers at http:\/\/127\.0\.0\.1:9 \(.+\): start one with `partner local start`/,
    );
  });
});

describe('the built binary', () => {
  const bin = fileURLToPath(new URL('../../bin/partner.js', import.meta.url));

  it('Ctrl-C (SIGINT) ends a tail at once with exit 0, also in the middle of a long poll', async () => {
    const child = spawn(process.execPath, [bin, 'logs', 'tail', '--json'], {
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), PARTNER_DATA_DIR: s.dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
    try {
      await until('the binary to start tailing', () => stderr.includes('Tailing requests'));
      const a = await call(s, 'GET', '/v1/partner/branches?size=7');
      await until('the line', () => stdout.includes(a.body.request_id));
      // Now a long poll is waiting on the server (up to 20 s): SIGINT must not wait for it. (A
      // pause so it usually is; a SIGINT before the poll starts must end the tail just the same.)
      await new Promise((r) => setTimeout(r, 200));
      const t0 = performance.now();
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      // Ended by the signal, not by the 20 s poll running out.
      expect(performance.now() - t0).toBeLessThan(20_000);
      expect(JSON.parse(stdout.trim())).toMatchObject({ path: '/v1/partner/branches?size=7', status: 200 });
    } finally {
      clearTimeout(kill);
    }
  });
});
