import type { Command } from 'commander';
import type { PartnerClient } from '../../client/client.js';
import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';
import { untilSignal, wrapColumns } from '../io.js';
import { wrapForTerminal } from '../output/text-width.js';
import { profileWebhookSecret as storedWebhookSecret } from '../profile-file.js';
import { NoLocalServerError } from '../target.js';
import type { Action } from './action.js';

// `partner listen` (docs/webhooks.md): a local webhook receiver that verifies signatures and prints
// events. The receiver itself is src/cli/listen/; this is the command around it.

const EVENT_TYPES = [
  'service.order.created.v2',
  'service.order.status.updated',
  'service.order.cart.updated',
];

/** The webhook secret of the profile commands would use, if it has one. */
function profileWebhookSecret(ctx: Ctx): string | undefined {
  const name = ctx.globals.profile ?? (ctx.io.env.PARTNER_PROFILE || undefined);
  return storedWebhookSecret(ctx.io.configDir, ctx.io.env, name);
}

function portFlag(v: unknown, flag: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(String(v)) || n > 65535) throw new UsageError(`${flag} must be 0–65535, got "${v}"`);
  return n;
}
const port = (v: unknown) => portFlag(v, '--port');

interface LocalRegistration {
  operator: PartnerClient;
  businessId: number;
  webhookId?: number;
  /** The operator API, for the inspect page (deliveries, replay, request log). */
  target: { baseUrl: string; token: string };
}

async function runListen(ctx: Ctx, opts: Record<string, unknown>): Promise<number> {
  const { io } = ctx;
  const events =
    typeof opts.events === 'string'
      ? opts.events
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean)
      : undefined;
  for (const e of events ?? []) {
    if (!EVENT_TYPES.includes(e))
      throw new UsageError(`--events: unknown event type "${e}" (one of ${EVENT_TYPES.join(', ')})`);
  }
  if (typeof opts.forwardTo === 'string' && !/^https?:\/\//.test(opts.forwardTo)) {
    throw new UsageError(`--forward-to must be an http(s) URL, got "${opts.forwardTo}"`);
  }
  let secret = typeof opts.secret === 'string' ? opts.secret : undefined;
  let local: LocalRegistration | undefined;
  if (opts.local === true) {
    // The business of the active profile's key, and its webhook secret, from the local server.
    const { target } = await ctx.partner();
    const { client: operator, target: opTarget } = await ctx
      .operator(typeof opts.data === 'string' ? { dataDir: opts.data } : {})
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

  const inspectWanted = opts.inspect === true || opts.open === true;
  const inspectPort = inspectWanted ? portFlag(opts.inspectPort ?? 0, '--inspect-port') : 0;
  const [{ startReceiver }, fmt, insp] = await Promise.all([
    import('../listen/receiver.js'),
    import('../listen/format.js'),
    inspectWanted ? import('../inspect/start.js') : undefined,
  ]);
  // Created before the receiver so that no delivery is missed; the page starts once its URL is known.
  const recorder = insp?.createRecorder();
  const json = ctx.json;
  const receiver = await startReceiver({
    host: typeof opts.host === 'string' ? opts.host : '127.0.0.1',
    port: port(opts.port ?? 4242),
    secret,
    ...(events ? { events } : {}),
    ...(typeof opts.forwardTo === 'string' ? { forwardTo: opts.forwardTo } : {}),
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
      throw new UsageError(`port ${opts.port ?? 4242} is in use: pass --port N (0 picks a free one)`);
    throw err;
  });
  let inspect: Awaited<ReturnType<NonNullable<typeof insp>['startInspect']>> | undefined;
  try {
    if (insp && recorder) {
      const { partnerSource, announce } = await import('../inspect/command.js');
      const { menuHistoryDir } = await import('../inspect/menu-history.js');
      inspect = await insp
        .startInspect({
          mode: 'listen',
          version: __PARTNER_VERSION__,
          port: inspectPort,
          recorder,
          listen: {
            url: receiver.url,
            forwardTo: typeof opts.forwardTo === 'string' ? opts.forwardTo : null,
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
      await announce(inspect, io.stderr, io.stderr, io.env, opts.open === true, wrapColumns(io, 'stderr'));
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
    await (io.untilStopped ?? untilSignal)();
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
  }
  return 0;
}

export function registerListen(root: Command, action: Action): void {
  const cmd = root
    .command('listen')
    .summary('Receive webhooks locally: verify signatures, print events, forward')
    .description(
      'Run a local webhook receiver: verifies x-partner-signature (401 "invalid signature" otherwise), acknowledges ' +
        'first, flags repeated event ids and stale status updates, prints each event (--json: one object per line) ' +
        'and optionally forwards the exact bytes and x-partner-* headers to your app.',
    )
    .option('--port <port>', 'port to listen on (0 picks a free one)', '4242')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option(
      '--secret <secret>',
      'webhook_secret_key (default: the profile’s webhook secret, or fetched with --local)',
    )
    .option('--events <types>', `only print these event types, comma-separated (${EVENT_TYPES.join(', ')})`)
    .option('--forward-to <url>', 're-send each verified event to this URL')
    .option(
      '--local',
      'register with the local server for every event of the profile’s business; removed on exit',
    )
    .option('--data <dir>', 'local server data dir, for --local (default $PARTNER_DATA_DIR)')
    .option('--inspect', 'also serve the inspect page (docs/inspect.md): these events live, resend to a URL')
    .option('--inspect-port <port>', 'port of the inspect page (0, the default, picks a free one)')
    .option('--open', 'open the inspect page in a browser (implies --inspect)');
  cmd.addHelpText(
    'after',
    '\nExamples:\n  $ partner listen --local\n  $ partner listen --local --inspect --open\n  $ partner listen --secret "$WEBHOOK_SECRET" --forward-to http://127.0.0.1:3000/webhooks --json\n',
  );
  action(cmd, (ctx, _args, opts) => runListen(ctx, opts));
}
