import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/webhooks/signature.js';
import { tempDir } from '../cli/run-cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshBrand } from '../server/menus-helpers.js';

// The library as an integrator gets it: `npm pack`, the tarball unpacked into a fresh project's
// node_modules (its dependencies linked from this checkout's, so no network is needed), then each
// entry point imported by plain Node (ESM) and by a TypeScript consumer compiled with this
// project's tsc, and every runnable example of docs/library.md run as printed against a real
// server: the webhook receivers get real signed deliveries from it.

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

let s: TestServer;
let project: string;
let tarball: string;
const children: ChildProcess[] = [];

/** The code blocks of docs/library.md marked `<!-- run: NAME -->`. */
function docExamples(): Record<string, string> {
  const doc = readFileSync(join(root, 'docs/library.md'), 'utf8');
  const out: Record<string, string> = {};
  for (const m of doc.matchAll(/<!-- run: ([\w-]+) -->\n```(?:js|ts)\n([\s\S]*?)\n```/g))
    out[m[1]!] = `${m[2]}\n`;
  return out;
}

beforeAll(async () => {
  if (
    !existsSync(join(root, 'dist/lib/client.js')) ||
    !existsSync(join(root, 'dist/types/client/index.d.ts'))
  )
    await run(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root });
  s = await startTestServer({ seed: 'demo' });
  const dir = tempDir('partner-pack-');
  // --ignore-scripts: dist/ is built already, and rebuilding it under other running tests would break them.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  tarball = join(dir, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  project = join(dir, 'project');
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, 'partner'), { recursive: true });
  await run('tar', ['xzf', tarball, '-C', join(modules, 'partner'), '--strip-components=1']);
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name.startsWith('.') || name === 'partner') continue;
    symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
  writeFileSync(join(project, 'package.json'), '{"name":"consumer","private":true,"type":"module"}\n');
}, 120_000);

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
afterAll(async () => {
  await s?.close();
});

const env = () => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: project,
  PARTNER_BASE_URL: s.baseUrl,
  PARTNER_KEY: s.credential.key,
  PARTNER_SECRET: s.credential.secret,
});

/** Runs a script of the project with node; resolves with its output (bounded: 20 s). */
async function node(file: string, extra: Record<string, string> = {}) {
  const r = await run(process.execPath, [file], {
    cwd: project,
    env: { ...env(), ...extra },
    timeout: 20_000,
  });
  return r.stdout;
}

/** Starts a long-running example and resolves with its URL once it prints `listening on URL`. */
async function serve(
  file: string,
  extra: Record<string, string>,
): Promise<{ url: string; output: () => string }> {
  const child = spawn(process.execPath, [file], {
    cwd: project,
    env: { ...env(), PORT: '0', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const m = /listening on (http:\/\/\S+)/.exec(out);
    if (m) return { url: m[1]!, output: () => out };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${file} did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the packed package', () => {
  it('holds the three entry points with their types, and no source or test file', async () => {
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules/partner/package.json'), 'utf8'));
    expect(Object.keys(pkg.exports)).toEqual(['./client', './webhooks', './menu', './package.json']);
    for (const entry of ['client', 'webhooks', 'menu']) {
      expect(existsSync(join(project, 'node_modules/partner', pkg.exports[`./${entry}`].default))).toBe(true);
      expect(existsSync(join(project, 'node_modules/partner', pkg.exports[`./${entry}`].types))).toBe(true);
    }
    expect(existsSync(join(project, 'node_modules/partner/src'))).toBe(false);
    expect(existsSync(join(project, 'node_modules/partner/test'))).toBe(false);
  });

  it('imports each entry point as ESM from plain Node', async () => {
    writeFileSync(
      join(project, 'imports.mjs'),
      `import * as client from 'partner/client';
import * as webhooks from 'partner/webhooks';
import * as menu from 'partner/menu';
console.log(JSON.stringify({
  client: [typeof client.PartnerClient, typeof client.ApiError, client.SCOPES.length, Object.keys(client.OPERATIONS).length > 50],
  webhooks: [typeof webhooks.verifyEvent, typeof webhooks.signDelivery, webhooks.EVENT_TYPES],
  menu: [typeof menu.planMenuPush, typeof menu.parseMenuText, typeof menu.StateFile],
}));
`,
    );
    expect(JSON.parse(await node('imports.mjs'))).toEqual({
      client: ['function', 'function', 16, true],
      webhooks: [
        'function',
        'function',
        ['service.order.created.v2', 'service.order.status.updated', 'service.order.cart.updated'],
      ],
      menu: ['function', 'function', 'function'],
    });
    // Not a subpath the package exports.
    writeFileSync(join(project, 'deep.mjs'), "await import('partner/dist/lib/client.js');\n");
    await expect(node('deep.mjs')).rejects.toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  });

  it('the types resolve for a TypeScript consumer (strict, lib check on) and catch a wrong input', async () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `import { ApiError, type CallOutput, type Order, PartnerClient } from 'partner/client';
import { type MenuFile, planMenuPush, validateMenu } from 'partner/menu';
import { type PartnerEvent, verifyEvent, WebhookError } from 'partner/webhooks';

const client = new PartnerClient({ baseUrl: 'http://127.0.0.1:8787', credential: { key: 'k', secret: 's' } });
export async function use(): Promise<number> {
  const order: Order = await client.call('getOrder', { params: { id: 1 } });
  const page: CallOutput<'listOrders'> = await client.call('listOrders', { query: { size: 5 } });
  // @ts-expect-error: an order id is a number
  await client.call('patchOrderStatus', { body: { id: 'x', status: 'READY', platform: 'enterprise' } });
  // @ts-expect-error: not an operation of the API
  await client.call('listEverything');
  const event: PartnerEvent = verifyEvent('{}', {}, 'whsec');
  const when: string = event.type === 'service.order.status.updated' ? (event.orders[0]?.updated_at ?? '') : '';
  const menu: MenuFile = validateMenu({ sections: [] }).menu;
  const push = await planMenuPush({ client, menu, brandId: 1 });
  return order.id + page.total + push.plan.steps.length + when.length;
}
export const errors = [ApiError, WebhookError];
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2023'],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const r = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], {
      cwd: project,
      timeout: 60_000,
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? String(err), failed: true }));
    expect(r.stdout).toBe('');
    // The check can fail: without its @ts-expect-error the wrong input is reported.
    writeFileSync(
      join(project, 'consumer.ts'),
      readFileSync(join(project, 'consumer.ts'), 'utf8').replace(
        '// @ts-expect-error: an order id is a number\n',
        '',
      ),
    );
    const bad = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], {
      cwd: project,
      timeout: 60_000,
    }).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? '',
    );
    expect(bad).toMatch(
      /consumer\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/,
    );
  }, 60_000);
});

/** The TypeScript code blocks of docs/library.md. */
function docTypeScript(): string[] {
  const doc = readFileSync(join(root, 'docs/library.md'), 'utf8');
  return [...doc.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((m) => `${m[1]}\n`);
}

describe('the TypeScript of docs/library.md, compiled strictly against the packed types', () => {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const compile = (files: string[]) =>
    run(process.execPath, [tsc, '-p', 'tsconfig.doc.json'], { cwd: project, timeout: 60_000 }).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
  const config = (files: string[]) =>
    writeFileSync(
      join(project, 'tsconfig.doc.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2023'],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files,
      }),
    );

  it('every ts block compiles; paginate and pages are typed from the table; a misspelt id does not compile', async () => {
    const blocks = docTypeScript();
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks.join('')).toMatch(/client\.paginate\('listBranches'/);
    const files = blocks.map((code, i) => {
      const f = `doc-${i}.ts`;
      // Each block is a module of its own (top-level await).
      writeFileSync(join(project, f), `${code}export {};\n`);
      return f;
    });
    writeFileSync(
      join(project, 'doc-checks.ts'),
      `import { type Branch, PartnerClient } from 'partner/client';
const client = new PartnerClient({ baseUrl: 'http://127.0.0.1:1', credential: { key: 'k', secret: 's' } });
for await (const b of client.paginate('listBranches')) { const x: Branch = b; console.log(x.title); }
for await (const p of client.pages('listOrders')) console.log(p.results[0]?.cart.length, p.total);
// @ts-expect-error: not an operation of the table
client.paginate('listBranchez');
// @ts-expect-error: an operation, but not a paginated one
client.paginate('getOrder');
export {};
`,
    );
    config([...files, 'doc-checks.ts']);
    expect(await compile(files)).toBe('');
    // The check can fail: without its @ts-expect-error the misspelt id is reported.
    writeFileSync(
      join(project, 'doc-checks.ts'),
      readFileSync(join(project, 'doc-checks.ts'), 'utf8').replace(
        '// @ts-expect-error: not an operation of the table\n',
        '',
      ),
    );
    expect(await compile(files)).toMatch(/doc-checks\.ts\(\d+,\d+\): error TS\d+: .*'"listBranchez"'/);
  }, 180_000);

  it('partner/client exports every schema the OpenAPI document names, as a type of that name', async () => {
    const doc = (await (await fetch(`${s.baseUrl}/v1/partner/openapi.json`)).json()) as {
      components: { schemas: Record<string, unknown> };
    };
    // Envelope and Error are the wire's wrapping, which the client unwraps (ApiError carries the error).
    const names = Object.keys(doc.components.schemas).filter((n) => n !== 'Envelope' && n !== 'Error');
    expect(names).toEqual(expect.arrayContaining(['Branch', 'Order', 'PriceGroup', 'ErrorCode']));
    writeFileSync(
      join(project, 'names.ts'),
      `import type { ${names.join(', ')} } from 'partner/client';\nexport type All = [${names.join(', ')}];\n`,
    );
    config(['names.ts']);
    expect(await compile(['names.ts'])).toBe('');
  }, 180_000);
});

describe('installed without the optional (server) dependencies', () => {
  // What `npm install partner --omit=optional` gives a library user: the package and its
  // `dependencies` only. The tarball is unpacked into a project of its own and just those are
  // linked from this checkout (no registry needed); find-my-way, pg and better-sqlite3 are not there.
  let lean: string;
  let pkg: {
    engines: { node: string };
    dependencies: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  beforeAll(async () => {
    lean = join(tempDir('partner-lean-'), 'project');
    mkdirSync(join(lean, 'node_modules/partner'), { recursive: true });
    await run('tar', ['xzf', tarball, '-C', join(lean, 'node_modules/partner'), '--strip-components=1']);
    pkg = JSON.parse(readFileSync(join(lean, 'node_modules/partner/package.json'), 'utf8'));
    for (const name of Object.keys(pkg.dependencies)) {
      mkdirSync(join(lean, 'node_modules', name, '..'), { recursive: true });
      symlinkSync(join(root, 'node_modules', name), join(lean, 'node_modules', name));
    }
    writeFileSync(join(lean, 'package.json'), '{"name":"lean","private":true,"type":"module"}\n');
  }, 60_000);

  it("needs none of the server's packages: better-sqlite3 is optional, find-my-way and pg are bundled", () => {
    expect(Object.keys(pkg.optionalDependencies ?? {})).toEqual(['better-sqlite3']);
    for (const server of ['better-sqlite3', 'find-my-way', 'pg'])
      expect(Object.keys(pkg.dependencies), server).not.toContain(server);
  });

  it('partner/client, partner/webhooks and partner/menu load and work', async () => {
    writeFileSync(
      join(lean, 'use.mjs'),
      `import { PartnerClient } from 'partner/client';
import { signDelivery, verifyEvent } from 'partner/webhooks';
import { validateMenu } from 'partner/menu';
const client = new PartnerClient({ baseUrl: process.env.PARTNER_BASE_URL, credential: { key: process.env.PARTNER_KEY, secret: process.env.PARTNER_SECRET } });
const [entry] = await client.call('listBrands');
await client.close();
const d = signDelivery('whsec_x', { type: 'service.order.cart.updated', id: 'evt_1', payload: { brand_id: 1, branch_id: 1, orders: [] } });
let refused = '';
try { verifyEvent(d.body, d.headers, 'whsec_x'); } catch (err) { refused = err.code; }
console.log(entry.brands.length > 0, refused, validateMenu({ sections: [] }).menu.sections.length);
for (const name of ['find-my-way', 'better-sqlite3', 'pg']) {
  try { await import(name); console.log(name, 'present'); } catch { console.log(name, 'absent'); }
}
`,
    );
    const r = await run(process.execPath, ['use.mjs'], { cwd: lean, env: env(), timeout: 20_000 });
    expect(r.stdout).toBe('true invalid_body 0\nfind-my-way absent\nbetter-sqlite3 absent\npg absent\n');
  });

  it('`partner local start` without better-sqlite3 says what to install, exit 1, no stack trace', async () => {
    const r = await run(
      process.execPath,
      [
        join(lean, 'node_modules/partner/bin/partner.js'),
        'local',
        'start',
        '--port',
        '0',
        '--data',
        join(lean, 'data'),
      ],
      {
        cwd: lean,
        env: { ...env(), PARTNER_CONFIG_DIR: join(lean, 'config'), PARTNER_KEYRING: 'off' },
        timeout: 30_000,
      },
    ).then(
      (ok) => ({ code: 0, stderr: ok.stderr }),
      (err: { code?: number; stderr?: string }) => ({ code: err.code, stderr: err.stderr ?? '' }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/needs better-sqlite3, an optional dependency that is not installed/);
    expect(r.stderr).toMatch(/npm install better-sqlite3/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('the engines range is true of every package an install brings (no EBADENGINE on it)', () => {
    // The lockfile's view of what `npm install partner` installs: its dependencies and optional
    // dependencies, transitively, each with the engines it declares.
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<
        string,
        {
          dependencies?: Record<string, string>;
          optionalDependencies?: Record<string, string>;
          engines?: { node?: string };
        }
      >;
    };
    const floor = pkg.engines.node.replace(/^>=\s*/, '');
    expect(floor).toMatch(/^\d+\.\d+\.\d+$/);
    const seen = new Set<string>();
    const bad: string[] = [];
    const visit = (name: string, from: string) => {
      // Node's lookup: the nearest node_modules up from the dependent.
      let at = from;
      for (;;) {
        const key = `${at ? `${at}/` : ''}node_modules/${name}`;
        if (lock.packages[key]) {
          if (seen.has(key)) return;
          seen.add(key);
          const p = lock.packages[key]!;
          const node = p.engines?.node;
          if (node && !satisfiesFloor(node, floor)) bad.push(`${key}: node ${node}`);
          for (const d of Object.keys({ ...p.dependencies, ...p.optionalDependencies })) visit(d, key);
          return;
        }
        if (!at) return; // an optional dependency of another platform
        at = at.includes('/node_modules/') ? at.slice(0, at.lastIndexOf('/node_modules/')) : '';
      }
    };
    for (const d of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(d, '');
    expect(seen.size).toBeGreaterThan(5);
    expect(bad).toEqual([]);
  });
});

/** Whether an engines range admits the given version (the forms npm packages use: >=, ^, ||, x). */
function satisfiesFloor(range: string, version: string): boolean {
  const v = version.split('.').map(Number);
  const cmp = (a: number[], b: number[]) => {
    for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  const parse = (s: string) =>
    s
      .replace(/^v/, '')
      .split('.')
      .map((x) => (/^\d+$/.test(x) ? Number(x) : 0));
  return range
    .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
    .split('||')
    .some((alt) =>
      alt
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .every((c) => {
          const m = /^(>=|<=|>|<|\^|~|=)?(.*)$/.exec(c)!;
          const [op, rest] = [m[1] ?? '=', m[2]!];
          if (rest === '*' || rest === 'x') return true;
          const b = parse(rest);
          const d = cmp(v, b);
          switch (op) {
            case '>=':
              return d >= 0;
            case '>':
              return d > 0;
            case '<=':
              return d <= 0;
            case '<':
              return d < 0;
            case '^':
              return d >= 0 && v[0] === b[0];
            case '~':
              return d >= 0 && v[0] === b[0] && v[1] === b[1];
            default:
              return /x|\*/.test(rest) ? v[0] === b[0] : d === 0;
          }
        }),
    );
}

describe('the examples of docs/library.md, run as printed', () => {
  const examples = docExamples();

  it('has the runnable examples the tests below expect', () => {
    expect(Object.keys(examples).sort()).toEqual(['client', 'fastify', 'menu', 'node-http']);
  });

  it('client: brands, orders, every branch, and a typed 404', async () => {
    writeFileSync(join(project, 'client.mjs'), examples.client!);
    const out = await node('client.mjs');
    expect(out).toMatch(new RegExp(`^business ${s.credential.businessId}: \\d+ brands$`, 'm'));
    expect(out).toMatch(/^order \d+: \d+(\.\d+)? [A-Z]{3}$/m);
    expect(out).toMatch(/^\d+ branches$/m);
    expect(out).toMatch(/^404 resource_not_found \(request req_\w+\)$/m);
  });

  for (const name of ['node-http', 'fastify'] as const) {
    it(`${name} receiver: real deliveries from the server verified and printed; forged ones refused`, async () => {
      writeFileSync(join(project, `${name}.mjs`), examples[name]!);
      const secret = (
        await s.operator('POST', '/v1/operator/webhook-secrets', { business_id: s.credential.businessId })
      ).body.data.webhook_secret_key as string;
      const receiver = await serve(`${name}.mjs`, { PARTNER_WEBHOOK_SECRET: secret });
      const url = name === 'fastify' ? `${receiver.url}/webhooks/partner` : receiver.url;
      const hook = await s.operator('POST', '/v1/operator/webhooks', {
        business_id: s.credential.businessId,
        url,
        event: 'all',
      });
      expect(hook.status).toBe(201);
      try {
        const store = await storeOf();
        const created = await s.operator('POST', '/v1/operator/orders', {
          business_id: s.credential.businessId,
          ...store,
          items: 2,
        });
        expect(created.status).toBe(201);
        const id = created.body.data.id as number;
        const printed = name === 'fastify' ? `service.order.created.v2 evt_` : `new order ${id}: `;
        await until(() => receiver.output().includes(printed), `the ${name} example to print the order`);
        if (name === 'fastify') expect(receiver.output()).toMatch(new RegExp(`orders ${id}\\b`));

        // A forged delivery (wrong key) and an unsigned one are refused; an unknown type is acknowledged.
        const body = JSON.stringify({
          brand_id: store.brand_id,
          branch_id: store.branch_id,
          orders: [created.body.data],
        });
        const base = {
          'content-type': 'application/json',
          'x-partner-event-id': 'evt_forged',
          'x-partner-delivery-attempt': '1',
        };
        const forged = await fetch(url, {
          method: 'POST',
          body,
          headers: {
            ...base,
            'x-partner-event-type': 'service.order.created.v2',
            'x-partner-signature': sign('not-the-secret', body),
          },
        });
        expect(forged.status).toBe(401);
        expect(await forged.json()).toEqual({ error: 'invalid signature' });
        const unsigned = await fetch(url, {
          method: 'POST',
          body,
          headers: { ...base, 'x-partner-event-type': 'service.order.created.v2' },
        });
        expect(unsigned.status).toBe(401);
        const future = await fetch(url, {
          method: 'POST',
          body,
          headers: {
            ...base,
            'x-partner-event-type': 'service.order.refunded',
            'x-partner-signature': sign(secret, body),
          },
        });
        expect(future.status).toBe(200);
        expect(receiver.output()).not.toContain('evt_forged');
      } finally {
        await s.operator('DELETE', `/v1/operator/webhooks/${hook.body.data.id}`);
      }
    }, 30_000);
  }

  it('menu: plans and pushes the sample menu to a fresh brand; run again, it finds nothing to do', async () => {
    writeFileSync(join(project, 'menu.mjs'), examples.menu!);
    copyFileSync(join(root, 'docs/examples/menu.sample.yaml'), join(project, 'menu.yaml'));
    const { brandId } = await freshBrand(s);
    const first = await node('menu.mjs', { BRAND_ID: String(brandId) });
    expect(first).toMatch(
      /^\d+ calls; creates \{"sections":2,"categories":4,"items":8,"modifiers":6,"modifier_groups":2\}/m,
    );
    expect(first).toMatch(/^published version 1$/m);
    const state = JSON.parse(readFileSync(join(project, 'menu-push-state.json'), 'utf8'));
    expect(Object.values(state.targets)).toHaveLength(1);
    const again = await node('menu.mjs', { BRAND_ID: String(brandId) });
    expect(again).toBe(
      '0 calls; creates {"sections":0,"categories":0,"items":0,"modifiers":0,"modifier_groups":0}, updates {"sections":0,"categories":0,"items":0,"modifiers":0,"modifier_groups":0}\nnothing to publish\n',
    );
  }, 30_000);

  it('menu: a broken file is reported as FILE:LINE lines and exit 1', async () => {
    writeFileSync(
      join(project, 'broken.yaml'),
      'sections:\n  - key: a\n    title: 5\n    categories: nope\n',
    );
    const r = await run(process.execPath, ['menu.mjs'], {
      cwd: project,
      env: { ...env(), BRAND_ID: '1', MENU_FILE: 'broken.yaml' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code?: number; stderr?: string }) => ({ code: err.code, stderr: err.stderr ?? '' }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^broken\.yaml:3: sections\[0\]\.title: /m);
    expect(r.stderr).toMatch(/^broken\.yaml:4: sections\[0\]\.categories: /m);
  });
});

async function storeOf(): Promise<{ brand_id: number; branch_id: number }> {
  const res = await fetch(`${s.baseUrl}/v1/partner/branches`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${s.credential.key}:${s.credential.secret}`).toString('base64')}`,
    },
  });
  const b = ((await res.json()) as { data: { results: { id: number; brand_ids: number[] }[] } }).data
    .results[0]!;
  return { brand_id: b.brand_ids[0]!, branch_id: b.id };
}
