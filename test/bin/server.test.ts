import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanEnv,
  ensureBuilt,
  expectNoNoise,
  type Foreground,
  foreground,
  partner,
  type Run,
  root,
  subcommands,
} from './harness.js';

// One real call of every command family through the launcher, against a local server that the
// binary itself started (`partner local start --port 0 --seed demo`: an ephemeral port, a temp
// data dir and config dir, the `local` profile it saves), as a person trying the tool would.
// The families are read from the program's own help, so a new one fails here until it has a call.

let env: Record<string, string>;
let server: Foreground;
let baseUrl: string;
/** The demo's second business credential, as `local start` prints it. */
let other: { key: string; secret: string };
const runs: Run[] = [];

async function run(args: string[], stdin?: string): Promise<Run> {
  const r = await partner(args, { env, stdin });
  runs.push(r);
  return r;
}

/** Exit 0 and nothing on stderr; the output, parsed when it is JSON. */
function ok(r: Run): string {
  expect(r.stderr, `partner ${r.args.join(' ')}`).toBe('');
  expect(r.code, `partner ${r.args.join(' ')}`).toBe(0);
  return r.stdout;
}
// biome-ignore lint/suspicious/noExplicitAny: JSON of every command's shape
const json = (r: Run): any => JSON.parse(ok(r));

beforeAll(async () => {
  ensureBuilt();
  env = cleanEnv();
  server = foreground(['local', 'start', '--port', '0', '--seed', 'demo'], { env });
  baseUrl = (await server.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  const m = (await server.waitFor(/business 2: (pk_[\w-]+):(sk_[\w-]+)/)) as RegExpMatchArray;
  other = { key: m[1]!, secret: m[2]! };
  await server.waitFor(/Stop with Ctrl-C/);
}, 120_000);

afterAll(async () => {
  const r = await server?.stop();
  if (r) {
    expect(r.code, r.stderr).toBe(0);
    expect(expectNoNoise(r)).toEqual([]);
  }
});

/** What each family's call checks; `local` is the server above, started through the binary. */
const FAMILIES = [
  'profiles',
  'auth',
  'brands',
  'branches',
  'providers',
  'price-groups',
  'orders',
  'dictionaries',
  'menu',
  'items',
  'oos-activity',
  'operator',
  'webhooks',
  'bootstrap',
  'demo',
  'listen',
  'inspect',
  'logs',
  'trigger',
  'api',
  'local',
];
/** Families that need no server: their real input runs in offline.test.ts (three cache modes). */
const OFFLINE = ['openapi', 'completion'];

describe('one real call of every command family, through the binary', () => {
  it('every family of the program has a call here or in offline.test.ts', async () => {
    const help = ok(await run(['--help']));
    const families = subcommands(help);
    expect(families.length).toBeGreaterThan(15);
    expect(families.filter((f) => !FAMILIES.includes(f) && !OFFLINE.includes(f))).toEqual([]);
    expect([...FAMILIES, ...OFFLINE].filter((f) => !families.includes(f))).toEqual([]);
  });

  it('local: the server answered and saved the default profile', async () => {
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const list = json(await run(['profiles', 'list', '--json']));
    expect(list).toEqual([expect.objectContaining({ name: 'local', base_url: baseUrl, default: true })]);
  });

  it('profiles: add one from stdin, list both', async () => {
    const add = await run(
      ['profiles', 'add', 'other', '--key', other.key, '--secret', '-', '--base-url', baseUrl],
      other.secret,
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toMatch(/^Saved profile other/);
    const list = json(await run(['profiles', 'list', '--json']));
    expect(list.map((p: { name: string }) => p.name).sort()).toEqual(['local', 'other']);
    const brands = json(await run(['--profile', 'other', 'brands', 'list', '--json']));
    expect(
      brands.flatMap((b: { brands: { title: string }[] }) => b.brands.map((x) => x.title)),
    ).not.toContain('Kopi Kita');
  });

  it('the partner API families', async () => {
    const [
      auth,
      brands,
      branches,
      providers,
      priceGroups,
      orders,
      statuses,
      countries,
      webhooks,
      bootstrap,
      api,
    ] = await Promise.all([
      run(['auth', 'status', '--json']),
      run(['brands', 'list', '--json']),
      run(['branches', 'list', '--json']),
      run(['providers', 'list', '--json']),
      run(['price-groups', 'list', '--json']),
      run(['orders', 'list', '--json']),
      run(['orders', 'statuses', '--json']),
      run(['dictionaries', 'countries', '--json']),
      run(['webhooks', 'list', '--json']),
      run(['bootstrap', '--json']),
      run(['api', 'GET', 'brands']),
    ]);
    expect(json(auth)).toMatchObject({ profile: 'local', valid: true, business: { id: 1 } });
    expect(
      json(brands).flatMap((b: { brands: { title: string }[] }) => b.brands.map((x) => x.title)),
    ).toContain('Kopi Kita');
    expect(json(branches).results.length).toBeGreaterThan(0);
    expect(json(providers).map((p: { title: string }) => p.title)).toContain('GrabFood');
    expect(json(priceGroups).length).toBeGreaterThan(0);
    expect(json(orders).results.length).toBeGreaterThan(0);
    expect(json(statuses)).toHaveLength(11);
    expect(json(countries).map((c: { code: string }) => c.code)).toContain('ID');
    expect(Array.isArray(json(webhooks))).toBe(true);
    expect(json(bootstrap)).toMatchObject({ business: expect.objectContaining({ id: 1 }) });
    expect(json(api)).toMatchObject({ request_id: expect.stringMatching(/^req_/), data: expect.any(Array) });
  }, 120_000);

  it('menu, items, oos-activity', async () => {
    const sample = join(root, 'docs/examples/menu.sample.yaml');
    const [menu, diff, item, oos] = await Promise.all([
      run(['menu', 'get', '--brand', '1', '--branch', '1', '--json']),
      run(['menu', 'diff', sample, '--brand', '2']),
      run(['items', 'availability', 'KK-V60-KINT', '--branch', '1', '--available', '--json']),
      run(['oos-activity', 'summaries', '--json']),
    ]);
    expect(json(menu)).toMatchObject({ brand_id: 1, branch_id: 1 });
    expect(ok(diff)).toMatch(/^create \d+ sections/m);
    expect(json(item)).toMatchObject({ partner_item_id: 'KK-V60-KINT', isAvailable: true });
    expect(json(oos).results.length).toBeGreaterThan(0);
  }, 120_000);

  it('operator, logs: through local.json in the data dir', async () => {
    const [businesses, logs] = await Promise.all([
      run(['operator', 'businesses', 'list', '--json']),
      run(['logs', 'tail', '--limit', '3', '--no-follow']),
    ]);
    expect(json(businesses)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 1 }), expect.objectContaining({ id: 2 })]),
    );
    expect(ok(logs).trim().split('\n').length).toBeGreaterThan(0);
    expect(logs.stdout).toMatch(/\breq_\w+/);
  }, 120_000);

  it('listen --local receives what trigger fires, verified', async () => {
    const listen = foreground(['listen', '--local', '--port', '0', '--json'], { env });
    try {
      await listen.waitFor(/Listening on http:\/\/127\.0\.0\.1:\d+/);
      const fired = await run(['trigger', 'order.status']);
      expect(ok(fired)).toMatch(/service\.order\.status\.updated/);
      const line = (await listen.waitFor(/^\{.*"event_type":"service\.order\.status\.updated".*\}$/m))[0];
      expect(JSON.parse(line)).toMatchObject({ verified: true, duplicate: false });
    } finally {
      const r = await listen.stop();
      expect(r.code, r.stderr).toBe(0);
      runs.push(r);
    }
  }, 120_000);

  it('inspect serves its page on the URL it prints', async () => {
    const inspect = foreground(['inspect'], { env });
    try {
      const url = (await inspect.waitFor(/Inspect: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/))[1]!;
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/<html/i);
    } finally {
      const r = await inspect.stop();
      expect(r.code, r.stderr).toBe(0);
      runs.push(r);
    }
  }, 120_000);

  it('demo: the tour on a throw-away server of its own', async () => {
    const r = await run(['demo', '--json']);
    // The tour's steps go to stderr; --json prints each webhook event it received on stdout.
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Done: \d+ signed events received and verified/m);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e).toMatchObject({ verified: true });
  }, 120_000);

  it('no run printed a stack trace, a Node warning or an internal error', () => {
    expect(runs.length).toBeGreaterThan(20);
    expect(runs.flatMap(expectNoNoise)).toEqual([]);
  });
});
