import type { Command } from 'commander';
import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';
import { parseFieldArgs, readJsonArg } from '../input.js';
import type { Action } from './action.js';

// `partner api METHOD PATH`: the raw escape hatch. Prints the whole envelope (errors included)
// and exits with the code of its status. Paths without a leading /v1/ are taken as relative to
// /v1/partner/; /v1/operator/… paths go to the local operator API with its token.

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function apiPath(path: string): string {
  if (path.startsWith('/v1/') || path.startsWith('/healthz')) return path;
  if (path.startsWith('v1/')) return `/${path}`;
  return `/v1/partner/${path.replace(/^\/+/, '')}`;
}

async function run(
  ctx: Ctx,
  method: string,
  rawPath: string,
  opts: Record<string, unknown>,
): Promise<number> {
  const m = method.toUpperCase();
  if (!METHODS.includes(m))
    throw new UsageError(`METHOD must be one of ${METHODS.join(', ')}, got "${method}"`);
  const path = apiPath(rawPath);
  const fields = await parseFieldArgs((opts.field as string[] | undefined) ?? [], ctx.io);
  const hasFields = Object.keys(fields).length > 0;
  let body: unknown;
  if (opts.data !== undefined) body = await readJsonArg(String(opts.data), '--data', ctx.io);
  let query: Record<string, unknown> | undefined;
  if (m === 'GET' || m === 'DELETE') {
    if (hasFields) query = fields;
  } else if (hasFields) {
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw new UsageError('-f fields need --data to be a JSON object');
    }
    body = { ...((body as Record<string, unknown> | undefined) ?? {}), ...fields };
  }
  const operator = path.startsWith('/v1/operator');
  const { client } = operator
    ? await ctx.operator({
        ...(typeof opts.server === 'string' ? { server: opts.server } : {}),
        ...(typeof opts.token === 'string' ? { token: opts.token } : {}),
        ...(typeof opts.dataDir === 'string' ? { dataDir: opts.dataDir } : {}),
      })
    : await ctx.partner();
  const key = opts.idempotencyKey;
  try {
    const res = await ctx.spin(`${m} ${path}`, () =>
      client.request(m, path, {
        ...(body !== undefined ? { body } : {}),
        ...(query ? { query } : {}),
        ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
      }),
    );
    ctx.io.stdout.write(`${JSON.stringify(res.envelope, null, 2)}\n`);
    return 0;
  } catch (err) {
    const e = err as { name?: string; envelope?: unknown; status?: number };
    if (e.name === 'ApiError' && e.envelope !== undefined) {
      ctx.io.stdout.write(`${JSON.stringify(e.envelope, null, 2)}\n`);
      const { exitCodeForStatus } = await import('../errors.js');
      return exitCodeForStatus(e.status ?? 0);
    }
    throw err;
  }
}

export function registerApi(root: Command, action: Action): void {
  const cmd = root
    .command('api')
    .summary('Call any endpoint and print the whole envelope')
    .description(
      'Call any endpoint and print the whole response envelope (errors too); the exit code follows the status.\n\n' +
        'PATH is absolute (/v1/partner/brands) or relative to /v1/partner (brands). /v1/operator/… paths use the local operator token.\n\n' +
        '-f key=value: typed like gh -F (true, false, null, numbers; @file reads a file; key[]=v builds an array); query for GET/DELETE, body fields otherwise.',
    )
    .argument('<METHOD>', 'GET, POST, PUT, PATCH or DELETE')
    .argument('<PATH>', 'request path, e.g. /v1/partner/branches or branches')
    .option('--data <json>', 'request body: JSON, @FILE or - for stdin')
    .option(
      '-f, --field <key=value>',
      'a query parameter or body field (repeatable)',
      (v: string, p: string[] | undefined) => [...(p ?? []), v],
    )
    .option('--idempotency-key <key>', 'Idempotency-Key for writes (default: a fresh UUID)')
    .option('--server <url>', 'operator API base URL, for /v1/operator paths (with --token)')
    .option('--token <token>', 'operator token, for /v1/operator paths (with --server)')
    .option('--data-dir <dir>', 'local server data dir holding local.json, for /v1/operator paths');
  cmd.addHelpText(
    'after',
    '\nExamples:\n  $ partner api GET branches -f page=2 -f size=50\n  $ partner api PATCH /v1/partner/orders/status --data \'{"id":1042,"status":"READY","platform":"enterprise"}\'\n',
  );
  action(cmd, (ctx, args, opts) => run(ctx, args[0]!, args[1]!, opts));
}
