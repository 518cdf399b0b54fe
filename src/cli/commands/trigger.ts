import type { Command } from 'commander';
import type { Action } from './action.js';
import { duration, int, type OptionsOf, optional, status, text } from './options.js';

// `partner trigger EVENT` (docs/cli.md): fire a real order event on the local server through its
// operator API. Registration only; the body (trigger-run.ts) loads when the command runs.

const TRIGGER_EVENTS = ['order.created', 'order.status', 'order.cart'] as const;

const triggerOptions = {
  business: optional(int()),
  brand: optional(int()),
  branch: optional(int()),
  order: optional(int()),
  status: optional(status),
  items: optional(int(1, 20)),
  wait: optional(duration('must be a duration of at most 10m (e.g. 30s, 2m; 0 does not wait)', 0, 600_000)),
  data: optional(text),
  server: optional(text),
  token: optional(text),
};
export type TriggerOptions = OptionsOf<typeof triggerOptions>;

export function registerTrigger(root: Command, action: Action): void {
  const cmd = root
    .command('trigger')
    .summary('Fire a real order event on the local server (created, status, cart)')
    .description(
      'Fire order.created (service.order.created.v2), order.status (service.order.status.updated) or order.cart ' +
        '(service.order.cart.updated) on the local server through its operator API, as a marketplace would: the ' +
        'event goes through the outbox to every registered receiver, signed. Prints the order, the event ids and ' +
        'what each receiver answered (waiting for the first attempts, up to --wait).',
    )
    .argument('<event>', `${TRIGGER_EVENTS.join(', ')} (or the full event type)`)
    .option('--business <id>', 'business of the new order (default: the business of the active profile)')
    .option('--brand <id>', "brand of the new order (default: the profile's default brand, else the first)")
    .option(
      '--branch <id>',
      "branch of the new order (default: the profile's default branch, else the brand's first)",
    )
    .option('--order <id>', 'an existing order (order.status, order.cart; default: a new order)')
    .option('--status <status>', 'order.status: the status to set, code or id (default: the next one)')
    .option('--items <n>', 'lines of the generated cart (1–20) of a new order, or of the replaced cart')
    .option(
      '--wait <duration>',
      "how long to wait at most for each receiver's first answer (default 15s; 0: print what is known)",
    )
    .option('--data <dir>', 'local server data dir (default $PARTNER_DATA_DIR or the per-user data folder)')
    .option('--server <url>', 'operator API base URL (with --token)')
    .option('--token <token>', 'operator token (with --server)');
  cmd.addHelpText(
    'after',
    '\nExamples:\n  $ partner trigger order.created\n  $ partner trigger order.status --order 1042 --status READY\n  $ partner trigger order.cart --items 3 --json\n',
  );
  action(cmd, {
    options: triggerOptions,
    run: async (ctx, opts, args) => (await import('./trigger-run.js')).runTrigger(ctx, args[0]!, opts),
  });
}
