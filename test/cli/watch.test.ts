import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Io, Prompter } from '../../src/cli/io.js';
import { run } from '../../src/cli/program.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { fakePrompter, profileDir } from './run-cli.js';

// `partner orders watch` against the real server, in-process. Unlike run-cli.ts this Io has a
// real clock (the watch moves its window with it), a stdin that takes key presses, and a stop
// handle, so a test can run the watch, change orders while it polls, and stop it.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
});
afterAll(async () => {
  await s?.close();
});

interface WatchLine {
  kind: 'new' | 'changed';
  order_id: number;
  status: number;
  status_name: string;
  previous_status?: number;
  previous_status_name?: string;
  updated_at: string;
  order: { id: number; status: number };
}

interface Running {
  stdout(): string;
  stderr(): string;
  lines(): WatchLine[];
  stdin: PassThrough;
  waitFor(what: string, pred: () => boolean | Promise<boolean>, ms?: number): Promise<void>;
  stop(): Promise<number>;
  done: Promise<number>;
}

const localProfile = (cred: { key: string; secret: string } = s.credential) =>
  profileDir(s.baseUrl, cred, 'partner-watch-cfg-');

function start(argv: string[], o: { configDir: string; tty?: boolean; prompter?: Prompter }): Running {
  let out = '';
  let err = '';
  let stopNow!: (sig: string) => void;
  const stopped = new Promise<string>((r) => {
    stopNow = r;
  });
  const stdin = new PassThrough();
  const tty = o.tty ?? false;
  const io: Io = {
    stdout: { write: (x: string) => (out += x) },
    stderr: { write: (x: string) => (err += x) },
    stdin,
    stdoutIsTTY: tty,
    stderrIsTTY: false,
    stdinIsTTY: tty,
    env: { NO_COLOR: '1' },
    color: false,
    prompter: o.prompter ?? fakePrompter(),
    clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
    configDir: o.configDir,
    cwd: process.cwd(),
    untilStopped: () => stopped,
  };
  const done = run(argv, io);
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const r: Running = {
    stdout: () => out,
    stderr: () => err,
    lines: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as WatchLine),
    stdin,
    async waitFor(what, pred, ms = 8000) {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        if (await pred()) return;
        if (finished)
          throw new Error(`watch ended while waiting for ${what}\nstdout:\n${out}\nstderr:\n${err}`);
        await new Promise((res) => setTimeout(res, 25));
      }
      throw new Error(`timed out waiting for ${what}\nstdout:\n${out}\nstderr:\n${err}`);
    },
    async stop() {
      stopNow('SIGINT');
      return done;
    },
    done,
  };
  return r;
}

async function newOrder(branchId = 1, brandId = 1): Promise<number> {
  const r = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    brand_id: brandId,
    branch_id: branchId,
    items: 1,
  });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

async function patchStatus(id: number, status: string): Promise<void> {
  const r = await call(s, 'PATCH', '/v1/partner/orders/status', {
    body: { id, status, platform: 'enterprise' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function statusOf(id: number): Promise<number> {
  return (await call(s, 'GET', `/v1/partner/orders/${id}`)).body.data.status;
}

/** A start time just before now: older orders (the seed's, other tests') stay out of the window. */
const sinceNow = () => new Date(Date.now() - 2).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const count = (lines: WatchLine[], kind: string, id: number) =>
  lines.filter((l) => l.kind === kind && l.order_id === id).length;

describe('orders watch, non-interactive', () => {
  it('shows orders created before and between polls once each, and a status change once', async () => {
    const configDir = localProfile();
    const since = sinceNow();
    const a = await newOrder();
    const w = start(
      ['orders', 'watch', '--json', '--since', since, '--interval', '150ms', '--duration', '20s'],
      {
        configDir,
      },
    );
    await w.waitFor(`order ${a}`, () => count(w.lines(), 'new', a) > 0);
    const b = await newOrder(2);
    await w.waitFor(`order ${b}`, () => count(w.lines(), 'new', b) > 0);
    await patchStatus(a, 'ACCEPTED');
    await w.waitFor(`the change of ${a}`, () => count(w.lines(), 'changed', a) > 0);
    await sleep(600); // several more polls: nothing may repeat
    expect(await w.stop()).toBe(0);

    const lines = w.lines();
    expect(lines.map((l) => `${l.kind} ${l.order_id}`)).toEqual([`new ${a}`, `new ${b}`, `changed ${a}`]);
    const change = lines[2]!;
    expect(change).toMatchObject({
      status: 2,
      status_name: 'ACCEPTED',
      previous_status: 1,
      previous_status_name: 'PLACED',
    });
    expect(change.order.status).toBe(2);
    expect(lines[0]).toMatchObject({ status: 1, status_name: 'PLACED' });
    expect(w.stderr()).toMatch(/\d+ polls, 2 new, 1 changed/);
  });

  it('across a restart (the cursor) every order and change shows exactly once', async () => {
    const configDir = localProfile();
    const since = sinceNow();
    const c1 = await newOrder();
    const run1 = start(
      ['orders', 'watch', '--json', '--since', since, '--interval', '100ms', '--max-polls', '2'],
      {
        configDir,
      },
    );
    expect(await run1.done).toBe(0);
    const cursorFiles = join(configDir, 'watch');
    expect(existsSync(cursorFiles)).toBe(true);

    const c2 = await newOrder(3);
    await patchStatus(c1, 'ACCEPTED');
    const run2 = start(['orders', 'watch', '--json', '--interval', '100ms', '--max-polls', '2'], {
      configDir,
    });
    expect(await run2.done).toBe(0);
    expect(run2.stderr()).toContain('continuing from');

    const c3 = await newOrder(2);
    await patchStatus(c2, 'ACCEPTED');
    await patchStatus(c2, 'READY');
    const run3 = start(['orders', 'watch', '--json', '--interval', '100ms', '--max-polls', '3'], {
      configDir,
    });
    expect(await run3.done).toBe(0);

    expect(run1.lines().map((l) => `${l.kind} ${l.order_id}`)).toEqual([`new ${c1}`]);
    expect(run2.lines().map((l) => `${l.kind} ${l.order_id}`)).toEqual([`new ${c2}`, `changed ${c1}`]);
    // c2 moved twice between runs: one change, from what was last shown to what it is now.
    expect(run3.lines().map((l) => `${l.kind} ${l.order_id}`)).toEqual([`new ${c3}`, `changed ${c2}`]);
    expect(run3.lines()[1]).toMatchObject({ previous_status_name: 'PLACED', status_name: 'READY' });

    const all = [...run1.lines(), ...run2.lines(), ...run3.lines()];
    for (const id of [c1, c2, c3]) expect(count(all, 'new', id), `order ${id}`).toBe(1);

    // The cursor: window end and the open orders with their last-seen updated_at.
    const file = run3.stderr().match(/cursor (\S+\.json)/)![1]!;
    const cursor = JSON.parse(readFileSync(file, 'utf8'));
    expect(cursor.window_end).toEqual(expect.any(String));
    expect(Object.keys(cursor.orders)).toEqual(expect.arrayContaining([String(c1), String(c2), String(c3)]));
    expect(cursor.orders[String(c2)].status).toBe(4);
  });

  it('re-reads an open order the window no longer covers', async () => {
    const configDir = localProfile();
    const since = sinceNow();
    const id = await newOrder();
    // A 100 ms overlap: by the second run the order is older than the window.
    await sleep(250);
    const opts = ['--json', '--overlap', '100ms', '--max-polls', '1'];
    const run1 = start(['orders', 'watch', ...opts, '--since', since], { configDir });
    expect(await run1.done).toBe(0);
    expect(count(run1.lines(), 'new', id)).toBe(1);
    await sleep(300);
    await patchStatus(id, 'ACCEPTED');
    const run2 = start(['orders', 'watch', ...opts, '--verbose'], { configDir });
    expect(await run2.done).toBe(0);
    expect(run2.lines()).toMatchObject([{ kind: 'changed', order_id: id, previous_status: 1, status: 2 }]);
    // Found by reading the order itself, not through the list.
    expect(run2.stderr()).toContain(`GET ${s.baseUrl}/v1/partner/orders/${id} → 200`);
  });

  it('prints tab-separated lines when stdout is not a terminal', async () => {
    const configDir = localProfile();
    const since = sinceNow();
    const id = await newOrder();
    const w = start(['orders', 'watch', '--since', since, '--max-polls', '1'], { configDir });
    expect(await w.done).toBe(0);
    const line = w
      .stdout()
      .trim()
      .split('\n')
      .find((l) => l.startsWith(`new\t${id}\t`));
    expect(line?.split('\t').slice(0, 3)).toEqual(['new', String(id), 'PLACED']);
    expect(w.stdout()).not.toMatch(/\u001b\[/);
  });

  it('filters by branch and status', async () => {
    const configDir = localProfile();
    const since = sinceNow();
    const here = await newOrder(3);
    const elsewhere = await newOrder(1);
    const w = start(
      [
        'orders',
        'watch',
        '--json',
        '--since',
        since,
        '--branch',
        '3',
        '--status',
        'ACCEPTED',
        '--interval',
        '100ms',
        '--duration',
        '15s',
      ],
      { configDir },
    );
    await sleep(400);
    expect(w.lines()).toEqual([]); // PLACED: not shown
    await patchStatus(here, 'ACCEPTED');
    await patchStatus(elsewhere, 'ACCEPTED');
    await w.waitFor(`order ${here} entering the filter`, () => w.lines().length > 0);
    await sleep(400);
    expect(await w.stop()).toBe(0);
    expect(w.lines()).toMatchObject([{ kind: 'changed', order_id: here, previous_status: 1, status: 2 }]);
  });

  it('rejects bad flags with exit 2', async () => {
    const configDir = localProfile();
    for (const args of [
      ['--status', 'SOON'],
      ['--interval', 'fast'],
      ['--since', 'yesterday-ish'],
      ['--max-polls', '0'],
    ]) {
      const w = start(['orders', 'watch', ...args], { configDir });
      expect(await w.done, args.join(' ')).toBe(2);
    }
  });
});

describe('orders watch backs off', () => {
  it('on 429 from a credential with a tiny rate limit, and says so on stderr', async () => {
    const limited = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['orders:read'],
      rateLimit: 2,
    });
    const configDir = localProfile(limited);
    const t = Date.now();
    const w = start(
      ['orders', 'watch', '--json', '--since', sinceNow(), '--interval', '100ms', '--duration', '2500ms'],
      {
        configDir,
      },
    );
    expect(await w.done).toBe(0);
    const elapsed = Date.now() - t;
    expect(w.stderr()).toMatch(/rate limited \(429 rate_limit_exceeded\).*backing off \d+ s/);
    // Bounded by --duration even though Retry-After asked for much longer: it ended before the
    // back-off it announced (compared with that, not with a speed figure).
    const backoffs = [...w.stderr().matchAll(/backing off (\d+) s/g)].map((m) => Number(m[1]) * 1000);
    expect(Math.max(...backoffs)).toBeGreaterThan(10_000);
    expect(elapsed).toBeLessThan(Math.max(...backoffs));
    // It waited instead of hammering: far fewer polls than 2.5 s / 100 ms.
    const polls = Number(w.stderr().match(/(\d+) polls?,/)![1]);
    expect(polls).toBeLessThanOrEqual(3);
  });

  it('on network errors, exponentially, and says so', async () => {
    const configDir = profileDir('http://127.0.0.1:9', { key: 'pk_x', secret: 'sk_x' }, 'partner-watch-cfg-');
    const w = start(['orders', 'watch', '--interval', '100ms', '--duration', '2s'], { configDir });
    expect(await w.done).toBe(0);
    const waits = [
      ...w.stderr().matchAll(/network error .*backing off ([\d.]+) (ms|s) \(failure (\d+) in a row\)/g),
    ].map((m) => Number(m[1]) * (m[2] === 's' ? 1000 : 1));
    expect(waits.length).toBeGreaterThanOrEqual(2);
    expect(waits[1]!).toBeGreaterThan(waits[0]!);
  });

  it('stops at once on an auth error (exit 3)', async () => {
    const configDir = localProfile({ key: s.credential.key, secret: 'sk_wrong' });
    const w = start(['orders', 'watch', '--interval', '100ms', '--duration', '5s'], { configDir });
    expect(await w.done).toBe(3);
  });
});

describe('orders watch on a terminal', () => {
  it('shows a live table and acts on the selected order: menu (accept) and a key (r = ready)', async () => {
    const configDir = localProfile();
    const since = sinceNow();
    const id = await newOrder();
    const prompter = fakePrompter([String(id), 'accept']);
    const w = start(['orders', 'watch', '--since', since, '--interval', '150ms', '--duration', '20s'], {
      configDir,
      tty: true,
      prompter,
    });
    await w.waitFor('the order in the table', () => w.stdout().includes(`#${id}`));
    expect(w.stdout()).toContain('a accept');
    w.stdin.write('\r'); // enter: the action menu
    await w.waitFor('the order accepted', async () => (await statusOf(id)) === 2);
    expect(prompter.calls.map((c) => c.kind)).toEqual(['select', 'select']);
    expect(prompter.calls[1]!.message).toContain(`#${id}`);
    await w.waitFor('the change in the table', () => /PLACED → ACCEPTED/.test(w.stdout()));
    w.stdin.write('r'); // key on the selected (only) order
    await w.waitFor('the order ready', async () => (await statusOf(id)) === 4);
    await w.waitFor('the change in the table', () => /ACCEPTED → READY/.test(w.stdout()));
    w.stdin.write('q');
    expect(await w.done).toBe(0);
    // Left the alternate screen.
    expect(w.stdout().endsWith('\u001b[?25h\u001b[?1049l')).toBe(true);
  });

  it('cancel asks for a reason; a refused move is shown, not fatal', async () => {
    const configDir = localProfile();
    const since = sinceNow();
    const id = await newOrder();
    const prompter = fakePrompter(['out of stock']);
    const w = start(['orders', 'watch', '--since', since, '--interval', '150ms', '--duration', '20s'], {
      configDir,
      tty: true,
      prompter,
    });
    await w.waitFor('the order in the table', () => w.stdout().includes(`#${id}`));
    w.stdin.write('d'); // PLACED → DELIVERED is not allowed
    await w.waitFor('the refusal', () => w.stdout().includes('state_invalid_transition'));
    w.stdin.write('c');
    await w.waitFor('the order cancelled', async () => (await statusOf(id)) === 3);
    const order = (await call(s, 'GET', `/v1/partner/orders/${id}`)).body.data;
    expect(order.cancellation_reason).toBe('out of stock');
    expect(await w.stop()).toBe(0);
    expect(prompter.calls.map((c) => c.kind)).toEqual(['input']);
  });
});
