import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Ctx } from '../context.js';
import { exitCodeForStatus, UsageError } from '../errors.js';
import { readJsonArg, readStdin } from '../input.js';
import { fieldsFlag } from '../output/stdout-plan.js';
import { headerName, parseFields, parseHeaders } from './api-input.js';
import type { ApiOptions } from './api.js';

// `partner api METHOD PATH`: the raw escape hatch, as gh's `api`. Prints the whole envelope
// (errors included) and exits with the code of its status. Paths without a leading /v1/ are
// taken as relative to /v1/partner/; /v1/operator/… paths go to the local operator API with its
// token. --paginate follows page/size of a GET until `total`, printing each page's envelope as it
// comes; --jq/--template apply to each envelope (so `.data.results[]` streams every item).
// Writes get an Idempotency-Key from the client unless --idempotency-key or -H gives one.

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Enough for any real list at 100 a page; a server that never reaches `total` still ends. */
const MAX_PAGES = 10_000;

function apiPath(path: string): string {
  if (path.startsWith('/v1/') || path.startsWith('/healthz')) return path;
  if (path.startsWith('v1/')) return `/${path}`;
  return `/v1/partner/${path.replace(/^\/+/, '')}`;
}

/** Nobody reads the output any more: the pager was quit, or a pipe's reader (`| head`) left. */
function outputGone(out: unknown): boolean {
  const o = out as { closed?: unknown; destroyed?: unknown };
  return o.closed === true || o.destroyed === true;
}

/** --input FILE|-: the body's bytes exactly as they are. */
async function readInput(value: string, ctx: Ctx): Promise<string | Buffer> {
  if (value === '-') return readStdin(ctx.io, '--input -');
  try {
    return await readFile(resolve(ctx.io.cwd, value));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--input: cannot read ${value}${code === 'ENOENT' ? ': no such file' : `: ${(err as Error).message}`}`,
    );
  }
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  envelope: unknown;
}

export async function runApi(ctx: Ctx, method: string, rawPath: string, opts: ApiOptions): Promise<number> {
  const m = method.toUpperCase();
  if (!METHODS.includes(m))
    throw new UsageError(`METHOD must be one of ${METHODS.join(', ')}, got "${method}"`);
  if (fieldsFlag(opts.json) !== undefined)
    throw new UsageError(
      'partner api prints the whole envelope: --json FIELDS does not apply here; use --jq',
    );
  const { paginate } = opts;
  if (paginate && m !== 'GET') throw new UsageError(`--paginate follows the pages of a GET, not of ${m}`);
  if (opts.data !== undefined && opts.input !== undefined)
    throw new UsageError('--data and --input both give the body: use one');
  const path = apiPath(rawPath);
  const fields = await parseFields(opts.rawField, opts.field, ctx.io);
  const hasFields = Object.keys(fields).length > 0;
  const headers = parseHeaders(opts.header);
  let body: unknown;
  let rawBody: string | Buffer | undefined;
  let query: Record<string, unknown> = {};
  if (opts.input !== undefined) {
    // As in gh: with --input as the body, fields go to the query string.
    rawBody = await readInput(opts.input, ctx);
    query = fields;
  } else {
    if (opts.data !== undefined) body = await readJsonArg(opts.data, '--data', ctx.io);
    if (m === 'GET' || m === 'DELETE') query = fields;
    else if (hasFields) {
      if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body)))
        throw new UsageError('-f/-F fields need --data to be a JSON object');
      body = { ...((body as Record<string, unknown> | undefined) ?? {}), ...fields };
    }
  }
  const key = opts.idempotencyKey;
  let transform: ((v: unknown) => Promise<string>) | undefined;
  if (opts.jq !== undefined || opts.template !== undefined) {
    const { outputTransform } = await import('../output/controls.js');
    const t = await outputTransform(ctx.io, {
      color: ctx.color,
      ...(opts.jq !== undefined ? { jq: opts.jq } : {}),
      ...(opts.template !== undefined ? { template: opts.template } : {}),
      what: 'api',
    });
    transform = (v) => t(v, false);
  }

  const operator = path.startsWith('/v1/operator');
  const { client } = operator
    ? await ctx.operator({
        ...(opts.server !== undefined ? { server: opts.server } : {}),
        ...(opts.token !== undefined ? { token: opts.token } : {}),
        ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
      })
    : await ctx.partner();
  const out = ctx.io.stdout;

  const send = async (q: Record<string, unknown>): Promise<Answer> => {
    try {
      const res = await client.request(m, path, {
        ...(body !== undefined ? { body } : {}),
        ...(rawBody !== undefined ? { rawBody } : {}),
        ...(Object.keys(q).length ? { query: q } : {}),
        ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
        headers,
      });
      return { status: res.status, headers: res.headers, envelope: res.envelope };
    } catch (err) {
      const e = err as {
        name?: string;
        envelope?: unknown;
        status?: number;
        headers?: Record<string, string>;
      };
      if (e.name === 'ApiError' && e.envelope !== undefined)
        return { status: e.status ?? 0, headers: e.headers ?? {}, envelope: e.envelope };
      throw err;
    }
  };
  const print = async (a: Answer) => {
    if (opts.include) {
      const { STATUS_CODES } = await import('node:http');
      const lines = [`HTTP/1.1 ${a.status} ${STATUS_CODES[a.status] ?? ''}`.trimEnd()];
      for (const [k, v] of Object.entries(a.headers)) lines.push(`${headerName(k)}: ${v}`);
      out.write(`${lines.join('\n')}\n\n`);
    }
    out.write(transform ? await transform(a.envelope) : `${JSON.stringify(a.envelope, null, 2)}\n`);
  };

  if (!paginate) {
    const a = await ctx.spin(`${m} ${path}`, () => send(query));
    await print(a);
    return a.status >= 400 ? exitCodeForStatus(a.status) : 0;
  }
  // The first request is the one asked for; when its answer is a page, the next pages follow
  // with the same size (give -F size=100 for fewer requests), up to `total`.
  let q: Record<string, unknown> = query;
  for (let n = 0; n < MAX_PAGES; n++) {
    // The spinner only before the first page: later pages may be under a pager by then.
    const a = n === 0 ? await ctx.spin(`${m} ${path}`, () => send(q)) : await send(q);
    await print(a);
    if (a.status >= 400) return exitCodeForStatus(a.status);
    const data = (a.envelope as { data?: unknown } | undefined)?.data as
      | { results?: unknown; page?: unknown; size?: unknown; total?: unknown }
      | undefined;
    // Not a page, or the last one: done (as gh stops when there is no next link).
    if (!data || !Array.isArray(data.results) || typeof data.total !== 'number') return 0;
    if (typeof data.page !== 'number' || typeof data.size !== 'number') return 0;
    if (data.results.length === 0 || data.page * data.size >= data.total) return 0;
    // Quitting the pager (or `| head`) ends the walk: the rest would be fetched for no one.
    if (outputGone(out)) return 0;
    q = { ...query, page: data.page + 1, size: data.size };
  }
  return 0;
}
