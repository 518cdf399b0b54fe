import { Readable } from 'node:stream';
import type { Io, Prompter } from '../../src/cli/io.js';
import { type ParsedCommand, parseCommandLine, run } from '../../src/cli/program.js';
import { tempDir } from '../helpers/temp-dir.js';

// Runs the CLI in-process with an injected Io: TTY on or off, a scripted prompter, a fixed
// clock, and a private config dir.

export interface PromptCall {
  kind: 'input' | 'password' | 'confirm' | 'select';
  message: string;
}

/** A prompter that answers from a script and records what was asked; an unscripted prompt fails the test. */
export function fakePrompter(answers: unknown[] = []): Prompter & { calls: PromptCall[] } {
  const calls: PromptCall[] = [];
  const next = (kind: PromptCall['kind'], message: string) => {
    calls.push({ kind, message });
    if (answers.length === 0) throw new Error(`unexpected prompt (${kind}): ${message}`);
    return answers.shift();
  };
  return {
    calls,
    input: async (o) => String(next('input', o.message)),
    password: async (o) => String(next('password', o.message)),
    confirm: async (o) => Boolean(next('confirm', o.message)),
    select: async (o) => next('select', o.message) as never,
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  tty?: boolean;
  env?: Record<string, string | undefined>;
  prompter?: Prompter;
  stdin?: string;
  configDir?: string;
  now?: number;
  cwd?: string;
  /** For foreground commands (listen): resolves when the command should stop. */
  untilStopped?: () => Promise<string>;
  /** Sees stderr as it is written (e.g. to wait for "Listening on"). */
  onStderr?: (chunk: string) => void;
  /** Sees stdout as it is written (a streaming command's lines as they come). */
  onStdout?: (chunk: string) => void;
}

// The shared helpers, re-exported where CLI tests have always imported them.
export { profileDir } from '../helpers/profile.js';
export { tempDir } from '../helpers/temp-dir.js';

/** The Io of an in-process run: output captured into `out`, nothing of the developer's machine. */
export function testIo(o: CliOptions, out: { stdout: string; stderr: string }): Io {
  const tty = o.tty ?? false;
  const now = o.now ?? Date.now();
  return {
    stdout: {
      write: (s: string) => {
        out.stdout += s;
        o.onStdout?.(s);
        return true;
      },
    },
    stderr: {
      write: (s: string) => {
        out.stderr += s;
        o.onStderr?.(s);
        return true;
      },
    },
    stdin: Readable.from(o.stdin === undefined ? [] : [Buffer.from(o.stdin)]),
    stdoutIsTTY: tty,
    stderrIsTTY: false, // no spinners in tests: their frames would interleave with assertions
    stdinIsTTY: tty && o.stdin === undefined,
    // Never the developer's own OS keyring: tests that want one start their own (keyring.test.ts).
    env: { PARTNER_KEYRING: 'off', ...o.env } as NodeJS.ProcessEnv,
    color: true,
    prompter: o.prompter ?? fakePrompter(),
    clock: { now: () => now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
    configDir: o.configDir ?? tempDir('partner-cfg-'),
    cwd: o.cwd ?? process.cwd(),
    ...(o.untilStopped ? { untilStopped: o.untilStopped } : {}),
  };
}

export async function runCli(argv: string[], o: CliOptions = {}): Promise<CliResult> {
  const out = { stdout: '', stderr: '' };
  const code = await run(argv, testIo(o, out));
  return { code, ...out };
}

/**
 * What a command line reads as, without running it (argv → typed options: no server, no
 * request): `{command, args, options}`, or the usage error it is refused with.
 */
export async function parseArgv(
  argv: string[],
  o: CliOptions = {},
): Promise<ParsedCommand | { error: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  try {
    return await parseCommandLine(argv, testIo(o, out));
  } catch (err) {
    return { error: (err as Error).message, stderr: out.stderr };
  }
}
