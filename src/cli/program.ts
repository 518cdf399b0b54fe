import { Command, CommanderError, Option } from 'commander';
import type { Action } from './commands/action.js';
import { registerApi } from './commands/api.js';
import { registerAuth } from './commands/auth.js';
import { registerCompletion } from './commands/completion.js';
import { registerInspect } from './commands/inspect.js';
import type { CompletionContext } from './commands/completion-words.js';
import { registerListen } from './commands/listen.js';
import { registerLogs } from './commands/logs.js';
import { registerTrigger } from './commands/trigger.js';
import { registerOpenApi } from './commands/openapi.js';
import { registerProfiles } from './commands/profiles.js';
import { group, registerOperations } from './commands/register.js';
import { registerWebhookTools } from './commands/webhooks.js';
import { type Ctx, makeCtx } from './context.js';
import { registerBootstrap } from './flows/bootstrap-command.js';
import { registerDemo } from './flows/demo-command.js';
import { registerOrdersWatch } from './flows/orders-watch-command.js';
import { EXIT, UsageError } from './errors.js';
import { registerMenuPush } from './flows/menu-push/register.js';
import { foldExamples, reflowDescription } from './help-format.js';
import { type Io, wrapColumns } from './io.js';
import { wrapForTerminal } from './output/text-width.js';

export { processIo } from './io.js';
import { MANIFEST } from './manifest/data.js';
import type { Manifest } from './manifest/types.js';
import { reportError } from './output/errors.js';
import { normalizeJsonFlag } from './output/json-flag.js';
import { planStdout } from './output/stdout-plan.js';
import { readConfigFile } from './profile-file.js';

// The command tree. Everything here is cheap to load; command bodies import what they need.

interface RunState {
  code: number;
  ctx?: Ctx;
}

function registerLocal(root: Command, action: Action): void {
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
  action(start, async (ctx, _args, opts) => {
    const port = Number(opts.port);
    if (!/^\d+$/.test(String(opts.port)) || port > 65535)
      throw new UsageError(`--port must be 0–65535, got "${opts.port}"`);
    const { runLocalStart } = await import('./commands/local.js');
    return runLocalStart(
      {
        port,
        host: String(opts.host),
        ...(typeof opts.data === 'string' ? { data: opts.data } : {}),
        ...(typeof opts.database === 'string' ? { database: opts.database } : {}),
        seed: opts.seed as 'demo' | 'none',
        ...(typeof opts.retrySchedule === 'string' ? { retrySchedule: opts.retrySchedule } : {}),
        durability: opts.durability as 'normal' | 'full',
        ...(typeof opts.sealKeyFile === 'string' ? { sealKeyFile: opts.sealKeyFile } : {}),
        ...(typeof opts.operatorTokenFile === 'string' ? { operatorTokenFile: opts.operatorTokenFile } : {}),
        ...(opts.inspect === true || opts.open === true
          ? { inspect: { port: opts.inspectPort ?? '0', open: opts.open === true, insecure: ctx.insecure } }
          : {}),
      },
      ctx.io,
    );
  });
}

/**
 * The first word that names a command, skipping global options and their values; used to
 * register only that group's operations (each registered command costs start-up time).
 */
export function firstCommandWord(
  argv: readonly string[],
  isCommand: (w: string) => boolean = () => true,
): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--profile' || a === '--base-url' || a === '--jq' || a === '--template') i++;
    else if (a === '--json' && /^[A-Za-z_][\w,]*$/.test(argv[i + 1] ?? '') && !isCommand(argv[i + 1]!)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

function width(stream: unknown, tty: boolean): number {
  const cols = (stream as { columns?: number }).columns;
  return tty && cols && cols >= 20 ? cols : 80;
}

export function buildProgram(io: Io, manifest: Manifest, state: RunState, argv?: readonly string[]): Command {
  const outWidth = () => width(io.stdout, io.stdoutIsTTY);
  const program = new Command('partner');
  program
    .description('CLI for the restaurant Partner Integration API, with an embedded local server')
    .version(__PARTNER_VERSION__, '-V, --version', 'print the version')
    .option('--profile <name>', 'profile to use (env PARTNER_PROFILE)')
    .option('--base-url <url>', 'API base URL (env PARTNER_BASE_URL)')
    .option('--json [fields]', 'print the response data as JSON; with FIELDS (id,status) only those fields')
    .option('--jq <expr>', 'filter the JSON output with a jq expression (implies --json)')
    .option('--template <text>', 'format the JSON output with a Handlebars template (implies --json)')
    .option('--no-pager', 'do not page long output on a terminal (PARTNER_PAGER, PAGER)')
    .option('--no-color', 'no colours (also NO_COLOR)')
    .option(
      '--verbose',
      'log each request (method, URL, status, time, request_id) and error details on stderr',
    )
    .option('--insecure', 'allow credentials over plain http to a non-loopback host')
    .helpOption('-h, --help', 'show help')
    // Wrap even beside long option names (commander's default gives up under 40 columns left).
    .configureHelp({
      showGlobalOptions: true,
      minWidthToWrap: 20,
      commandDescription: (cmd) => reflowDescription(cmd.description()),
    })
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) =>
        io.stdout.write(wrapForTerminal(foldExamples(s, outWidth()), wrapColumns(io, 'stdout'))),
      writeErr: (s) => io.stderr.write(s),
      // The terminal's width on a TTY, 80 otherwise (help piped to a file or a pager).
      getOutHelpWidth: outWidth,
      getErrHelpWidth: () => width(io.stderr, io.stderrIsTTY),
    });
  program.addHelpText(
    'after',
    '\nExamples:\n  $ partner profiles add local --key pk_… --secret - --base-url http://127.0.0.1:8787\n  $ partner branches list --all --json\n  $ partner orders patch 1042 --status READY\n\nExit codes: 0 ok, 1 other, 2 usage, 3 auth, 4 not found, 5 conflict, 6 rate limited,\n7 network or 5xx.\n',
  );

  // Commands whose output is one long answer, worth a pager on a terminal (not prompts, streams,
  // progress, nor a write's confirmation): every API read, and these.
  const paged = new Set(['api', 'openapi', 'profiles list', 'profiles show']);
  const action: Action = (cmd, fn) => {
    cmd.action(async (...a: unknown[]) => {
      const c = a.at(-1) as Command;
      const path: string[] = [];
      for (let x: Command | null = c; x?.parent; x = x.parent) path.unshift(x.name());
      const what = path.join(' ');
      const op = manifest.ops.find((o) => o.cli?.command.join(' ') === what);
      const opts = c.optsWithGlobals();
      const out = await planStdout(io, opts, {
        what,
        opId: op?.id,
        ownFilter: what === 'api',
        pageable: op?.method === 'GET' || paged.has(what),
      });
      const ctx = makeCtx(out.io, manifest, c);
      ctx.json ||= out.json;
      state.ctx = ctx;
      const args = (c.processedArgs as unknown[]).flatMap((v) =>
        v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)],
      );
      try {
        state.code = (await fn(ctx, args, opts, c)) ?? 0;
      } catch (err) {
        await out.abort();
        throw err;
      }
      await out.finish();
    });
  };

  const groups = [...new Set(manifest.ops.flatMap((o) => (o.cli ? [o.cli.command[0]!] : [])))];
  const first = argv ? firstCommandWord(argv, (w) => groups.includes(w)) : undefined;
  // Running an API operation: profiles and auth only need their summary in help.
  const lean = first !== undefined && groups.includes(first);
  registerProfiles(program, action, lean);
  registerAuth(program, action, lean);
  if (lean) {
    // Other groups appear in `--help` with their summary but without their subcommands.
    for (const g of groups) group(program, [g]);
    registerOperations(program, manifest, action, (op) => op.cli?.command[0] === first);
  } else registerOperations(program, manifest, action);
  registerMenuPush(program, action);
  // Into the `orders` group the operations above created (or the bare group, for other words).
  registerOrdersWatch(program, action);
  registerBootstrap(program, action);
  registerDemo(program, action);
  registerWebhookTools(program, action);
  registerListen(program, action);
  registerInspect(program, action);
  registerLogs(program, action);
  registerTrigger(program, action);
  registerApi(program, action);
  registerOpenApi(program, action);
  registerCompletion(program, action);
  registerLocal(program, action);
  return program;
}

/** Runs the CLI in-process; resolves to the exit code. */
export async function run(argv: readonly string[], io: Io, manifest: Manifest = MANIFEST): Promise<number> {
  const state: RunState = { code: EXIT.ok };
  const program = buildProgram(io, manifest, state, argv[0] === '__complete' ? undefined : argv);
  if (argv[0] === '__complete') {
    // Shell completion (completion.ts): answered from the tree without parsing the words.
    const profiles = () => {
      try {
        return Object.keys(readConfigFile(io.configDir).profiles ?? {}).sort();
      } catch {
        return []; // an unreadable config file offers no names; completion never prints errors
      }
    };
    const ids = async (q: Parameters<NonNullable<CompletionContext['ids']>>[0]) =>
      (await import('./completion-values.js')).remoteIds(io, q).catch(() => []);
    const opPath = (path: string) => manifest.ops.find((o) => o.cli?.command.join(' ') === path)?.path;
    const { completeWords } = await import('./commands/completion-words.js');
    for (const c of await completeWords(program, argv.slice(1), { profiles, ids, opPath }))
      io.stdout.write(`${c}\n`);
    return EXIT.ok;
  }
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  try {
    await program.parseAsync(normalizeJsonFlag(program, argv), { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; a group without its subcommand prints help and is a usage error.
      state.code = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    } else {
      const verbose = argv.includes('--verbose');
      const color = state.ctx?.colorErr ?? false;
      state.code = reportError(err, io.stderr, {
        verbose: state.ctx?.verbose ?? verbose,
        color,
        ...(state.ctx?.credentialSource ? { credentialSource: state.ctx.credentialSource } : {}),
      });
    }
  } finally {
    await state.ctx?.close().catch(() => undefined);
  }
  return state.code;
}
