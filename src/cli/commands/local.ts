import { type Command, Option } from 'commander';
import type { Action } from './action.js';
import {
  durationList,
  type OptionsOf,
  type OptionsSchema,
  oneOf,
  on,
  optional,
  port,
  text,
} from './options.js';

// `partner local start` (docs/api.md): the embedded server in the foreground. Declaration only;
// the body (local-run.ts, and the server behind it) loads when the command runs.

const localStartOptions = {
  port,
  host: text,
  data: optional(text),
  database: optional(text),
  seed: oneOf(['demo', 'none']),
  retrySchedule: optional(durationList),
  durability: oneOf(['normal', 'full']),
  sealKeyFile: optional(text),
  operatorTokenFile: optional(text),
  inspect: on,
  inspectPort: optional(port),
  open: on,
} satisfies OptionsSchema;
export type LocalStartOptions = OptionsOf<typeof localStartOptions>;

export function registerLocal(root: Command, action: Action): void {
  const local = root.command('local').summary('Run the Partner API locally (embedded server)');
  local.description('Run the Partner API locally: real HTTP, SQLite persistence, webhooks, operator API.');
  const start = local
    .command('start')
    .summary('Start the local server in the foreground (Ctrl-C stops it)')
    .description(
      'Start the local server in the foreground until SIGINT/SIGTERM. Writes DIR/local.json {base_url, operator_token}; ' +
        '--seed demo on an empty DIR creates demo businesses and saves a CLI profile `local`.',
    )
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8787')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--data <dir>', 'data dir (default $PARTNER_DATA_DIR or the per-user data folder)')
    .option(
      '--database <url>',
      'PostgreSQL URL postgres://… shared by N instances (default $PARTNER_DATABASE_URL; else SQLite in the data dir)',
    )
    .addOption(
      new Option('--seed <seed>', 'demo data on an empty data dir').choices(['demo', 'none']).default('none'),
    )
    .option(
      '--retry-schedule <list>',
      'webhook retry delays, e.g. 1s,2s,4s (default 10s,1m,5m,30m,2h,6h,12h)',
    )
    .addOption(
      new Option('--durability <mode>', 'full also survives power loss (slower writes)')
        .choices(['normal', 'full'])
        .default('normal'),
    )
    .option(
      '--seal-key-file <file>',
      'key sealing webhook secrets, shared by all instances (env PARTNER_SEAL_KEY[_FILE])',
    )
    .option(
      '--operator-token-file <file>',
      'operator token shared by all instances (env PARTNER_OPERATOR_TOKEN[_FILE])',
    )
    .option('--inspect', 'also serve the inspect page (docs/inspect.md): deliveries, requests, menus, live')
    .option('--inspect-port <port>', 'port of the inspect page (0, the default, picks a free one)')
    .option('--open', 'open the inspect page in a browser (implies --inspect)');
  start.addHelpText(
    'after',
    '\nExamples:\n  $ partner local start --seed demo --port 8787\n  $ partner local start --seed demo --inspect --open\n',
  );
  action(start, {
    options: localStartOptions,
    async run(ctx, opts) {
      const { runLocalStart } = await import('./local-run.js');
      return runLocalStart(opts, ctx.io, ctx.insecure);
    },
  });
}
