import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/pg-databases.js';
import {
  baseEnv,
  ensureBuilt,
  type Instance,
  killAll,
  runCli,
  startInstance,
  stopInstance,
} from '../multi-instance/instances.js';
import { OPERATOR_TOKEN, SEAL_KEY } from '../multi-instance/service.js';

// `partner operator webhooks remove` through the built binary against a started `local start`
// (both backends): a removed registration's pending delivery ends at once, marked so in
// `operator webhooks log`, and `operator webhooks replay` does not revive it.

let db: TestDatabase | undefined;
let server: Instance | undefined;
let receiver: Server | undefined;
let hits = 0;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ensureBuilt();
  if (testBackend() === 'postgres') db = await createTestDatabase();
  env = baseEnv({
    // A minute between attempts: after its first failed attempt a delivery stays pending.
    PARTNER_RETRY_SCHEDULE: '1m',
    ...(db
      ? { PARTNER_DATABASE_URL: db.url, PARTNER_SEAL_KEY: SEAL_KEY, PARTNER_OPERATOR_TOKEN: OPERATOR_TOKEN }
      : {}),
  });
  server = await startInstance(['--seed', 'demo'], env);
  receiver = createServer((_req, res) => {
    hits++;
    res.writeHead(503).end();
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', () => r()));
}, 60_000);
afterAll(async () => {
  if (server) await stopInstance(server);
  killAll();
  receiver?.close();
  await db?.drop();
});

async function cli(...args: string[]): Promise<unknown> {
  const r = await runCli(['operator', ...args, '--data', server!.data, '--json'], env);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

type Branch = { id: number; brand_ids: number[] };
type Logged = { event_id: string; webhook_id: number; status: string; log: { error: string | null }[] };

it('partner operator webhooks remove ends the pending deliveries; replay refuses to revive them', async () => {
  const m = /business (\d+): /.exec(server!.stdout());
  const business = m![1]!;
  const port = (receiver!.address() as { port: number }).port;
  const hook = (await cli(
    'webhooks',
    'add',
    '--business',
    business,
    '--url',
    `http://127.0.0.1:${port}/hook`,
    '--event',
    'all',
  )) as { id: number };
  const r = await runCli(['branches', 'list', '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  const listed = JSON.parse(r.stdout) as Branch[] | { results: Branch[] };
  const branch = (Array.isArray(listed) ? listed : listed.results)[0]!;
  await cli(
    'orders',
    'create',
    '--business',
    business,
    '--brand',
    String(branch.brand_ids[0]),
    '--branch',
    String(branch.id),
  );
  // Its first attempt failed and is recorded (looked for, bounded): pending, retry a minute away.
  let pending: Logged | undefined;
  for (let i = 0; i < 100 && !pending; i++) {
    const log = (await cli('webhooks', 'log', '--status', 'pending')) as Logged[];
    pending = log.find((d) => d.webhook_id === hook.id && d.log.length === 1);
  }
  expect(pending, 'a pending delivery with one failed attempt').toBeDefined();

  await cli('webhooks', 'remove', String(hook.id), '--yes');
  const after = (await cli('webhooks', 'log', '--event-id', pending!.event_id)) as Logged[];
  expect(after.map((d) => d.status)).toEqual(['failed']);
  expect(after[0]!.log.at(-1)?.error).toBe('registration removed');

  const replay = await runCli(
    ['operator', 'webhooks', 'replay', pending!.event_id, '--data', server!.data],
    env,
  );
  expect(replay.code).not.toBe(0);
  expect(replay.stderr).toMatch(/removed/);
  expect(replay.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(hits).toBe(1);
}, 120_000);
