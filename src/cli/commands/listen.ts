import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Action } from './action.js';
import { type Field, httpUrl, list, on, type OptionsOf, optional, port, text } from './options.js';

// `partner listen` (docs/webhooks.md): the declaration; the run (listen-run.ts) loads when it runs.

const EVENT_TYPES = [
  'service.order.created.v2',
  'service.order.status.updated',
  'service.order.cart.updated',
];

/** `--events a,b`: known event types only. */
const eventTypes: Field<string[]> = (raw, flag) => {
  const events = list(raw, flag);
  for (const e of events)
    if (!EVENT_TYPES.includes(e))
      throw new UsageError(`${flag}: unknown event type "${e}" (one of ${EVENT_TYPES.join(', ')})`);
  return events;
};

const listenOptions = {
  port,
  host: text,
  secret: optional(text),
  events: optional(eventTypes),
  forwardTo: optional(httpUrl),
  local: on,
  data: optional(text),
  inspect: on,
  inspectPort: optional(port),
  open: on,
};
export type ListenOptions = OptionsOf<typeof listenOptions>;

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
  action(cmd, {
    options: listenOptions,
    run: async (ctx, opts) => (await import('./listen-run.js')).runListen(ctx, opts),
  });
}
