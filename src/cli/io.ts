import { constants as osConstants } from 'node:os';
import { isatty } from 'node:tty';
import { defaultConfigDir } from './paths.js';

// Everything a command touches of the outside world, injected so tests run commands in-process
// with TTY on or off, a fake prompter and a fixed clock.

export interface OutStream {
  write(chunk: string): unknown;
}

export interface Prompter {
  input(o: { message: string; default?: string; validate?: (v: string) => true | string }): Promise<string>;
  password(o: { message: string }): Promise<string>;
  confirm(o: { message: string; default?: boolean }): Promise<boolean>;
  select<T extends string>(o: { message: string; choices: { name: string; value: T }[] }): Promise<T>;
}

export interface IoClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export interface Io {
  stdout: OutStream;
  stderr: OutStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  env: NodeJS.ProcessEnv;
  /** Colour allowed at all (NO_COLOR, --no-color and a non-TTY stdout still turn it off). */
  color: boolean;
  prompter: Prompter;
  clock: IoClock;
  configDir: string;
  cwd: string;
  /** Resolves when a foreground command (listen, local start) should stop; default untilSignal. */
  untilStopped?: () => Promise<string>;
}

/**
 * The signals that stop a foreground command (listen, local start, inspect) the way Ctrl-C does:
 * SIGHUP too, sent when the terminal window is closed. Node's default for it is to die on the
 * spot, skipping the clean-up (listen --local's registration, local start's lock); node resets
 * `nohup`'s ignore at start anyway, so handling it takes nothing from nohup users.
 */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Resolves with the name of the first of STOP_SIGNALS. Listening starts at the call, so a signal
 * arriving before the promise is awaited is kept, not the process's death. `cancel` removes the
 * listeners (a start that failed before it waited).
 *
 * After the first signal a listener stays: the command is cleaning up (removing its webhook,
 * draining), and a second SIGINT or SIGTERM quits at once with 128 + its number (a second SIGHUP
 * is ignored: see `again`). Staying also matters to
 * signal-exit (loaded by prompt and spinner libraries): on a signal it finds no listener but its
 * own, it re-raises the signal and the process dies by it, skipping the clean-up.
 *
 * That second-signal listener replaces the first one only once the first signal's dispatch is over
 * (every listener of it has run), because when-exit (atomically's, loaded with the profiles file)
 * re-raises the first signal from its own listener with process.kill(process.pid, sig), whatever
 * else listens: that copy is already queued in Node's signal handle when the dispatch ends, and
 * would count as a second signal (a single Ctrl-C then exited 130 without its clean-up). Removing
 * our listener then closes the handle, dropping what it has queued, and adding the next one opens a
 * fresh one. A real second signal in between (a few synchronous statements) meets no handle and
 * ends the process by the signal: the forced exit it asks for. The drop needs our listener to be
 * the signal's last one once when-exit's has gone, as in listen and local start (traced: no other
 * listener); src/cli/io.signals.test.ts runs it beside both libraries, in both load orders.
 */
export function untilSignal(cancel?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const off = () => {
      for (const s of STOP_SIGNALS) process.off(s, on);
    };
    // A repeated SIGHUP is no one asking twice: a closing terminal window may send it twice (the
    // kernel's hang-up and the emulator's own, as node-pty does), so it does not cut the clean-up.
    const again = (sig: NodeJS.Signals) => {
      if (sig !== 'SIGHUP') process.exit(128 + (osConstants.signals[sig] ?? 0));
    };
    let stopping = false;
    const on = (sig: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      resolve(sig);
      process.nextTick(() => {
        off();
        for (const s of STOP_SIGNALS) process.on(s, again);
      });
    };
    for (const s of STOP_SIGNALS) process.on(s, on);
    cancel?.addEventListener('abort', off, { once: true });
  });
}

/**
 * Prompts through @inquirer/prompts, drawn on stderr so stdout stays clean; loaded on first use.
 * `stdin` is called at the first prompt, so commands that never prompt never open it. It must
 * hand over the stream itself: readline keeps its keypress decoder in symbol properties of the
 * stream, and a wrapper that forwards reads but not writes loses them (every key press then
 * failed with "Cannot read properties of undefined (reading 'next')").
 */
function inquirerPrompter(stdin: () => NodeJS.ReadableStream, output: NodeJS.WritableStream): Prompter {
  const load = () => import('@inquirer/prompts');
  /**
   * Runs one prompt; Escape cancels it as Ctrl-C does. @inquirer/prompts has no Escape key of its
   * own, but takes an AbortSignal: a keypress listener on the prompt's input (readline decodes the
   * keys; a lone Escape arrives once its escape-sequence timeout has passed) aborts it, and the
   * AbortPromptError becomes the ExitPromptError every caller already treats as a cancellation
   * ("Cancelled.", exit 1).
   */
  async function ask<T>(
    run: (ctx: {
      input: NodeJS.ReadableStream;
      output: NodeJS.WritableStream;
      clearPromptOnDone: false;
      signal: AbortSignal;
    }) => Promise<T>,
  ): Promise<T> {
    const input = stdin();
    const escaped = new AbortController();
    const onKey = (_s: unknown, key: { name?: string } | undefined) => {
      if (key?.name === 'escape') escaped.abort();
    };
    input.on('keypress', onKey);
    try {
      return await run({ input, output, clearPromptOnDone: false, signal: escaped.signal });
    } catch (err) {
      if ((err as Error)?.name === 'AbortPromptError' && escaped.signal.aborted)
        throw Object.assign(new Error('cancelled with Escape'), { name: 'ExitPromptError' });
      throw err;
    } finally {
      input.off('keypress', onKey);
    }
  }
  return {
    async input(o) {
      const p = await load();
      return ask((ctx) => p.input(o, ctx));
    },
    async password(o) {
      const p = await load();
      return ask((ctx) => p.password({ ...o, mask: true }, ctx));
    },
    async confirm(o) {
      const p = await load();
      return ask((ctx) => p.confirm(o, ctx));
    },
    async select(o) {
      const p = await load();
      return ask((ctx) => p.select(o, ctx));
    },
  };
}

export function processIo(): Io {
  const env = process.env;
  // `partner … | head` closes the pipe early (EPIPE), a closed terminal window fails every later
  // write (EIO, after its SIGHUP): neither is an error worth dying for before the clean-up.
  for (const s of [process.stdout, process.stderr]) {
    s.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'EIO') throw err;
    });
  }
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // A getter: touching process.stdin opens a handle, which most commands never need.
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: isatty(0),
    env,
    color: true,
    prompter: inquirerPrompter(() => process.stdin, process.stderr),
    clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
    configDir: defaultConfigDir(env),
    cwd: process.cwd(),
  };
}

/** gh's rule: prompt only when both ends are a terminal. */
export function canPrompt(io: Io): boolean {
  return io.stdinIsTTY && io.stdoutIsTTY;
}

/**
 * The width to wrap messages to on `which` (wrapForTerminal): its columns on a terminal,
 * undefined when it is a pipe or a file, whose readers want each line whole.
 */
export function wrapColumns(io: Io, which: 'stdout' | 'stderr'): number | undefined {
  const cols = (io[which] as { columns?: number }).columns;
  const tty = which === 'stdout' ? io.stdoutIsTTY : io.stderrIsTTY;
  return tty && cols && cols > 0 ? cols : undefined;
}
