import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../cli/run-cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// What docs/api.md tells an integrator to do: generate types from the served document's URL with
// openapi-typescript, then write a client and a webhook receiver against the named types. Here
// a small client of that kind is compiled strictly (this project's tsc) and run against a real
// server; its receiver gets a real signed delivery.

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

let s: TestServer;
let dir: string;
let child: ChildProcess | undefined;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
  dir = tempDir('partner-openapi-client-');
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await s?.close();
});

const CLIENT = `import { createServer } from 'node:http';
import type { components, paths, webhooks } from './api.js';

type Branch = components['schemas']['Branch'];
type Order = components['schemas']['Order'];
type ErrorCode = components['schemas']['ErrorCode'];
type ListBranches = paths['/v1/partner/branches']['get']['responses'][200]['content']['application/json'];
type GetOrder = paths['/v1/partner/orders/{id}']['get'];
type NotFound = GetOrder['responses'][404]['content']['application/json'];
type Created = webhooks['service.order.created.v2']['post'];
type CreatedBody = NonNullable<Created['requestBody']>['content']['application/json'];
type DeliveryHeaders = Created['parameters']['header'];

// @ts-expect-error: not a code of the catalogue
export const wrong: ErrorCode = 'no_such_code';

const base = process.env.PARTNER_BASE_URL!;
const auth = 'Basic ' + Buffer.from(process.env.PARTNER_KEY + ':' + process.env.PARTNER_SECRET).toString('base64');
async function get<T>(path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(base + path, { headers: { authorization: auth } });
  return { status: res.status, body: (await res.json()) as T };
}

const branches = await get<ListBranches>('/v1/partner/branches?size=5');
const first: Branch = branches.body.data.results[0]!;
console.log('branch ' + first.id + ': ' + first.title + ' (' + first.currency_code + ')');

const orders = await get<paths['/v1/partner/orders']['get']['responses'][200]['content']['application/json']>('/v1/partner/orders?size=1');
const order: Order | undefined = orders.body.data.results[0];
if (order) console.log('order ' + order.id + ': ' + order.total + ' ' + order.currency + ', ' + order.cart.length + ' lines');

const missing = await get<NotFound>('/v1/partner/orders/999999');
const code: ErrorCode = missing.body.error.code;
console.log(missing.status + ' ' + code);

// A receiver typed from the document's webhooks.
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const headers = req.headers as unknown as DeliveryHeaders;
    const attempt: number = Number(headers['x-partner-delivery-attempt']);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CreatedBody;
    const ids = body.orders.map((o: Order) => o.id).join(',');
    res.writeHead(200).end();
    console.log('event ' + headers['x-partner-event-type'] + ' ' + headers['x-partner-event-id'] + ' attempt ' + attempt + ' orders ' + ids + ' branch ' + body.branch_id);
  });
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  console.log('listening on http://127.0.0.1:' + (typeof a === 'object' && a ? a.port : 0));
});
`;

it('types generated from the served URL compile a strict client and receiver that run against the server', async () => {
  // 1. Generate, from the URL as a user would.
  const url = `${s.baseUrl}/v1/partner/openapi.json`;
  await run(
    process.execPath,
    [join(root, 'node_modules/openapi-typescript/bin/cli.js'), url, '-o', 'api.d.ts'],
    {
      cwd: dir,
      timeout: 60_000,
    },
  );
  const api = readFileSync(join(dir, 'api.d.ts'), 'utf8');
  expect(api).toMatch(/^export interface webhooks \{/m);
  expect(api).toMatch(/^ {4}Order: \{/m);

  // 2. Compile strictly with this project's TypeScript.
  writeFileSync(join(dir, 'client.ts'), CLIENT);
  writeFileSync(join(dir, 'package.json'), '{"type":"module","private":true}\n');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2023', 'dom'],
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        typeRoots: [join(root, 'node_modules/@types')],
        types: ['node'],
        outDir: 'out',
      },
      files: ['client.ts', 'api.d.ts'],
    }),
  );
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], {
    cwd: dir,
    timeout: 60_000,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? String(err) }));
  expect(compiled.stdout).toBe('');
  // The check can fail: a misspelt field of a named type does not compile.
  writeFileSync(join(dir, 'client.ts'), CLIENT.replace('order.total', 'order.totl'));
  const bad = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, timeout: 60_000 }).then(
    () => '',
    (err: { stdout?: string }) => err.stdout ?? '',
  );
  expect(bad).toMatch(/Property 'totl' does not exist on type/);
  writeFileSync(join(dir, 'client.ts'), CLIENT);
  await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, timeout: 60_000 });

  // 3. Run it against the server; its receiver gets a real delivery.
  child = spawn(process.execPath, [join(dir, 'out/client.js')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      PARTNER_BASE_URL: s.baseUrl,
      PARTNER_KEY: s.credential.key,
      PARTNER_SECRET: s.credential.secret,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const until = async (re: RegExp, what: string) => {
    const deadline = Date.now() + 15_000;
    while (!re.test(out)) {
      if (child!.exitCode !== null || Date.now() > deadline) throw new Error(`waiting for ${what}:\n${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return re.exec(out)!;
  };
  const receiver = (await until(/listening on (http:\/\/\S+)/, 'the receiver'))[1]!;
  expect(out).toMatch(/^branch \d+: .+ \([A-Z]{3}\)$/m);
  expect(out).toMatch(/^order \d+: \d+(\.\d+)? [A-Z]{3}, \d+ lines$/m);
  expect(out).toMatch(/^404 resource_not_found$/m);

  const hook = await s.operator('POST', '/v1/operator/webhooks', {
    business_id: s.credential.businessId,
    url: receiver,
    event: 'service.order.created.v2',
  });
  expect(hook.status).toBe(201);
  const res = await fetch(`${s.baseUrl}/v1/partner/branches?size=1`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${s.credential.key}:${s.credential.secret}`).toString('base64')}`,
    },
  });
  const b = ((await res.json()) as { data: { results: { id: number; brand_ids: number[] }[] } }).data
    .results[0]!;
  const created = await s.operator('POST', '/v1/operator/orders', {
    business_id: s.credential.businessId,
    brand_id: b.brand_ids[0],
    branch_id: b.id,
    items: 2,
  });
  expect(created.status).toBe(201);
  const id = (created.body.data as { id: number }).id;
  await until(
    new RegExp(
      `^event service\\.order\\.created\\.v2 evt_\\S+ attempt 1 orders (\\d+,)*${id}\\b.* branch ${b.id}$`,
      'm',
    ),
    'the delivery',
  );
}, 120_000);
