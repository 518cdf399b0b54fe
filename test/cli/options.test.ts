import { describe, expect, it } from 'vitest';
import { parseArgv } from './run-cli.js';

// Each hand-written command's declaration alone: argv → the typed options its run function
// receives, or the usage error (exit 2, naming the flag) it is refused with. Nothing runs: no
// server, no request, no file (parseCommandLine in src/cli/program.ts). The runs themselves are
// tested against the real server in the other files of test/cli and, through bin/partner.js, in
// test/bin.

const parsed = async (argv: string[]) => {
  const r = await parseArgv(argv);
  if ('error' in r) throw new Error(`${argv.join(' ')}: ${r.error}`);
  return r;
};
const refused = async (argv: string[]) => {
  const r = await parseArgv(argv);
  if (!('error' in r)) throw new Error(`${argv.join(' ')} was accepted: ${JSON.stringify(r.options)}`);
  return r.error;
};

describe('local start', () => {
  it('defaults, and every flag typed', async () => {
    expect((await parsed(['local', 'start'])).options).toEqual({
      port: 8787,
      host: '127.0.0.1',
      data: undefined,
      database: undefined,
      seed: 'none',
      retrySchedule: undefined,
      durability: 'normal',
      sealKeyFile: undefined,
      operatorTokenFile: undefined,
      inspect: false,
      inspectPort: undefined,
      open: false,
    });
    const all = await parsed([
      'local',
      'start',
      '--port',
      '0',
      '--data',
      'd',
      '--seed',
      'demo',
      '--retry-schedule',
      '1s,2m,10',
      '--durability',
      'full',
      '--open',
      '--inspect-port',
      '7000',
    ]);
    expect(all.options).toMatchObject({
      port: 0,
      data: 'd',
      seed: 'demo',
      retrySchedule: [1000, 120_000, 10_000],
      durability: 'full',
      open: true,
      inspectPort: 7000,
    });
  });
  it('refuses a bad port or schedule, naming the flag', async () => {
    expect(await refused(['local', 'start', '--port', '70000'])).toBe('--port must be 0–65535, got "70000"');
    expect(await refused(['local', 'start', '--inspect-port', 'x'])).toBe(
      '--inspect-port must be 0–65535, got "x"',
    );
    expect(await refused(['local', 'start', '--retry-schedule', '1s,soon'])).toBe(
      '--retry-schedule: "soon" is not a duration such as 500ms, 10s, 5m or 2h',
    );
  });
});

describe('listen', () => {
  it('typed options', async () => {
    const r = await parsed([
      'listen',
      '--port',
      '0',
      '--events',
      'service.order.cart.updated',
      '--local',
      '--inspect',
    ]);
    expect(r.options).toEqual({
      port: 0,
      host: '127.0.0.1',
      secret: undefined,
      events: ['service.order.cart.updated'],
      forwardTo: undefined,
      local: true,
      data: undefined,
      inspect: true,
      inspectPort: undefined,
      open: false,
    });
    expect((await parsed(['listen'])).options.port).toBe(4242);
  });
  it('refuses an unknown event type and a forward URL that is not http(s)', async () => {
    expect(await refused(['listen', '--events', 'order.nope'])).toMatch(
      /^--events: unknown event type "order.nope"/,
    );
    expect(await refused(['listen', '--forward-to', 'ftp://x'])).toBe(
      '--forward-to must be an http(s) URL, got "ftp://x"',
    );
  });
});

describe('inspect', () => {
  it('typed options; a bad port refused', async () => {
    expect((await parsed(['inspect', '--open', '--data', 'd'])).options).toEqual({
      port: 0,
      open: true,
      data: 'd',
      server: undefined,
      token: undefined,
    });
    expect(await refused(['inspect', '--port', 'x'])).toBe('--port must be 0–65535, got "x"');
  });
});

describe('trigger', () => {
  it('ids, a status, items and a wait typed', async () => {
    const r = await parsed([
      'trigger',
      'order.status',
      '--order',
      '7',
      '--status',
      'picked_up',
      '--wait',
      '2m',
    ]);
    expect(r.args).toEqual(['order.status']);
    expect(r.options).toMatchObject({ order: 7, status: 'PICKED UP', wait: 120_000, items: undefined });
    expect((await parsed(['trigger', 'order.status', '--status', '4'])).options.status).toBe('READY');
    expect((await parsed(['trigger', 'order.created', '--wait', '0'])).options.wait).toBe(0);
  });
  it('refuses each bad value, naming the flag', async () => {
    expect(await refused(['trigger', 'order.created', '--items', '21'])).toBe(
      '--items must be between 1 and 20, got "21"',
    );
    expect(await refused(['trigger', 'order.created', '--brand', '0'])).toBe(
      '--brand must be a positive integer, got "0"',
    );
    expect(await refused(['trigger', 'order.created', '--wait', '11m'])).toMatch(
      /^--wait must be a duration of at most 10m/,
    );
    expect(await refused(['trigger', 'order.status', '--status', 'SOON'])).toMatch(
      /^--status: "SOON" is not a status id/,
    );
  });
});

describe('logs tail', () => {
  it('filters and bounds typed', async () => {
    const r = await parsed([
      'logs',
      'tail',
      '--status',
      '4xx,404',
      '--status',
      '5XX',
      '--path',
      'orders',
      '--method',
      'get',
      '--limit',
      '5',
      '--no-follow',
    ]);
    expect(r.options).toMatchObject({
      status: '4xx,404,5xx',
      path: '/v1/partner/orders',
      method: 'GET',
      limit: 5,
      follow: false,
    });
    expect((await parsed(['logs', 'tail'])).options.follow).toBe(true);
  });
  it('refuses a bad status, method or limit', async () => {
    expect(await refused(['logs', 'tail', '--status', '99'])).toMatch(/^--status: "99" is not a status/);
    expect(await refused(['logs', 'tail', '--method', 'FETCH'])).toMatch(
      /^--method must be one of GET, POST/,
    );
    expect(await refused(['logs', 'tail', '--limit', '0'])).toBe(
      '--limit must be between 1 and 1000, got "0"',
    );
  });
});

describe('auth and profiles', () => {
  it('auth login: trimmed texts, the --default/--no-default switch in three states', async () => {
    const r = await parsed([
      'auth',
      'login',
      '--name',
      ' prod ',
      '--key',
      'pk_1',
      '--storage',
      'file',
      '--no-default',
    ]);
    expect(r.options).toEqual({
      name: 'prod',
      key: 'pk_1',
      secret: undefined,
      webhookSecret: undefined,
      storage: 'file',
      default: false,
      yes: false,
    });
    expect((await parsed(['auth', 'login', '--default'])).options.default).toBe(true);
    expect((await parsed(['auth', 'login'])).options.default).toBeUndefined();
    expect((await parsed(['auth', 'status'])).options).toEqual({});
  });
  it('profiles add / remove / move', async () => {
    const add = await parsed([
      'profiles',
      'add',
      'p',
      '--key',
      'pk',
      '--secret',
      '-',
      '--default-brand',
      '3',
    ]);
    expect(add.args).toEqual(['p']);
    expect(add.options).toMatchObject({
      key: 'pk',
      secret: '-',
      defaultBrand: 3,
      defaultBranch: undefined,
      default: false,
    });
    expect(await refused(['profiles', 'add', 'p', '--default-branch', 'x'])).toBe(
      '--default-branch must be a positive integer, got "x"',
    );
    expect((await parsed(['profiles', 'remove', 'p', '-y'])).options).toEqual({ yes: true });
    expect((await parsed(['profiles', 'move', 'p', '--to', 'keyring'])).options).toEqual({ to: 'keyring' });
  });
});

describe('webhooks, api', () => {
  it('webhooks verify needs --signature', async () => {
    expect((await parsed(['webhooks', 'verify', 'f', '--signature', 'ab', '--secret', 's'])).options).toEqual(
      {
        secret: 's',
        signature: 'ab',
      },
    );
    expect(await refused(['webhooks', 'verify', 'f'])).toBe('missing required flag --signature');
  });
  it('api: repeated fields kept whole, the global output flags it reads', async () => {
    const r = await parsed([
      'api',
      'GET',
      'orders',
      '-f',
      'a=1,2',
      '-f',
      'b=3',
      '-H',
      'X: y',
      '--paginate',
      '--jq',
      '.data',
    ]);
    expect(r.args).toEqual(['GET', 'orders']);
    expect(r.options).toMatchObject({
      rawField: ['a=1,2', 'b=3'],
      field: [],
      header: ['X: y'],
      paginate: true,
      include: false,
      jq: '.data',
    });
    expect(await refused(['api', 'POST', 'brands', '--idempotency-key', 'k'.repeat(65)])).toBe(
      '--idempotency-key must be 1 to 64 characters',
    );
  });
});

describe('flows', () => {
  it('bootstrap and demo', async () => {
    expect((await parsed(['bootstrap', '--brand', '2'])).options).toEqual({ brand: 2, branch: undefined });
    expect(await refused(['bootstrap', '--branch', '-1'])).toMatch(/^--branch must be a positive integer/);
    expect((await parsed(['demo'])).options).toEqual({ timeout: 10_000 });
    expect((await parsed(['demo', '--timeout', '1m30s'])).options).toEqual({ timeout: 90_000 });
    expect(await refused(['demo', '--timeout', '0'])).toMatch(/^--timeout must be a duration/);
  });
  it('orders watch: statuses as ids, durations in ms; a bare number is seconds', async () => {
    const r = await parsed([
      'orders',
      'watch',
      '--status',
      'accepted,1,PLACED',
      '--interval',
      '500ms',
      '--duration',
      '90',
      '--max-polls',
      '2',
    ]);
    expect(r.options).toEqual({
      branch: undefined,
      status: [1, 2],
      interval: 500,
      since: undefined,
      maxPolls: 2,
      duration: 90_000,
      overlap: undefined,
    });
    expect((await parsed(['orders', 'watch'])).options.interval).toBe(2000);
    expect(await refused(['orders', 'watch', '--interval', '50ms'])).toMatch(
      /^--interval must be a duration of at least 100ms/,
    );
    expect(await refused(['orders', 'watch', '--max-polls', '0'])).toBe(
      '--max-polls must be a positive integer, got "0"',
    );
  });
  it('menu push and diff: branch ids repeated or comma-separated, concurrency bounded', async () => {
    const push = await parsed([
      'menu',
      'push',
      'm.yaml',
      '--brand',
      '1',
      '--branch',
      '2,3',
      '--branch',
      '2',
      '--dry-run',
    ]);
    expect(push.args).toEqual(['m.yaml']);
    expect(push.options).toEqual({
      brand: 1,
      branch: [2, 3],
      state: undefined,
      resetState: false,
      dryRun: true,
      yes: false,
      concurrency: 4,
      republish: false,
    });
    expect(await refused(['menu', 'push', 'm.yaml', '--concurrency', '17'])).toBe(
      '--concurrency must be between 1 and 16, got "17"',
    );
    expect(await refused(['menu', 'diff', 'm.yaml', '--branch', '2,x'])).toBe(
      '--branch must be a positive integer, got "x"',
    );
    expect((await parsed(['menu', 'diff', 'm.yaml', '--exit-code'])).options).toMatchObject({
      exitCode: true,
    });
  });
});

describe('commands without options of their own', () => {
  it('openapi, completion, menu schema take none', async () => {
    for (const argv of [['openapi'], ['completion', 'bash'], ['menu', 'schema'], ['profiles', 'list']])
      expect((await parsed(argv)).options, argv.join(' ')).toEqual({});
  });
});
