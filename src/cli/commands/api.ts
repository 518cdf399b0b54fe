import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Action } from './action.js';
import { type Field, jsonFlag, on, type OptionsOf, optional, repeated, text } from './options.js';

// `partner api METHOD PATH`, as gh's: the command's definition; its body (api-run.ts) loads
// only when it runs.

const collect = (v: string, p: string[] | undefined) => [...(p ?? []), v];

const idempotencyKey: Field<string> = (raw, flag) => {
  const key = text(raw, flag);
  if (key === '' || key.length > 64) throw new UsageError(`${flag} must be 1 to 64 characters`);
  return key;
};

const apiOptions = {
  rawField: repeated,
  field: repeated,
  header: repeated,
  include: on,
  paginate: on,
  data: optional(text),
  input: optional(text),
  idempotencyKey: optional(idempotencyKey),
  server: optional(text),
  token: optional(text),
  dataDir: optional(text),
  // Global flags `api` reads itself: it prints the whole envelope.
  json: jsonFlag,
  jq: optional(text),
  template: optional(text),
};
export type ApiOptions = OptionsOf<typeof apiOptions>;

export function registerApi(root: Command, action: Action): void {
  const cmd = root
    .command('api')
    .summary('Call any endpoint and print the whole envelope')
    .description(
      'Call any endpoint and print the whole response envelope (errors too); the exit code follows the status.\n\n' +
        'PATH is absolute (/v1/partner/brands) or relative to /v1/partner (brands). /v1/operator/… paths use the local operator token.\n\n' +
        'Fields (-f strings, -F typed: numbers, true, false, null, @file, @- for stdin; key[]=v builds a list, key[sub]=v an object) are the query of GET/DELETE and body fields otherwise; with --input they go to the query.',
    )
    .argument('<METHOD>', 'GET, POST, PUT, PATCH or DELETE')
    .argument('<PATH>', 'request path, e.g. /v1/partner/branches or branches')
    .option(
      '-f, --raw-field <key=value>',
      'a string field: query of GET/DELETE, body otherwise (repeatable)',
      collect,
    )
    .option('-F, --field <key=value>', 'a typed field: numbers, true/false/null, @file (repeatable)', collect)
    .option(
      '-H, --header <name:value>',
      "a request header, e.g. -H 'Accept-Language: id' (repeatable)",
      collect,
    )
    .option('-i, --include', 'print the status line and the response headers before the body')
    .option('--paginate', 'GET every page (page/size until total), printing each envelope as it comes')
    .option('--data <json>', 'request body: JSON, @FILE or - for stdin (fields are merged into it)')
    .option('--input <file>', 'request body sent byte for byte from FILE (- for stdin)')
    .option('--idempotency-key <key>', 'Idempotency-Key for writes (default: a fresh UUID)')
    .option('--server <url>', 'operator API base URL, for /v1/operator paths (with --token)')
    .option('--token <token>', 'operator token, for /v1/operator paths (with --server)')
    .option('--data-dir <dir>', 'local server data dir holding local.json, for /v1/operator paths');
  cmd.addHelpText(
    'after',
    "\nExamples:\n  $ partner api GET branches -F size=50 --paginate --jq '.data.results[].title'\n  $ partner api PATCH orders/status -F id=1042 -f status=READY -f platform=enterprise\n  $ partner api POST price/groups --input group.json -i\n",
  );
  action(cmd, {
    options: apiOptions,
    run: async (ctx, opts, args) => (await import('./api-run.js')).runApi(ctx, args[0]!, args[1]!, opts),
  });
}
