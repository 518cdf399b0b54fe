import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithProfile } from '../helpers/profile.js';
import { call, type TestServer } from '../helpers/server.js';
import { fakePrompter, runCli, tempDir } from './run-cli.js';

// Every command runs in-process with an injected Io against the real server (SQLite file)
// on 127.0.0.1, with TTY on and off and a scripted prompter.

let s: TestServer;
let configDir: string;

beforeAll(async () => {
  ({ s, configDir } = await startWithProfile());
});
afterAll(async () => {
  await s?.close();
});

const cli = (argv: string[], o: Parameters<typeof runCli>[1] = {}) => runCli(argv, { configDir, ...o });
const ANSI = /\u001b\[/;

async function firstOrder(): Promise<{ id: number; status: number }> {
  const r = await call(s, 'GET', '/v1/partner/orders?size=100');
  return r.body.data.results[0];
}

async function newOrder(): Promise<number> {
  const brands = (await call(s, 'GET', '/v1/partner/brands')).body.data[0].brands;
  const branches = (await call(s, 'GET', '/v1/partner/branches')).body.data.results;
  const branch = branches.find((b: { brand_ids: number[] }) => b.brand_ids.includes(brands[0].id));
  const r = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    brand_id: brands[0].id,
    branch_id: branch.id,
    items: 1,
  });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

describe('output', () => {
  it('--json prints exactly the data payload', async () => {
    const r = await cli(['brands', 'list', '--json']);
    expect(r.code).toBe(0);
    const direct = await call(s, 'GET', '/v1/partner/brands');
    expect(JSON.parse(r.stdout)).toEqual(direct.body.data);
    expect(r.stderr).toBe('');
  });

  it('on a TTY: a table with headers', async () => {
    const r = await cli(['brands', 'list'], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ID\s+TITLE\s+BUSINESS/m);
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('off a TTY: tab-separated rows, no header, no colour', async () => {
    const r = await cli(['branches', 'list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l.split('\t')[0]).toMatch(/^\d+$/);
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('colours on a TTY unless NO_COLOR or --no-color', async () => {
    expect((await cli(['brands', 'list'], { tty: true })).stdout).toMatch(ANSI);
    expect((await cli(['brands', 'list'], { tty: true, env: { NO_COLOR: '1' } })).stdout).not.toMatch(ANSI);
    expect((await cli(['brands', 'list', '--no-color'], { tty: true })).stdout).not.toMatch(ANSI);
  });

  it('shows order status names from the dictionary on a TTY', async () => {
    const r = await cli(['orders', 'list', '--no-color'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/STATUS/);
    expect(r.stdout).toMatch(/PLACED|ACCEPTED|READY|PENDING|SCHEDULED|DELIVERED|CANCELLED/);
    expect(r.stdout).toMatch(/ago|just now/);
  });

  it('orders statuses --json is the 11-row dictionary', async () => {
    const r = await cli(['orders', 'statuses', '--json']);
    expect(JSON.parse(r.stdout).map((x: { status: string }) => x.status)).toHaveLength(11);
  });

  it('--verbose logs each request on stderr', async () => {
    const r = await cli(['brands', 'list', '--verbose', '--json']);
    expect(r.stderr).toMatch(
      /GET http:\/\/127\.0\.0\.1:\d+\/v1\/partner\/brands → 200 in \d+ ms \(request_id req_/,
    );
    expect(JSON.parse(r.stdout)).toBeInstanceOf(Array);
  });

  it('--help shows the example', async () => {
    const r = await cli(['branches', 'list', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Example:');
    expect(r.stdout).toContain('partner branches list --page 1 --size 50');
    expect(r.stdout).toContain('--all');
  });
});

describe('pagination', () => {
  it('--all fetches every page; --json prints them as one page', async () => {
    const total = (await call(s, 'GET', '/v1/partner/branches')).body.data.total;
    const r = await cli(['branches', 'list', '--all', '--size', '1', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).results).toHaveLength(total);
  });

  it('a page on a TTY says where it is', async () => {
    const r = await cli(['branches', 'list', '--size', '1', '--no-color'], { tty: true });
    expect(r.stdout).toMatch(/1–1 of \d+ · --page 2 for more/);
  });

  it('a page size out of bounds is refused before any request (exit 2, naming the flag)', async () => {
    const r = await cli(['branches', 'list', '--size', '500']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--size must be between 1 and 100, got "500"/);
  });
});

describe('exit codes against the real server', () => {
  it('403 → 3 for a missing scope', async () => {
    const c = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['orders:read'] });
    const r = await cli(['brands', 'list'], {
      env: { PARTNER_KEY: c.key, PARTNER_SECRET: c.secret, PARTNER_BASE_URL: s.baseUrl },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/auth_forbidden/);
  });

  it('credentials over http to a non-loopback host → 2 unless --insecure', async () => {
    const r = await cli(['brands', 'list', '--base-url', 'http://0.0.0.0:1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--insecure/);
    const insecure = await cli(['brands', 'list', '--base-url', 'http://0.0.0.0:1', '--insecure']);
    expect(insecure.code).toBe(7);
  });

  it('usage errors → 2: unknown command, unknown flag, bad argument, bad --data', async () => {
    expect((await cli(['brands', 'lst'])).code).toBe(2);
    expect((await cli(['brands', 'list', '--bogus'])).code).toBe(2);
    const bad = await cli(['branches', 'get', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/ID must be a positive integer/);
    const data = await cli(['branches', 'update', '1', '--data', '{oops']);
    expect(data.code).toBe(2);
    expect(data.stderr).toMatch(/--data is not valid JSON/);
    expect(data.stderr).not.toMatch(/\n\s+at /);
    const file = await cli(['branches', 'create', '--data', '@/nonexistent/branch.json']);
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/cannot read \/nonexistent\/branch.json/);
  });
});

describe('writes', () => {
  it('creates with flags; a missing required flag is a usage error off a TTY and a prompt on one', async () => {
    const missing = await cli(['brands', 'create']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing required flag --title/);

    const prompter = fakePrompter(['Prompted Brand']);
    const prompted = await cli(['brands', 'create', '--json'], { tty: true, prompter });
    expect(prompted.code).toBe(0);
    expect(prompter.calls[0]!.message).toMatch(/title/);
    expect(JSON.parse(prompted.stdout).title).toBe('Prompted Brand');

    const flagged = await cli(['brands', 'create', '--title', 'Flag Brand', '--json']);
    expect(JSON.parse(flagged.stdout)).toMatchObject({
      title: 'Flag Brand',
      business_id: s.credential.businessId,
    });
  });

  it('flags override fields of --data', async () => {
    const r = await cli([
      'price-groups',
      'create',
      '--data',
      '{"title":"From data","description":"d"}',
      '--title',
      'From flag',
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ title: 'From flag', description: 'd' });
  });

  it('--idempotency-key replays the same answer', async () => {
    const key = `cli-test-${Date.now()}`;
    const a = await cli(['price-groups', 'create', '--title', 'Once', '--idempotency-key', key, '--json']);
    const b = await cli(['price-groups', 'create', '--title', 'Once', '--idempotency-key', key, '--json']);
    expect(a.code).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual(JSON.parse(a.stdout));
    const c = await cli(['price-groups', 'create', '--title', 'Other', '--idempotency-key', key]);
    expect(c.code).toBe(5);
  });

  it('deletes ask first: --yes, a confirmation on a TTY, a usage error without one', async () => {
    const mk = async () =>
      JSON.parse((await cli(['price-groups', 'create', '--title', `Del ${Math.random()}`, '--json'])).stdout)
        .id;
    const id = await mk();
    const noTty = await cli(['price-groups', 'delete', String(id)]);
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toMatch(/--yes/);

    const declined = await cli(['price-groups', 'delete', String(id)], {
      tty: true,
      prompter: fakePrompter([false]),
    });
    expect(declined.code).toBe(1);
    expect(
      (await call(s, 'GET', '/v1/partner/price/groups')).body.data.some((g: { id: number }) => g.id === id),
    ).toBe(true);

    const confirmed = await cli(['price-groups', 'delete', String(id), '--json'], {
      tty: true,
      prompter: fakePrompter([true]),
    });
    expect(confirmed.code).toBe(0);
    expect(JSON.parse(confirmed.stdout)).toEqual({ id, deleted: true });

    const id2 = await mk();
    expect((await cli(['price-groups', 'delete', String(id2), '--yes'])).code).toBe(0);
  });

  it('orders patch ID --status S [--reason TEXT]', async () => {
    const id = await newOrder();
    const r = await cli(['orders', 'patch', String(id), '--status', 'ACCEPTED', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id, status: 2 });

    const noReason = await cli(['orders', 'patch', String(id), '--status', 'CANCELLED']);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toMatch(/--reason is required/);

    const cancelled = await cli([
      'orders',
      'patch',
      String(id),
      '--status',
      '3',
      '--reason',
      'out of rice',
      '--json',
    ]);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: 3, cancellation_reason: 'out of rice' });
  });

  it('orders patch prompts for the status and reason on a TTY', async () => {
    const id = await newOrder();
    const prompter = fakePrompter(['CANCELLED', 'customer left']);
    const r = await cli(['orders', 'patch', String(id), '--json'], { tty: true, prompter });
    expect(r.code).toBe(0);
    expect(prompter.calls.map((c) => c.kind)).toEqual(['select', 'input']);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 3, cancellation_reason: 'customer left' });
  });

  it('orders comment ID TEXT', async () => {
    const { id } = await firstOrder();
    const r = await cli(['orders', 'comment', String(id), 'extra chili', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).comment).toBe('extra chili');
    const missing = await cli(['orders', 'comment', String(id)]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing TEXT/);
  });
});

describe('items (hand-written)', () => {
  it('availability, stock and snooze show in the menu tree', async () => {
    const menu = JSON.parse((await cli(['menu', 'get', '--json'])).stdout);
    const brand = menu.brands[0];
    const sku: string = brand.sections[0].categories[0].items[0].partner_item_id;
    const branches = (await call(s, 'GET', '/v1/partner/branches?size=100')).body.data.results;
    const branch = branches.find((b: { brand_ids: number[] }) => b.brand_ids.includes(brand.brand_id)).id;
    const off = await cli([
      'items',
      'availability',
      sku,
      '--branch',
      String(branch),
      '--unavailable',
      '--json',
    ]);
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ partner_item_id: sku, isAvailable: false });
    const stock = await cli(['items', 'stock', '--branch', String(branch), `${sku}=4`, '--json']);
    expect(stock.code).toBe(0);
    expect(JSON.parse(stock.stdout).items[0]).toMatchObject({ partner_item_id: sku, stock: 4 });
    const unknown = await cli(['items', 'stock', '--branch', String(branch), 'NO-SUCH-SKU=1']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/resource_unmapped/);
    const snooze = await cli(['items', 'snooze', sku, '--branch', String(branch), '--for', '30m', '--json'], {
      now: Date.now(),
    });
    expect(snooze.code).toBe(0);
    const until = Date.parse(JSON.parse(snooze.stdout).snoozed_until);
    expect(Math.abs(until - (Date.now() + 30 * 60_000))).toBeLessThan(60_000);
    const tree = await cli(
      ['menu', 'get', '--brand', String(brand.brand_id), '--branch', String(branch), '--no-color'],
      { tty: true },
    );
    expect(tree.code).toBe(0);
    expect(tree.stdout).toMatch(
      new RegExp(`${sku}.*\\[out of stock\\].*\\[stock 4\\].*\\[snoozed until in 30 minutes\\]`),
    );
  });

  it('items availability SKU --branch ID --unavailable', async () => {
    const missing = await cli(['items', 'availability', 'SKU-X', '--branch', '1']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--available or --unavailable/);
  });

  it('items snooze needs --until or --for', async () => {
    const r = await cli(['items', 'snooze', 'SKU-X', '--branch', '1', '--for', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--for expects a duration/);
  });

  it('items stock needs SKU=N pairs', async () => {
    const r = await cli(['items', 'stock', '--branch', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SKU=N/);
  });
});

describe('operator commands', () => {
  it('read local.json from --data DIR (or $PARTNER_DATA_DIR) and manage credentials', async () => {
    const list = await cli(['operator', 'businesses', 'list', '--json', '--data', s.dataDir]);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).length).toBeGreaterThanOrEqual(2);

    const env = { PARTNER_DATA_DIR: s.dataDir };
    const created = await cli(
      [
        'operator',
        'credentials',
        'create',
        '--business',
        String(s.credential.businessId),
        '--scopes',
        'brands:read',
        '--rate-limit',
        '120',
        '--json',
      ],
      { env },
    );
    expect(created.code).toBe(0);
    const cred = JSON.parse(created.stdout);
    expect(cred).toMatchObject({
      business_id: s.credential.businessId,
      scopes: ['brands:read'],
      rate_limit: 120,
    });
    expect(cred.secret).toMatch(/^sk_/);

    const scoped = await cli(
      ['operator', 'credentials', 'scopes', cred.key, '--set', 'brands:read,orders:read', '--json'],
      { env },
    );
    expect(JSON.parse(scoped.stdout).scopes).toEqual(['brands:read', 'orders:read']);

    const rotated = await cli(['operator', 'credentials', 'rotate', cred.key, '--grace', '0', '--json'], {
      env,
    });
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout).secret).not.toBe(cred.secret);

    const revoked = await cli(['operator', 'credentials', 'revoke', cred.key, '--json', '--yes'], {
      env: {},
      configDir,
    }).then(() =>
      cli([
        'operator',
        'credentials',
        'revoke',
        cred.key,
        '--json',
        '--yes',
        '--server',
        s.baseUrl,
        '--token',
        s.operatorToken,
      ]),
    );
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout).revoked_at).not.toBeNull();
  });

  it('without a local server: a usage error naming the way out', async () => {
    const r = await cli(['operator', 'businesses', 'list'], { env: { PARTNER_DATA_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/partner local start/);
  });

  it('operator businesses create --title T', async () => {
    const r = await cli(['operator', 'businesses', 'create', '--title', 'CLI Biz', '--json'], {
      env: { PARTNER_DATA_DIR: s.dataDir },
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).title).toBe('CLI Biz');
  });
});

describe('partner api', () => {
  it('prints the whole envelope', async () => {
    const r = await cli(['api', 'GET', 'brands']);
    expect(r.code).toBe(0);
    const env = JSON.parse(r.stdout);
    expect(env.request_id).toMatch(/^req_/);
    expect(env.data).toBeInstanceOf(Array);
  });

  it('prints error envelopes too, with the exit code of the status', async () => {
    const r = await cli(['api', 'GET', '/v1/partner/branches/999999']);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout).error.code).toBe('resource_not_found');
  });

  it('-f fields become the body of writes and the query of reads', async () => {
    const w = await cli(['api', 'POST', 'price/groups', '-f', 'title=Via api']);
    expect(w.code).toBe(0);
    expect(JSON.parse(w.stdout).data.title).toBe('Via api');
    const q = await cli(['api', 'GET', 'branches', '-f', 'size=1']);
    expect(JSON.parse(q.stdout).data.size).toBe(1);
  });

  it('talks to the operator API with the local token', async () => {
    const r = await cli(['api', 'GET', '/v1/operator/businesses', '--data-dir', s.dataDir]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).data.length).toBeGreaterThanOrEqual(2);
  });

  it('rejects a bad method', async () => {
    expect((await cli(['api', 'FETCH', 'brands'])).code).toBe(2);
  });
});

describe('offline commands', () => {
  it('openapi prints the OpenAPI 3.1 document', async () => {
    const r = await cli(['openapi']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/partner/branches'].get.operationId).toBe('listBranches');
  });

  it('completion scripts and the completer', async () => {
    for (const sh of ['bash', 'zsh', 'fish']) {
      const r = await cli(['completion', sh]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('partner __complete');
    }
    expect((await cli(['completion', 'tcsh'])).code).toBe(2);
    expect((await cli(['__complete', 'ord'])).stdout).toBe('orders\n');
    expect((await cli(['__complete', 'orders', 'p'])).stdout).toBe('patch\n');
    expect((await cli(['__complete', 'branches', 'list', '--a'])).stdout).toBe('--all\n');
  });

  it('no arguments prints help and exits 0; --version prints the version', async () => {
    const help = await cli([]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: partner');
    expect((await cli(['--version'])).stdout.trim()).toBe('0.0.0-test');
  });
});
