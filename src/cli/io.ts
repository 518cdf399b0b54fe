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
  /** Resolves when a foreground command (listen, local start) should stop; default SIGINT/SIGTERM. */
  untilStopped?: () => Promise<string>;
}

/**
 * Resolves with the name of the first SIGINT or SIGTERM. Listening starts at the call, so a
 * signal arriving before the promise is awaited is kept, not the process's death. `cancel`
 * removes the listeners (a start that failed before it waited).
 */
export function untilSignal(cancel?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const off = () => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    };
    const on = (sig: string) => {
      off();
      resolve(sig);
    };
    process.once('SIGINT', on);
    process.once('SIGTERM', on);
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
export function inquirerPrompter(
  stdin: () => NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Prompter {
  const ctx = () => ({ input: stdin(), output, clearPromptOnDone: false });
  const load = () => import('@inquirer/prompts');
  return {
    async input(o) {
      return (await load()).input(o, ctx());
    },
    async password(o) {
      return (await load()).password({ ...o, mask: true }, ctx());
    },
    async confirm(o) {
      return (await load()).confirm(o, ctx());
    },
    async select(o) {
      return (await load()).select(o, ctx());
    },
  };
}

export function processIo(): Io {
  const env = process.env;
  // `partner … | head` closes the pipe early: that is not an error worth a stack trace.
  for (const s of [process.stdout, process.stderr]) {
    s.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
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
