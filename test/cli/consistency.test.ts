import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripAnsi } from '../../src/cli/output/display-width.js';
import { startWithProfile } from '../helpers/profile.js';
import { call, type TestServer } from '../helpers/server.js';
import { fakePrompter, profileDir, runCli, tempDir } from './run-cli.js';

// One voice everywhere: the same error prefix, hints that name what the user really did, the
// same confirmation rule for every destructive command, completion that offers values.

let s: TestServer;
let configDir: string;
beforeAll(async () => {
  ({ s, configDir } = await startWithProfile());
});
afterAll(async () => {
  await s?.close();
});

describe('error format', () => {
  it("commander's own errors and ours share the prefix 'error: '", async () => {
    const unknown = await runCli(['branches', 'list', '--bogus'], { configDir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown option '--bogus'/);
    const ours = await runCli(['orders', 'list', '--size', '0'], { configDir });
    expect(ours.code).toBe(2);
    expect(ours.stderr).toMatch(/^error: --size must be between 1 and 100/);
    const api = await runCli(['branches', 'get', '999999'], { configDir });
    expect(api.code).toBe(4);
    expect(api.stderr).toMatch(/^error: resource_not_found: /);
  });

  it('listen on a port in use: exit 2, the common format, a flag listen has', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runCli(['listen', '--port', String(port), '--secret', 'whsec_x'], { configDir });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`error: port ${port} is in use: pass --port N (0 picks a free one)\n`);
    } finally {
      blocker.close();
    }
  });

  it('listen --local without a local server suggests what listen itself takes', async () => {
    const r = await runCli(['listen', '--local', '--port', '0', '--data', tempDir()], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --local/);
    expect(r.stderr).toMatch(/partner local start/);
    expect(r.stderr).toMatch(/--data DIR/);
    expect(r.stderr).not.toMatch(/--server|--token/);
  });
});

describe('the wrong-secret hint names where the credential came from', () => {
  const wrong = { key: '', secret: 'sk_wrong_secret_value_000000000000' };

  it('a profile: update that profile', async () => {
    const dir = profileDir(s.baseUrl, { ...wrong, key: s.credential.key });
    const r = await runCli(['brands', 'list'], { configDir: dir });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/auth_invalid_credential/);
    expect(r.stderr).toMatch(/hint: .*profile "local".*partner profiles add local/);
    expect(r.stderr).not.toMatch(/PARTNER_SECRET/);
  });

  it('PARTNER_KEY/PARTNER_SECRET: check the environment, not a profile', async () => {
    const r = await runCli(['brands', 'list'], {
      configDir: tempDir(),
      env: { PARTNER_KEY: s.credential.key, PARTNER_SECRET: wrong.secret, PARTNER_BASE_URL: s.baseUrl },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/hint: .*PARTNER_KEY\/PARTNER_SECRET/);
    expect(r.stderr).not.toMatch(/profiles add/);
  });
});

describe('operator credentials revoke asks first', () => {
  const revokedAt = async (key: string) =>
    (
      (await s.operator('GET', '/v1/operator/credentials')).body.data as {
        key: string;
        revoked_at: string | null;
      }[]
    ).find((c) => c.key === key)?.revoked_at;
  const issue = () => s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });

  it('without a terminal and without --yes: exit 2, nothing revoked', async () => {
    const cred = await issue();
    const r = await runCli(['operator', 'credentials', 'revoke', cred.key, '--data', s.dataDir], {
      configDir,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*pass --yes/);
    expect(await revokedAt(cred.key)).toBeNull();
  });

  it('on a terminal: "no" keeps it, "yes" revokes; --yes does not ask', async () => {
    const cred = await issue();
    const no = fakePrompter([false]);
    const r1 = await runCli(['operator', 'credentials', 'revoke', cred.key, '--data', s.dataDir], {
      configDir,
      tty: true,
      prompter: no,
    });
    expect(r1.code).toBe(1);
    expect(no.calls[0]!.message).toMatch(new RegExp(`Revoke credential ${cred.key}`));
    expect(await revokedAt(cred.key)).toBeNull();
    const r2 = await runCli(['operator', 'credentials', 'revoke', cred.key, '--data', s.dataDir], {
      configDir,
      tty: true,
      prompter: fakePrompter([true]),
    });
    expect(r2.code).toBe(0);
    expect(await revokedAt(cred.key)).not.toBeNull();
    const other = await issue();
    const r3 = await runCli(['operator', 'credentials', 'revoke', other.key, '--yes', '--data', s.dataDir], {
      configDir,
      tty: true,
    });
    expect(r3.code).toBe(0);
    expect(await revokedAt(other.key)).not.toBeNull();
  });
});

describe('shell completion offers values', () => {
  const complete = async (words: string[], dir = configDir) =>
    (await runCli(['__complete', ...words], { configDir: dir })).stdout.split('\n').filter(Boolean);

  it('--status: the statuses that command takes', async () => {
    expect(await complete(['orders', 'patch', '24', '--status', ''])).toEqual([
      'ACCEPTED',
      'CANCELLED',
      'DELIVERED',
      'READY',
    ]);
    expect(await complete(['orders', 'patch', '24', '--status', 'RE'])).toEqual(['READY']);
    const list = await complete(['orders', 'list', '--status', '']);
    expect(list).toContain('PLACED');
    expect(list).toContain('DRIVER_ASSIGNED');
    expect(list).toHaveLength(11);
    expect(await complete(['orders', 'watch', '--status', 'pi'])).toEqual(['PICKED_UP']);
  });

  it('--profile: the stored profile names, not commands', async () => {
    const dir = profileDir(s.baseUrl, s.credential);
    await runCli(
      ['profiles', 'add', 'staging', '--key', 'pk_x', '--secret', 'sk_x', '--base-url', s.baseUrl],
      {
        configDir: dir,
      },
    );
    expect(await complete(['--profile', ''], dir)).toEqual(['local', 'staging']);
    expect(await complete(['orders', 'list', '--profile', 'st'], dir)).toEqual(['staging']);
    expect(await complete(['profiles', 'use', ''], dir)).toEqual(['local', 'staging']);
    expect(await complete(['profiles', 'move', ''], dir)).toEqual(['local', 'staging']);
  });

  it('other closed sets: listen --events, completion SHELL', async () => {
    expect(await complete(['listen', '--events', ''])).toContain('service.order.created.v2');
    expect(await complete(['completion', ''])).toEqual(['bash', 'fish', 'zsh']);
  });
});

describe('orders get on a terminal', () => {
  it('shows the cart as a table, not truncated JSON', async () => {
    const orders = (await call(s, 'GET', '/v1/partner/orders?size=1')).body.data.results as {
      id: number;
      cart: { title: string }[];
    }[];
    const order = orders[0]!;
    const r = await runCli(['orders', 'get', String(order.id)], { configDir, tty: true });
    expect(r.code).toBe(0);
    const text = stripAnsi(r.stdout);
    expect(text).not.toMatch(/\[\{"/);
    expect(text).not.toContain('…');
    expect(text).toMatch(/QTY\s+ITEM\s+SKU\s+UNIT PRICE\s+TOTAL/);
    for (const line of order.cart) expect(text).toContain(line.title);
    expect(text).toMatch(/status\s+\S+ \(\d+\)/);
  });
});
