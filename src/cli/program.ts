import { Command, CommanderError } from 'commander';
import type { Action } from './commands/action.js';
import { registerApi } from './commands/api.js';
import { registerAuth } from './commands/auth.js';
import { registerCompletion } from './commands/completion.js';
import { registerInspect } from './commands/inspect.js';
import type { CompletionContext } from './commands/completion-words.js';
import { registerListen } from './commands/listen.js';
import { registerLocal } from './commands/local.js';
import { parseOptions } from './commands/options.js';
import { registerLogs } from './commands/logs.js';
import { registerTrigger } from './commands/trigger.js';
import { registerOpenApi } from './commands/openapi.js';
import { registerProfiles } from './commands/profiles.js';
import { group, registerOperations } from './commands/register.js';
import { registerWebhookTools } from './commands/webhooks.js';
import { type Ctx, makeCtx } from './context.js';
import { registerBootstrap } from './commands/bootstrap.js';
import { registerDemo } from './commands/demo.js';
import { registerOrdersWatch } from './commands/orders-watch.js';
import { EXIT } from './errors.js';
import { registerMenuPush } from './commands/menu.js';
import { foldExamples, reflowDescription } from './help-format.js';
import { type Io, wrapColumns } from './io.js';

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
  /** What commander wrote to stdout (help) and is still being written: run() waits for it. */
  written?: Promise<void>;
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

/** A command line as the declarations read it (parseCommandLine). */
export interface ParsedCommand {
  command: string;
  args: string[];
  options: Record<string, unknown>;
}

export function buildProgram(
  io: Io,
  manifest: Manifest,
  state: RunState,
  argv?: readonly string[],
  /** When given, commands only record what they would run with, and run nothing. */
  parsed?: ParsedCommand[],
): Command {
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
      // Help is wrapped only at a terminal, by text-width.ts, loaded then: wrap-ansi and its tables
      // stay out of the hot chunk every command compiles (docs/development.md, start-up). Piped
      // help is written at once; writes keep their order through state.written.
      writeOut: (s) => {
        const text = foldExamples(s, outWidth());
        const columns = wrapColumns(io, 'stdout');
        const write = async () => {
          io.stdout.write(
            columns ? (await import('./output/text-width.js')).wrapForTerminal(text, columns) : text,
          );
        };
        state.written = state.written ? state.written.then(write) : write();
      },
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
  const action: Action = (cmd, spec) => {
    cmd.action(async (...a: unknown[]) => {
      const c = a.at(-1) as Command;
      const path: string[] = [];
      for (let x: Command | null = c; x?.parent; x = x.parent) path.unshift(x.name());
      const what = path.join(' ');
      const raw = c.optsWithGlobals();
      const args = (c.processedArgs as unknown[]).flatMap((v) =>
        v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)],
      );
      // The options are read and checked before anything else: a bad one is exit 2, nothing run.
      const opts = parseOptions(spec.options, raw);
      if (parsed) {
        parsed.push({ command: what, args, options: opts });
        return;
      }
      const op = manifest.ops.find((o) => o.cli?.command.join(' ') === what);
      const out = await planStdout(io, raw, {
        what,
        opId: op?.id,
        ownFilter: what === 'api',
        pageable: op?.method === 'GET' || paged.has(what),
      });
      const ctx = makeCtx(out.io, manifest, c);
      ctx.json ||= out.json;
      state.ctx = ctx;
      try {
        state.code = (await spec.run(ctx, opts, args, c)) ?? 0;
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
    await state.written;
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
    await state.written;
    await state.ctx?.close().catch(() => undefined);
  }
  return state.code;
}

/**
 * Reads a command line as `run` does, up to the command's typed options, and runs nothing (no
 * server, no request, no file): tests of each declaration use it. A bad option throws the
 * UsageError `run` reports as exit 2; a commander error (unknown flag) its CommanderError.
 */
export async function parseCommandLine(argv: readonly string[], io: Io): Promise<ParsedCommand> {
  const parsed: ParsedCommand[] = [];
  const program = buildProgram(io, MANIFEST, { code: EXIT.ok }, argv, parsed);
  await program.parseAsync(normalizeJsonFlag(program, argv), { from: 'user' });
  const found = parsed[0];
  if (!found) throw new Error(`no command in: ${argv.join(' ')}`);
  return found;
}
