import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Action } from './action.js';
import { type Field, int, list, oneOf, type OptionsOf, optional, text } from './options.js';

// `partner logs tail` (docs/cli.md): the local server's request log, streamed. Registration only;
// the command's body (logs-run.ts) loads when it runs.

const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

/** `--status 4xx,404 --status 5xx` → `4xx,404,5xx`, each checked. */
const statusClasses: Field<string> = (raw, flag) => {
  const parts = list(raw, flag).map((p) => p.toLowerCase());
  for (const p of parts)
    if (!/^[1-5](xx|\d\d)$/.test(p))
      throw new UsageError(`${flag}: "${p}" is not a status such as 404 nor a class such as 4xx`);
  return [...new Set(parts)].join(',');
};

/** A path prefix; one without a leading slash is relative to /v1/partner/ (as in `partner api`). */
const pathPrefix: Field<string> = (raw, flag) => {
  const v = text(raw, flag).trim();
  if (v === '') throw new UsageError(`${flag} must not be empty`);
  const p = v.startsWith('/') ? v : `/v1/partner/${v}`;
  if (p.length > 2048) throw new UsageError(`${flag} is longer than 2048 characters`);
  return p;
};

/** The most requests one read of the log returns (the server's page), so the most --limit takes. */
export const LOGS_PAGE = 1000;

const logsTailOptions = {
  status: optional(statusClasses),
  path: optional(pathPrefix),
  method: optional(oneOf(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])),
  since: optional(text),
  limit: optional(int(1, LOGS_PAGE)),
  follow: (raw: unknown) => raw !== false,
  data: optional(text),
  server: optional(text),
  token: optional(text),
};
export type LogsTailOptions = OptionsOf<typeof logsTailOptions>;

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
  action(tail, {
    options: logsTailOptions,
    run: async (ctx, opts) => (await import('./logs-run.js')).runLogsTail(ctx, opts),
  });
}
