import { Chalk } from 'chalk';
import type { PartnerClient } from '../../client/client.js';
import { newAgent } from '../../client/undici-transport.js';
import { type Ctx, routesOf } from '../context.js';
import { EXIT, Exit } from '../errors.js';
import { sleepOrWake, stopper } from '../flows/orders-watch-time.js';
import { parseTimeFlag } from '../input.js';
import { type LoggedRequestView, requestLine } from '../output/request-view.js';
import { resolveOperatorTarget } from '../target.js';
import { LOGS_PAGE as PAGE, type LogsTailOptions } from './logs.js';

// The body of `partner logs tail` (docs/cli.md): history first when asked, then long polls of
// GET /v1/operator/requests?after=SEQ&wait=S, each answering as soon as a request is logged.

/** Each long poll waits at most this long on the server: under the client's 30 s answer timeout. */
const POLL_WAIT_S = 20;

interface Page {
  results: LoggedRequestView[];
  next_after: number;
  missed: number;
}

interface Filters {
  status?: string;
  path?: string;
  method?: string;
}

const isGone = (err: unknown) => {
  const e = err as { name?: string; status?: number };
  return e?.name === 'NetworkError' || (e?.name === 'ApiError' && (e.status ?? 0) >= 500);
};

export async function runLogsTail(ctx: Ctx, opts: LogsTailOptions): Promise<number> {
  const { io } = ctx;
  const filters: Filters = {};
  if (opts.status) filters.status = opts.status;
  if (opts.path) filters.path = opts.path;
  if (opts.method) filters.method = opts.method;
  const since =
    opts.since !== undefined ? parseTimeFlag(opts.since, '--since', io.clock.now(), false) : undefined;
  const { limit, follow } = opts;

  const target = resolveOperatorTarget({
    env: io.env,
    server: opts.server,
    token: opts.token,
    dataDir: opts.data,
  });
  const { PartnerClient } = await import('../../client/client.js');
  // Our own connection pool, so Ctrl-C can drop a long poll in flight instead of waiting it out.
  const agent = newAgent();
  const client: PartnerClient = new PartnerClient({
    baseUrl: target.baseUrl,
    operatorToken: target.token,
    insecure: ctx.insecure,
    routes: routesOf(ctx.manifest),
    dispatcher: agent,
    userAgent: `partner-cli/${__PARTNER_VERSION__} logs-tail`,
    onRequest: (e) => {
      if (ctx.verbose)
        io.stderr.write(
          `* ${e.method} ${e.url} → ${e.status === 0 ? 'no answer' : e.status} in ${Math.round(e.ms)} ms\n`,
        );
    },
  });
  const c = new Chalk({ level: ctx.color ? 1 : 0 });
  // On a terminal each line fits its width as it is now (a resize applies to the next line).
  const width = () => {
    const cols = (io.stdout as { columns?: number }).columns;
    return io.stdoutIsTTY && cols && cols >= 40 ? cols : undefined;
  };
  const print = (e: LoggedRequestView) =>
    io.stdout.write(ctx.json ? `${JSON.stringify(e)}\n` : requestLine(e, io.stdoutIsTTY, c, width()));
  const list = (query: Record<string, unknown>) =>
    client.call('operatorListRequests', { query: { ...filters, ...query } }) as Promise<Page>;

  let shown = 0;
  const stop = stopper(io);
  try {
    let after: number;
    try {
      if (since !== undefined && limit === undefined) {
        // Everything since then, a page at a time (the log holds a few thousand at most).
        let page: Page;
        after = 0;
        do {
          page = await list({ after, since, limit: PAGE });
          for (const e of page.results) print(e);
          shown += page.results.length;
          after = page.next_after;
        } while (page.results.length === PAGE && !stop.stopped);
      } else {
        // The newest `limit` (since then), or just where the log ends now.
        const page = await list({ limit: limit ?? 1, ...(since ? { since } : {}) });
        if (limit !== undefined) for (const e of page.results) print(e);
        shown += limit !== undefined ? page.results.length : 0;
        after = page.next_after;
      }
    } catch (err) {
      if (!isGone(err)) throw err;
      io.stderr.write(
        `${c.red('error:')} no local server answers at ${target.baseUrl} (${(err as Error).message}): start one with \`partner local start\`, or pass --data DIR or --server URL --token T\n`,
      );
      throw new Exit(EXIT.network);
    }
    if (!follow) return EXIT.ok;

    const what = [
      filters.status && `status ${filters.status}`,
      filters.path && `path ${filters.path}`,
      filters.method,
    ]
      .filter(Boolean)
      .join(', ');
    io.stderr.write(`Tailing requests to ${target.baseUrl}${what ? ` (${what})` : ''}; Ctrl-C stops\n`);
    const stopped = stop.promise.then(() => undefined);
    while (!stop.stopped) {
      const started = performance.now();
      const poll = list({ after, limit: PAGE, wait: POLL_WAIT_S });
      poll.catch(() => undefined); // settled below, or dropped on stop
      let page: Page | undefined;
      try {
        page = await Promise.race([poll, stopped]);
      } catch (err) {
        if (stop.stopped) break;
        if (!isGone(err)) throw err;
        io.stderr.write(
          `${c.red('error:')} the local server at ${target.baseUrl} went away (${(err as Error).message}); ${shown} request${shown === 1 ? '' : 's'} shown\n`,
        );
        throw new Exit(EXIT.network);
      }
      if (!page) break;
      if (page.missed > 0)
        io.stderr.write(
          `partner logs tail: ${page.missed} request${page.missed === 1 ? ' was' : 's were'} dropped from the log before they could be shown\n`,
        );
      for (const e of page.results) print(e);
      shown += page.results.length;
      after = page.next_after;
      // An empty answer that came at once (the server is closing, or has too many pollers):
      // pause, so the loop never spins.
      const took = performance.now() - started;
      if (page.results.length === 0 && took < 1000) await sleepOrWake(1000 - took, [stop.promise]);
    }
    return EXIT.ok;
  } finally {
    stop.dispose();
    // Drops a long poll still in flight (Ctrl-C) rather than waiting up to 20 s for its answer.
    await agent.destroy().catch(() => undefined);
  }
}
