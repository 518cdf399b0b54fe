import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_CODES, type StatusCode } from '../../src/contract/order-statuses.js';
import { NEXT_STATUS } from '../../src/cli/commands/trigger-run.js';
import { allowedFrom } from '../../src/server/domain/orders.js';
import { verify } from '../../src/webhooks/signature.js';
import { startWithProfile } from '../helpers/profile.js';
import { startRecorder } from '../helpers/receiver.js';
import { call, type TestServer } from '../helpers/server.js';
import { runCli } from './run-cli.js';

// `partner trigger` against the real local server with a real receiver: the events it fires are
// delivered, signed with the business's webhook secret, under the event ids it prints.

let s: TestServer;
let configDir: string;
let env: Record<string, string>;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
let secret: string;
let hookId: number;

beforeAll(async () => {
  // A held delivery must not time out while a loaded machine runs the test: the attempt's
  // timeout is far beyond any wait here.
  ({ s, configDir } = await startWithProfile({ retrySchedule: [60_000], deliveryTimeoutMs: 120_000 }));
  env = { PARTNER_DATA_DIR: s.dataDir };
  recorder = await startRecorder();
  const hook = await s.operator('POST', '/v1/operator/webhooks', {
    business_id: s.credential.businessId,
    url: recorder.url,
    event: 'all',
  });
  hookId = hook.body.data.id;
  secret = (
    await s.operator('POST', '/v1/operator/webhook-secrets', { business_id: s.credential.businessId })
  ).body.data.webhook_secret_key;
});
afterAll(async () => {
  await recorder?.close();
  await s?.close();
});

const trigger = (args: string[], o: { tty?: boolean } = {}) =>
  runCli(['trigger', ...args], { configDir, env, ...o });

/** The deliveries the recorder got for one event id, each checked for a valid signature. */
function received(eventId: string) {
  return recorder.got
    .filter((r) => r.headers['x-partner-event-id'] === eventId)
    .map((r) => {
      expect(verify(secret, r.body, String(r.headers['x-partner-signature']))).toBe(true);
      return { type: r.headers['x-partner-event-type'], body: JSON.parse(r.body.toString('utf8')) };
    });
}

// biome-ignore lint/suspicious/noExplicitAny: the command's JSON output
type Out = Record<string, any>;

/** A receiver that holds every request until `release()`; `arrived` resolves at the first one. */
async function startHolder() {
  const held: (() => void)[] = [];
  let released = false;
  let arrive!: () => void;
  const arrived = new Promise<void>((r) => {
    arrive = r;
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = () => res.writeHead(200).end('ok');
      if (released) answer();
      else held.push(answer);
      arrive();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/held`,
    arrived,
    release() {
      released = true;
      for (const a of held.splice(0)) a();
    },
    async close() {
      this.release();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

/** The seq of the newest request in the server's request log. */
const newestSeq = async () =>
  ((await s.operator('GET', '/v1/operator/requests?limit=1')).body.data.results[0]?.seq as number) ?? 0;

/**
 * The requests answered after `seq` whose path starts with `path`, waiting (bounded, on the
 * log's long poll) until there are at least `n`.
 */
async function answeredAfter(
  seq: number,
  path: string,
  n: number,
  stop = { now: false },
): Promise<{ seq: number }[]> {
  const got: { seq: number }[] = [];
  for (let i = 0; got.length < n && !stop.now; i++) {
    if (i >= 20) throw new Error(`fewer than ${n} requests to ${path} after seq ${seq}`);
    const page = (
      await s.operator(
        'GET',
        `/v1/operator/requests?after=${got.at(-1)?.seq ?? seq}&path=${encodeURIComponent(path)}&wait=5`,
      )
    ).body.data;
    got.push(...page.results);
  }
  return got;
}

/** The place of a new order of business 2, which only the tests that register a receiver for it use. */
async function placeOfOther(): Promise<string[]> {
  const brand = (await call(s, 'GET', '/v1/partner/brands', { cred: s.other })).body.data[0].brands[0].id;
  const branches = (await call(s, 'GET', '/v1/partner/branches?size=100', { cred: s.other })).body.data
    .results as { id: number; brand_ids: number[] }[];
  const branch = branches.find((b) => b.brand_ids.includes(brand))!.id;
  return ['--business', String(s.other.businessId), '--brand', String(brand), '--branch', String(branch)];
}

// A bound for a loaded machine, not a speed: each test waits on events (a delivery's record).
describe('partner trigger', { timeout: 90_000 }, () => {
  it('order.created: a new order at the first brand and branch, delivered signed under the printed event id', async () => {
    const r = await trigger(['order.created', '--items', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Out;
    const brands = (await call(s, 'GET', '/v1/partner/brands')).body.data[0].brands.map((b: Out) => b.id);
    expect(out.order.brand_id).toBe(Math.min(...brands));
    expect(out.order.cart).toHaveLength(2);
    expect(out.fired).toHaveLength(1);
    const [f] = out.fired;
    expect(f).toMatchObject({ event_type: 'service.order.created.v2', order_id: out.order.id });
    expect(f.event_ids).toHaveLength(1);
    expect(f.deliveries).toEqual([
      expect.objectContaining({ url: recorder.url, status: 'delivered', status_code: 200, attempts: 1 }),
    ]);
    const got = received(f.event_ids[0]);
    expect(got).toHaveLength(1);
    expect(got[0]!.type).toBe('service.order.created.v2');
    expect(got[0]!.body.orders.map((o: Out) => o.id)).toContain(out.order.id);
  });

  it('order.status on a new order: created, then the next status (ACCEPTED), both delivered', async () => {
    const r = await trigger(['order.status', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Out;
    expect(out.fired.map((f: Out) => f.event_type)).toEqual([
      'service.order.created.v2',
      'service.order.status.updated',
    ]);
    expect(out.fired[1]).toMatchObject({ from: 'PLACED', to: 'ACCEPTED' });
    const [status] = received(out.fired[1].event_ids[0]);
    expect(status!.type).toBe('service.order.status.updated');
    expect(status!.body.orders[0]).toMatchObject({ id: out.order.id, status: 2 });
  });

  it('order.status --order ID walks an existing order on (read with the profile), or sets --status', async () => {
    const created = JSON.parse((await trigger(['order.created', '--json'])).stdout) as Out;
    const id = String(created.order.id);
    const steps: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await trigger(['order.status', '--order', id, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const f = (JSON.parse(r.stdout) as Out).fired;
      expect(f).toHaveLength(1); // no new order
      steps.push(`${f[0].from}→${f[0].to}`);
      expect(received(f[0].event_ids[0])[0]!.body.orders[0].id).toBe(created.order.id);
    }
    expect(steps).toEqual(['PLACED→ACCEPTED', 'ACCEPTED→READY', 'READY→DELIVERED']);
    // Delivered is final: nothing follows, and nothing is changed.
    const done = await trigger(['order.status', '--order', id]);
    expect(done.code).toBe(2);
    expect(done.stderr).toMatch(
      /^error: order \d+ is DELIVERED: a final status, nothing follows it; pass --status S/,
    );
    const set = await trigger(['order.status', '--order', id, '--status', 'picked_up', '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect((JSON.parse(set.stdout) as Out).fired[0]).toMatchObject({ from: 'DELIVERED', to: 'PICKED UP' });
  });

  it('order.cart: replaces the cart of an order and delivers the full cart', async () => {
    const created = JSON.parse((await trigger(['order.created', '--json'])).stdout) as Out;
    const r = await trigger(['order.cart', '--order', String(created.order.id), '--items', '3', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Out;
    expect(out.fired.map((f: Out) => f.event_type)).toEqual(['service.order.cart.updated']);
    const [cart] = received(out.fired[0].event_ids[0]);
    expect(cart!.type).toBe('service.order.cart.updated');
    expect(cart!.body.orders[0].cart).toHaveLength(3);
    expect(cart!.body.orders[0].cart).toEqual(out.order.cart);
  });

  it('prints what it fired for a person, and one line per event when piped', async () => {
    const tty = await trigger(['order.status', '--brand', '1', '--branch', '1'], { tty: true });
    expect(tty.code, tty.stderr).toBe(0);
    const lines = tty.stdout.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
    expect(lines[0]).toMatch(
      /^[✓…] service\.order\.created\.v2 {2}order \d+ {2}brand 1 \/ branch 1 {2}\d+ lines?, [\d.]+ \w+$/,
    );
    expect(lines[1]).toMatch(new RegExp(`^ {4}evt_\\S+ → ${recorder.url} {2}delivered \\(200, \\d+ ms\\)$`));
    expect(lines[2]).toMatch(
      // ✓ once the receiver's 200 is in the log, … while that attempt has no answer recorded yet.
      /^[✓…] service\.order\.status\.updated {2}order \d+ {2}brand 1 \/ branch 1 {2}PLACED → ACCEPTED$/,
    );
    const piped = await trigger(['order.created']);
    const [line] = piped.stdout.trimEnd().split('\n');
    expect(line!.split('\t')).toEqual([
      'service.order.created.v2',
      expect.stringMatching(/^\d+$/),
      expect.stringMatching(/^evt_/),
      `${recorder.url}=delivered:200`,
    ]);
  });

  it('waits for the answer of a delivery already sent, not for its sending only', async () => {
    // The receiver holds the delivery; the trigger is released only after it has read the webhook
    // log twice while the attempt was under way (an earlier version stopped there: "pending").
    const holder = await startHolder();
    const hook = await s.operator('POST', '/v1/operator/webhooks', {
      business_id: s.other.businessId,
      url: holder.url,
      event: 'all',
    });
    try {
      const place = await placeOfOther();
      const run = trigger(['order.created', ...place, '--json']);
      await holder.arrived;
      // The attempt is committed as under way (counted, no outcome) ...
      for (let i = 0; ; i++) {
        const [d] = (
          await s.operator('GET', `/v1/operator/webhooks/log?business_id=${s.other.businessId}&limit=1`)
        ).body.data;
        if (d.url === holder.url && d.attempts === 1 && d.log.length === 0) break;
        if (i >= 400) throw new Error(`the held delivery never showed as under way: ${JSON.stringify(d)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      // ... and the trigger has looked at the log since (two of its reads answered after this
      // point: the second began after the first was answered).
      // (An earlier version had finished by then: that ends the wait too, and fails below.)
      const stop = { now: false };
      await Promise.race([
        run,
        answeredAfter(await newestSeq(), '/v1/operator/webhooks/log?limit=200', 2, stop),
      ]);
      stop.now = true;
      holder.release();
      const r = await run;
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as Out).fired[0].deliveries).toEqual([
        expect.objectContaining({ url: holder.url, status: 'delivered', attempts: 1, in_flight: false }),
      ]);
      expect(r.stderr).toBe('');
    } finally {
      await s.operator('DELETE', `/v1/operator/webhooks/${hook.body.data.id}`);
      await holder.close();
    }
  });

  it('says plainly when a delivery is still under way at the end of --wait', async () => {
    const holder = await startHolder();
    const hook = await s.operator('POST', '/v1/operator/webhooks', {
      business_id: s.other.businessId,
      url: holder.url,
      event: 'all',
    });
    try {
      const place = await placeOfOther();
      // Held until the trigger is done: whatever the machine's speed, no answer can be in.
      const json = await trigger(['order.created', ...place, '--wait', '1s', '--json']);
      expect(json.code, json.stderr).toBe(0);
      const [d] = (JSON.parse(json.stdout) as Out).fired[0].deliveries;
      // Not made yet, or made and sent without an answer: either way under way.
      if (d) expect(d).toMatchObject({ url: holder.url, status: 'pending', status_code: null, error: null });
      if (d?.attempts === 1) expect(d.in_flight).toBe(true);
      expect(json.stderr).toMatch(
        /^A delivery is still under way after 1 s \(no answer recorded yet\): `partner operator webhooks log( --event-id evt_\S+)?` shows the outcome once it is in; --wait DURATION waits longer\.$/m,
      );
      await holder.arrived;
      const tty = await trigger(['order.created', ...place, '--wait', '0'], { tty: true });
      expect(tty.code, tty.stderr).toBe(0);
      expect(tty.stderr).toMatch(/still under way after 0 ms/);
      const lines = tty.stdout.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
      for (const l of lines.slice(1).filter(Boolean))
        expect(l).toMatch(/ {2}(pending \(not sent yet\)|sent, no answer yet \(still under way\))$/);
    } finally {
      await s.operator('DELETE', `/v1/operator/webhooks/${hook.body.data.id}`);
      await holder.close();
    }
  });

  it('--wait takes a duration', async () => {
    const r = await trigger(['order.created', '--wait', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --wait must be a duration of at most 10m .*, got "soon"/);
  });

  it('with no receiver registered it says so, and still fires', async () => {
    await s.operator('DELETE', `/v1/operator/webhooks/${hookId}`);
    try {
      const seq = await newestSeq();
      const r = await trigger(['order.created', '--json']);
      expect(r.code, r.stderr).toBe(0);
      // Nothing to wait for: it never read the log for deliveries (only the newest id, limit=1).
      const reads = (
        await s.operator('GET', `/v1/operator/requests?after=${seq}&path=/v1/operator/webhooks/log`)
      ).body.data.results.map((x: Out) => x.path);
      expect(reads).toEqual(['/v1/operator/webhooks/log?limit=1']);
      expect((JSON.parse(r.stdout) as Out).fired[0].deliveries).toEqual([]);
      expect(r.stderr).toMatch(
        /^No receiver is registered for business \d+ \(brand \d+, branch \d+\).*partner listen --local/,
      );
    } finally {
      hookId = (
        await s.operator('POST', '/v1/operator/webhooks', {
          business_id: s.credential.businessId,
          url: recorder.url,
          event: 'all',
        })
      ).body.data.id;
    }
  });

  it('bad input is a usage error before anything is fired', async () => {
    const orders = async () => (await call(s, 'GET', '/v1/partner/orders?size=1')).body.data.total as number;
    const n = await orders();
    const cases: [string[], RegExp][] = [
      [
        ['order.deleted'],
        /^error: unknown event "order\.deleted": one of order\.created, order\.status, order\.cart/,
      ],
      [['order.created', '--order', '5'], /^error: --order: order\.created always makes a new order/],
      [['order.cart', '--status', 'READY'], /^error: --status goes with order\.status only/],
      [['order.status', '--status', 'DONE'], /^error: --status: "DONE" is not a status id/],
      [['order.created', '--items', '21'], /^error: --items must be between 1 and 20, got "21"/],
      [
        ['order.cart', '--order', '1', '--brand', '2'],
        /^error: --business, --brand and --branch place a new order/,
      ],
    ];
    for (const [args, re] of cases) {
      const r = await trigger(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(re);
    }
    // No profile and no place: names the flags that would do.
    const r = await runCli(['trigger', 'order.created'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--business ID --brand ID --branch ID/);
    expect(await orders()).toBe(n);
  });

  it('the full event type names work too', async () => {
    const r = await trigger(['service.order.created.v2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Out).event).toBe('order.created');
  });
});

describe('the next status', () => {
  it("is the first partner move other than CANCELLED, per the server's transition table", () => {
    for (const s of STATUS_CODES) {
      const forward = allowedFrom(s).filter((t) => t !== 'CANCELLED');
      expect(NEXT_STATUS[s as StatusCode], s).toBe(forward[0]);
    }
  });
});

describe('completion of values', () => {
  // Which ids, not how fast: a budget a loaded machine cannot miss (the 350 ms default is
  // completion-values.test.ts's subject).
  const complete = async (words: string[]) =>
    (
      await runCli(['__complete', ...words], { configDir, env: { PARTNER_COMPLETION_BUDGET_MS: '10000' } })
    ).stdout
      .split('\n')
      .filter(Boolean);

  it('offers the events, statuses, and the brand and branch ids of the profile', async () => {
    expect(await complete(['trigger', ''])).toEqual(['order.cart', 'order.created', 'order.status']);
    expect(await complete(['trigger', 'order.status', '--status', 'PICK'])).toEqual(['PICKED_UP']);
    expect(
      (await complete(['trigger', 'order.created', '--brand', ''])).map((l) => l.split('\t')[0]),
    ).toContain('1');
    expect(await complete(['logs', 'tail', '--status', ''])).toEqual(['2xx', '3xx', '4xx', '5xx']);
  });
});
