import type { PartnerClient } from '../../client/client.js';
import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';
import { untilSignal, wrapColumns } from '../io.js';
import { wrapForTerminal } from '../output/text-width.js';
import { profileWebhookSecret as storedWebhookSecret } from '../profile-file.js';
import { NoLocalServerError } from '../target.js';
import type { ListenOptions } from './listen.js';

// `partner listen` (docs/webhooks.md), its run: a local webhook receiver that verifies signatures
// and prints events. The receiver itself is src/cli/listen/; this is the command around it.

/** The webhook secret of the profile commands would use, if it has one. */
function profileWebhookSecret(ctx: Ctx): string | undefined {
  const name = ctx.globals.profile ?? (ctx.io.env.PARTNER_PROFILE || undefined);
  return storedWebhookSecret(ctx.io.configDir, ctx.io.env, name);
}

interface LocalRegistration {
  operator: PartnerClient;
  businessId: number;
  webhookId?: number;
  /** The operator API, for the inspect page (deliveries, replay, request log). */
  target: { baseUrl: string; token: string };
}

export async function runListen(ctx: Ctx, opts: ListenOptions): Promise<number> {
  const { io } = ctx;
  const events = opts.events;
  let secret = opts.secret;
  let local: LocalRegistration | undefined;
  if (opts.local) {
    // The business of the active profile's key, and its webhook secret, from the local server.
    const { target } = await ctx.partner();
    const { client: operator, target: opTarget } = await ctx
      .operator(opts.data !== undefined ? { dataDir: opts.data } : {})
      .catch((err: unknown) => {
        // Point at what listen takes (it has --data, not the operator commands' --server/--token).
        if (err instanceof NoLocalServerError)
          throw new UsageError(
            `--local needs a running local server, and none was found (${err.file} is missing): start one with \`partner local start\`, or pass --data DIR (its data dir), or give --secret instead of --local`,
          );
        throw err;
      });
    const creds = (await operator.call('operatorListCredentials')) as { key: string; business_id: number }[];
    const mine = creds.find((c) => c.key === target.key);
    if (!mine)
      throw new UsageError(
        `--local: ${target.key} is not a credential of the local server at ${operator.baseUrl}`,
      );
    local = { operator, businessId: mine.business_id, target: opTarget };
    secret ??= (
      (await operator.call('operatorWebhookSecret', { body: { business_id: mine.business_id } })) as {
        webhook_secret_key: string;
      }
    ).webhook_secret_key;
  }
  secret ??= profileWebhookSecret(ctx);
  if (!secret)
    throw new UsageError('missing --secret (or a profile saved with --webhook-secret, or --local)');

  // --open implies --inspect.
  const inspectWanted = opts.inspect || opts.open;
  const inspectPort = opts.inspectPort ?? 0;
  const [{ startReceiver }, fmt, insp] = await Promise.all([
    import('../listen/receiver.js'),
    import('../listen/format.js'),
    inspectWanted ? import('../inspect/start.js') : undefined,
  ]);
  // Created before the receiver so that no delivery is missed; the page starts once its URL is known.
  const recorder = insp?.createRecorder();
  const json = ctx.json;
  const receiver = await startReceiver({
    host: opts.host,
    port: opts.port,
    secret,
    ...(events ? { events } : {}),
    ...(opts.forwardTo !== undefined ? { forwardTo: opts.forwardTo } : {}),
    onEvent: (e) => {
      recorder?.listen.received(e);
      io.stdout.write(
        json ? fmt.jsonLine(e) : wrapForTerminal(fmt.prettyEvent(e, ctx.color), wrapColumns(io, 'stdout')),
      );
    },
    // With --json, stdout carries only event objects; forwarding results go to stderr.
    onForward: (r) =>
      (json ? io.stderr : io.stdout).write(
        wrapForTerminal(
          fmt.prettyForward(r, json ? ctx.colorErr : ctx.color),
          wrapColumns(io, json ? 'stderr' : 'stdout'),
        ),
      ),
    onRejected: (r) => {
      recorder?.listen.rejected(r);
      io.stderr.write(`rejected ${r.event_id ?? '(no event id)'}: ${r.reason}\n`);
    },
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE')
      throw new UsageError(`port ${opts.port} is in use: pass --port N (0 picks a free one)`);
    throw err;
  });
  // Listening for the stop signals before the webhook is registered and "Listening on …; Ctrl-C
  // stops" is printed: added after that line, as it was, a Ctrl-C that came while listen was
  // between the write and the listener (a busy machine pauses it there) met no listener, and
  // listen died by the signal with its webhook left registered. One that comes during the
  // registration stops listen as soon as it is made.
  const cancelled = new AbortController();
  const stopRequested = io.untilStopped ? io.untilStopped() : untilSignal(cancelled.signal);
  let inspect: Awaited<ReturnType<NonNullable<typeof insp>['startInspect']>> | undefined;
  try {
    if (insp && recorder) {
      const { partnerSource, announce } = await import('./inspect-run.js');
      const { menuHistoryDir } = await import('../inspect/menu-history.js');
      inspect = await insp
        .startInspect({
          mode: 'listen',
          version: __PARTNER_VERSION__,
          port: inspectPort,
          recorder,
          listen: {
            url: receiver.url,
            forwardTo: opts.forwardTo ?? null,
          },
          // With --local, the server's side too: delivery attempts, replay, the request log.
          ...(local ? { operator: local.target } : {}),
          partner: partnerSource(ctx),
          insecure: ctx.insecure,
          historyDir: menuHistoryDir(io.env, io.configDir),
        })
        .catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'EADDRINUSE')
            throw new UsageError(
              `--inspect-port ${inspectPort} is in use: pass --inspect-port N (0 picks a free one)`,
            );
          throw err;
        });
      // stderr: stdout carries the events (one JSON object per line with --json).
      await announce(inspect, io.stderr, io.stderr, io.env, opts.open, wrapColumns(io, 'stderr'));
    }
    if (local) {
      const wh = (await local.operator.call('operatorAddWebhook', {
        body: { business_id: local.businessId, url: receiver.url, event: 'all' },
      })) as { id: number };
      local.webhookId = wh.id;
    }
    io.stderr.write(
      wrapForTerminal(
        `Listening on ${receiver.url}${local ? ` (registered as webhook ${local.webhookId} for every event of business ${local.businessId})` : ''}; Ctrl-C stops\n`,
        wrapColumns(io, 'stderr'),
      ),
    );
    await stopRequested;
  } finally {
    if (local?.webhookId !== undefined) {
      await local.operator
        .call('operatorRemoveWebhook', { params: { id: local.webhookId } })
        .catch((err: Error) =>
          io.stderr.write(`could not remove webhook ${local?.webhookId}: ${err.message}\n`),
        );
    }
    await inspect?.close();
    await receiver.close();
    // A failed start's listeners go (a stop's own stay until the exit: a second signal forces it).
    cancelled.abort();
  }
  return 0;
}
