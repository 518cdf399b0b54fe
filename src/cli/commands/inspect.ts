import type { Command } from 'commander';
import type { Action } from './action.js';
import { on, type OptionsOf, optional, port, text } from './options.js';

// `partner inspect`: registration only; the body loads when the command runs (docs/inspect.md).

const inspectOptions = {
  port,
  open: on,
  data: optional(text),
  server: optional(text),
  token: optional(text),
};
export type InspectCommandOptions = OptionsOf<typeof inspectOptions>;

export function registerInspect(root: Command, action: Action): void {
  const cmd = root
    .command('inspect')
    .summary('A local web page: webhooks, requests and the published menu, live')
    .description(
      'Serve a page on 127.0.0.1 (free port, printed with a per-run token) with three live views: Webhooks (the ' +
        "local server's deliveries and attempts, with replay), Requests (the local server's request log) and Menu " +
        'preview (the published menu of a brand at a branch, read with your profile, as a marketplace shows it). ' +
        '`partner listen --inspect` and `partner local start --inspect` serve the same page.',
    )
    .option('--port <port>', 'port of the page (0, the default, picks a free one)', '0')
    .option('--open', 'open the page in a browser ($BROWSER, else the system’s)')
    .option(
      '--data <dir>',
      'data dir of the local server (default $PARTNER_DATA_DIR or the per-user data folder)',
    )
    .option('--server <url>', 'operator API base URL (with --token)')
    .option('--token <token>', 'operator token (with --server)');
  cmd.addHelpText(
    'after',
    '\nExamples:\n  $ partner inspect --open\n  $ partner inspect --data ./.partner-data --port 7000\n',
  );
  action(cmd, {
    options: inspectOptions,
    run: async (ctx, opts) => (await import('./inspect-run.js')).runInspect(ctx, opts),
  });
}
