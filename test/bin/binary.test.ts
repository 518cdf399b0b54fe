import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { runCli } from '../cli/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { BUSY_TIMEOUT, ensureBuilt, root } from './harness.js';

// The built binary, spawned: the exit-code table, --json output, the no-TTY no-hang rule, the
// config file's mode and that no secret leaks. Needs `npm run build` (done here if dist is missing).

const bin = join(root, 'bin/partner.js');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

let s: TestServer;
let configDir: string;
const outputs: Run[] = [];

function partner(
  args: string[],
  o: { env?: Record<string, string>; stdin?: 'closed' | 'open' | string; timeoutMs?: number } = {},
): Promise<Run> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: tempDir('partner-home-'),
    PARTNER_CONFIG_DIR: configDir,
    ...o.env,
  };
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env,
      stdio: [o.stdin === 'closed' || o.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
    });
    if (typeof o.stdin === 'string' && o.stdin !== 'open') child.stdin?.end(o.stdin);
    // 'open': a pipe nobody writes to or closes, as in `cmd | partner …` waiting forever.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`partner ${args.join(' ')} hung (killed after ${o.timeoutMs ?? 60_000} ms)`));
    }, o.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const r = { code, stdout, stderr, ms: Date.now() - started };
      outputs.push(r);
      resolve(r);
    });
  });
}

beforeAll(async () => {
  ensureBuilt();
  s = await startTestServer({ seed: 'demo' });
  configDir = tempDir('partner-bin-cfg-');
  const add = await partner(
    ['profiles', 'add', 'local', '--key', s.credential.key, '--secret', '-', '--base-url', s.baseUrl],
    {
      stdin: s.credential.secret,
    },
  );
  expect(add.code).toBe(0);
}, 60_000);

afterAll(async () => {
  await s?.close();
});

describe('the binary', { timeout: BUSY_TIMEOUT }, () => {
  it('--version prints the package version', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await partner([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
    }
  });

  it('answers --version in the launcher, without loading the bundle; without dist/ says to build', () => {
    // The launcher and package.json alone, no dist/ beside them: only a launcher that never
    // imports the bundle for --version can answer.
    const dir = mkdtempSync(join(tmpdir(), 'partner-launcher-'));
    try {
      cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
      copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
      const v = spawnSync(process.execPath, [join(dir, 'bin/partner.js'), '--version'], { encoding: 'utf8' });
      expect(v.status, v.stderr).toBe(0);
      expect(v.stdout).toBe(`${version}\n`);
      // The same launcher does need the bundle for anything else, and says so in one line.
      for (const args of [['--help'], ['brands', 'list'], ['webhooks', 'sign', 'x']]) {
        const other = spawnSync(process.execPath, [join(dir, 'bin/partner.js'), ...args], {
          encoding: 'utf8',
        });
        expect(other.status).toBe(1);
        expect(other.stdout).toBe('');
        expect(other.stderr).toBe(
          `partner: not built (${join(dir, 'dist')} is missing or incomplete): run \`npm run build\` in ${dir}\n`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes the config file with mode 0600', () => {
    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).default).toBe('local');
  });

  it('--json prints the data payload, parseable, nothing else on stdout', async () => {
    const r = await partner(['branches', 'list', '--json']);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout);
    expect(Object.keys(data).sort()).toEqual(['page', 'results', 'size', 'total']);
    expect(r.stderr).toBe('');
  });

  it('off a TTY prints no decoration (no colour codes, no spinner) on stdout', async () => {
    const r = await partner(['brands', 'list'], { env: { FORCE_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/\u001b/);
    expect(r.stderr).toBe('');
  });

  describe('exit-code table (docs/cli.md)', () => {
    it('0 ok', async () => {
      expect((await partner(['providers', 'list'])).code).toBe(0);
    });
    it('1 other failure (400 from the server)', async () => {
      // A range over 90 days sent raw through `api` (`orders list` refuses it before any request).
      const r = await partner([
        'api',
        'GET',
        'orders',
        '-f',
        'from=2024-01-01T00:00:00Z',
        '-f',
        'to=2024-06-01T00:00:00Z',
      ]);
      expect(r.code).toBe(1);
      // `api` prints the whole envelope, errors included (docs/cli.md).
      expect(r.stdout).toMatch(/"request_id": "req_[\s\S]*request_invalid_range/);
    });
    it('2 usage', async () => {
      const r = await partner(['branches', 'list', '--bogus']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/unknown option '--bogus'/);
      expect((await partner(['orders'])).code).toBe(2);
    });
    it('3 auth', async () => {
      const r = await partner(['brands', 'list'], {
        env: { PARTNER_KEY: s.credential.key, PARTNER_SECRET: 'sk_nope', PARTNER_BASE_URL: s.baseUrl },
      });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/auth_invalid_credential/);
    });
    it('4 not found', async () => {
      const r = await partner(['branches', 'get', '999999']);
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/resource_not_found/);
      expect(r.stderr).toMatch(/request_id: req_/);
      expect(r.stdout).toBe('');
    });
    it('5 conflict', async () => {
      const brands = JSON.parse((await partner(['brands', 'list', '--json'])).stdout)[0].brands;
      const branches = JSON.parse((await partner(['branches', 'list', '--json'])).stdout).results;
      const branch = branches.find((b: { brand_ids: number[] }) => b.brand_ids.includes(brands[0].id));
      const order = await s.operator('POST', '/v1/operator/orders', {
        business_id: s.credential.businessId,
        brand_id: brands[0].id,
        branch_id: branch.id,
      });
      const id = String(order.body.data.id);
      const r = await partner(['orders', 'patch', id, '--status', 'DELIVERED', '--verbose']);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/state_invalid_transition/);
      expect(r.stderr).toMatch(/details: .*"from"/s);
    });
    it('6 rate limited', async () => {
      const c = await s.issueCredential({
        businessId: s.credential.businessId,
        scopes: ['brands:read'],
        rateLimit: 1,
      });
      const env = { PARTNER_KEY: c.key, PARTNER_SECRET: c.secret, PARTNER_BASE_URL: s.baseUrl };
      expect((await partner(['brands', 'list'], { env })).code).toBe(0);
      const r = await partner(['brands', 'list'], { env });
      expect(r.code).toBe(6);
      expect(r.stderr).toMatch(/rate_limit_exceeded/);
    });
    it('7 network', async () => {
      const r = await partner(['brands', 'list', '--base-url', 'http://127.0.0.1:1']);
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(/network: cannot reach/);
    });
  });

  describe('no TTY: a missing input is exit 2 naming the flag, never a hang', () => {
    it('with stdin closed', async () => {
      const r = await partner(['profiles', 'add', 'x', '--key', 'pk_x', '--base-url', 'http://127.0.0.1:1'], {
        stdin: 'closed',
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--secret/);
    });
    it('with stdin an open pipe nobody writes to', async () => {
      const a = await partner(['brands', 'create'], { stdin: 'open' });
      expect(a.code).toBe(2);
      expect(a.stderr).toMatch(/missing required flag --title/);
      const b = await partner(['price-groups', 'delete', '1'], { stdin: 'open' });
      expect(b.code).toBe(2);
      expect(b.stderr).toMatch(/--yes/);
      const c = await partner(['orders', 'patch', '1'], { stdin: 'open' });
      expect(c.code).toBe(2);
      expect(c.stderr).toMatch(/--status/);
    });
  });

  it('registers the same command tree from the build-time manifest as from the contract', async () => {
    const groups = (await runCli(['__complete', ''])).stdout.trim().split('\n');
    expect((await partner(['__complete', ''])).stdout.trim().split('\n')).toEqual(groups);
    for (const g of ['orders', 'menu', 'operator', 'items']) {
      const inProcess = (await runCli(['__complete', g, ''])).stdout;
      expect((await partner(['__complete', g, ''])).stdout, g).toBe(inProcess);
    }
    const flags = (await runCli(['__complete', 'branches', 'create', '--'])).stdout;
    expect((await partner(['__complete', 'branches', 'create', '--'])).stdout).toBe(flags);
  });

  it('never prints a stored secret', async () => {
    await partner(['profiles', 'list']);
    await partner(['profiles', 'list', '--json']);
    await partner(['profiles', 'show']);
    await partner(['profiles', 'show', '--json', '--verbose']);
    await partner(['brands', 'list', '--verbose']);
    await partner(['api', 'GET', 'brands', '--verbose']);
    await partner(['branches', 'get', '999999', '--verbose']);
    expect(outputs.length).toBeGreaterThan(10);
    for (const r of outputs) {
      expect(r.stdout).not.toContain(s.credential.secret);
      expect(r.stderr).not.toContain(s.credential.secret);
      expect(r.stderr).not.toMatch(/\n\s+at .*\.js:\d+/); // no stack traces
    }
  });
});
