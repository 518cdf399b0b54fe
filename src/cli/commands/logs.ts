import type { Command } from 'commander';
import type { Action } from './action.js';

// `partner logs tail` (docs/cli.md): the local server's request log, streamed. Registration only;
// the command's body (logs-tail.ts) loads when it runs.

const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

export function registerLogs(root: Command, action: Action): void {
  const logs = root.command('logs').summary("The local server's request log");
  logs.description("The local server's request log (every request under /v1/ it answered).");
  const tail = logs
    .command('tail')
    .summary("Stream the local server's requests as they are answered (Ctrl-C stops)")
    .description(
      'Print each request the local server answers under /v1/: time, status, method, path, duration, request id ' +
        '(the X-Request-Id of the answer), credential key and error code. --json prints one object per line. ' +
        'Without --limit or --since only new requests are shown. Stops with exit 7 when the server goes away.',
    )
    .option(
      '--status <list>',
      'only these statuses or classes: 4xx, 5xx, 404… (comma list or repeated)',
      collect,
    )
    .option('--path <prefix>', 'only paths starting with this (relative ones start at /v1/partner/)')
    .option('--method <method>', 'only this HTTP method')
    .option('--since <when>', 'first print the requests since then (ISO 8601, or 30m/2h/1d ago)')
    .option('--limit <n>', 'first print the newest N requests (with --since: the newest N since then)')
    .option('--no-follow', 'print the history asked for and exit')
    .option('--data <dir>', 'local server data dir (default $PARTNER_DATA_DIR or the per-user data folder)')
    .option('--server <url>', 'operator API base URL (with --token)')
    .option('--token <token>', 'operator token (with --server)');
  tail.addHelpText(
    'after',
    '\nExamples:\n  $ partner logs tail\n  $ partner logs tail --status 4xx,5xx --path orders\n  $ partner logs tail --since 10m --no-follow --json | jq -r .request_id\n',
  );
  action(tail, async (ctx, _args, opts) => {
    const { runLogsTail } = await import('./logs-tail.js');
    return runLogsTail(ctx, opts);
  });
}
