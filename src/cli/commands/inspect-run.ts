import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';
import { untilSignal, wrapColumns } from '../io.js';
import { wrapForTerminal } from '../output/text-width.js';
import { resolveOperatorTarget, resolvePartnerTarget } from '../target.js';
import { menuHistoryDir } from '../inspect/menu-history.js';
import { openBrowser } from '../inspect/open-browser.js';
import type { Inspect, InspectOptions } from '../inspect/start.js';
import type { InspectCommandOptions } from './inspect.js';

// `partner inspect` (docs/inspect.md): the page over the local server found the way the operator
// commands find it (webhook deliveries, the request log) and the active profile (menu preview).

/** The message of a source that could not be set up: the first line of the error. */
const reason = (err: unknown) => (err as Error).message;

/** The operator API of the local server, or why there is none. */
function operatorSource(ctx: Ctx, opts: InspectCommandOptions): NonNullable<InspectOptions['operator']> {
  try {
    return resolveOperatorTarget({
      env: ctx.io.env,
      server: opts.server,
      token: opts.token,
      dataDir: opts.data,
    });
  } catch (err) {
    if ((err as Error).message.includes('go together')) throw err;
    return { error: reason(err) };
  }
}

/** The credential the commands would use (flag, environment, profile), or why there is none. */
export function partnerSource(ctx: Ctx): NonNullable<InspectOptions['partner']> {
  try {
    const t = resolvePartnerTarget({
      configDir: ctx.io.configDir,
      env: ctx.io.env,
      profile: ctx.globals.profile,
      baseUrl: ctx.globals.baseUrl,
    });
    return { baseUrl: t.baseUrl, key: t.key, secret: t.secret };
  } catch (err) {
    return { error: reason(err) };
  }
}

/** Prints where the page is and opens it when asked; `out` is stdout, or stderr where stdout carries data. */
export async function announce(
  inspect: Inspect,
  out: { write(s: string): unknown },
  err: { write(s: string): unknown },
  env: NodeJS.ProcessEnv,
  open: boolean,
  columns?: number,
): Promise<void> {
  // Wrapped on a terminal so the URL, never cut, moves whole to its own line when it does not fit.
  out.write(wrapForTerminal(`Inspect: ${inspect.url}\n`, columns));
  if (!open) return;
  const failed = await openBrowser(inspect.url, env);
  if (failed) err.write(`partner: could not open a browser (${failed}): open the URL above yourself\n`);
}

export async function runInspect(ctx: Ctx, opts: InspectCommandOptions): Promise<number> {
  const { io } = ctx;
  const { port } = opts;
  const operator = operatorSource(ctx, opts);
  const partner = partnerSource(ctx);
  const missing = (m: unknown): m is { error: string } => typeof m === 'object' && m !== null && 'error' in m;
  if (missing(operator) && missing(partner))
    throw new UsageError(`nothing to inspect: ${operator.error}; and for the menu preview, ${partner.error}`);
  const { startInspect } = await import('../inspect/start.js');
  const inspect = await startInspect({
    mode: 'inspect',
    version: __PARTNER_VERSION__,
    port,
    operator,
    partner,
    insecure: ctx.insecure,
    historyDir: menuHistoryDir(io.env, io.configDir),
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE')
      throw new UsageError(`--port ${port} is in use: pass --port N (0 picks a free one)`);
    throw err;
  });
  // Listening for the stop signals before "Ctrl-C stops." is printed, not after (a Ctrl-C in
  // between met no listener and killed the process; listen-run.ts says more).
  const cancelled = new AbortController();
  const stopRequested = io.untilStopped ? io.untilStopped() : untilSignal(cancelled.signal);
  try {
    await announce(inspect, io.stdout, io.stderr, io.env, opts.open, wrapColumns(io, 'stdout'));
    const lines = [
      missing(operator)
        ? `  webhooks, requests: ${operator.error}`
        : `  webhooks, requests: the local server at ${operator.baseUrl}`,
      missing(partner)
        ? `  menu preview:       ${partner.error}`
        : `  menu preview:       ${partner.key} at ${partner.baseUrl}`,
      'Ctrl-C stops.',
    ];
    io.stderr.write(`${lines.join('\n')}\n`);
    await stopRequested;
  } finally {
    await inspect.close();
    cancelled.abort();
  }
  return 0;
}
