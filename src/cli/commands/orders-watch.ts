import { type Command, Option } from 'commander';
import type { Action } from './action.js';
import { duration, int, type OptionsOf, optional, statusIds, text } from './options.js';
import { group } from './register.js';

// `partner orders watch`: registered into the existing `orders` group (derived commands stay as
// they are); the flow itself loads only when the command runs.

const ordersWatchOptions = {
  branch: optional(int()),
  status: optional(statusIds),
  interval: duration('must be a duration of at least 100ms (e.g. 2s)', 100),
  /** Resolved against the clock when the watch starts (ISO time, a duration ago, or now). */
  since: optional(text),
  maxPolls: optional(int()),
  duration: optional(duration('must be a duration such as 30s or 5m', 1)),
  /** Hidden: the window overlap (default 2m). */
  overlap: optional(duration('must be a duration such as 2m')),
};
export type OrdersWatchOptions = OptionsOf<typeof ordersWatchOptions>;

export function registerOrdersWatch(root: Command, action: Action): void {
  const cmd = group(root, ['orders'])
    .command('watch')
    .summary('Poll for new orders and status changes (live table and actions on a terminal)')
    .description(
      'Poll GET /orders with a moving created_at window (overlapping, to absorb clock skew) and re-read open ' +
        'orders, showing every new order and every change once — also across restarts, through a cursor file ' +
        'per profile and filters in the config dir. On a terminal: a live table; keys act on the selected order ' +
        '(a accept, r ready, d delivered, c cancel, m comment, enter menu, q quit). --json: one JSON line per ' +
        'change. Backs off on 429/5xx/network errors (honouring Retry-After) and says so on stderr.',
    )
    .option('--branch <id>', 'only orders of this branch')
    .option('--status <list>', 'only show orders in these statuses (codes or ids, comma-separated)')
    .option('--interval <duration>', 'time between polls, e.g. 2s, 500ms, 1m', '2s')
    .option(
      '--since <when>',
      'start from this time (ISO 8601, or 30m/2h/1d ago, or now) instead of the cursor',
    )
    .option('--max-polls <n>', 'stop after N polls (scripts, tests)')
    .option('--duration <duration>', 'stop after this long, e.g. 30s, 10m')
    // How far each window reaches back over the previous one (clock skew, late commits); default 2m.
    .addOption(new Option('--overlap <duration>').hideHelp());
  cmd.addHelpText(
    'after',
    '\nExamples:\n  $ partner orders watch\n  $ partner orders watch --branch 12 --status PLACED,ACCEPTED --interval 5s\n  $ partner orders watch --json --since 1h --max-polls 1 | jq .order_id\n',
  );
  action(cmd, {
    options: ordersWatchOptions,
    run: async (ctx, opts) => (await import('./orders-watch-run.js')).runOrdersWatch(ctx, opts),
  });
}
