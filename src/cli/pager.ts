import { type ChildProcess, spawn } from 'node:child_process';
import type { Io, OutStream } from './io.js';

// Long output on a terminal goes through a pager, as git and gh do: $PARTNER_PAGER, else $PAGER,
// else `less -FRX` (-F quits at once when the output fits the screen, -R keeps colours, -X
// leaves the text on the screen afterwards). The pager starts at the first byte of output, so
// prompts and the spinner come before it; it is not used when stdout is not a terminal, with
// --no-pager, or when the pager is empty or `cat`. A pager that cannot be started (not
// installed) is skipped without a word; a pager quit before the end (q) is not an error.

interface Pager {
  /**
   * Where the command writes; the pager's stdin once it runs. `closed` once the pager is gone.
   * `columns` is the terminal's width (the pager draws there), so tables fit it when paged.
   */
  out: OutStream & { readonly closed: boolean; readonly columns: number | undefined };
  /** Ends the pager's input and waits for the person to leave it. */
  close(): Promise<void>;
}

/** `less -R "+/some text"` → ['less', '-R', '+/some text'] (quotes group, no other shell syntax). */
export function splitCommand(cmd: string): string[] {
  const words: string[] = [];
  for (const m of cmd.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}

/** The pager to run, or undefined for none (set but empty, or `cat`). */
export function pagerCommand(env: NodeJS.ProcessEnv): string[] | undefined {
  const set = env.PARTNER_PAGER ?? env.PAGER;
  const words = splitCommand(set ?? 'less -FRX');
  if (words.length === 0) return undefined;
  const bin = words[0]!.split('/').at(-1);
  if (bin === 'cat' && words.length === 1) return undefined;
  return words;
}

type SpawnFn = (cmd: string, args: string[], env: NodeJS.ProcessEnv) => ChildProcess;

const defaultSpawn: SpawnFn = (cmd, args, env) =>
  // The pager draws on our terminal (fd 1 and 2 inherited) and reads keys from /dev/tty.
  spawn(cmd, args, { stdio: ['pipe', 'inherit', 'inherit'], env });

/**
 * A pager for `io`'s stdout, or undefined when paging does not apply. Only the process's own
 * stdout can be handed to a pager (it inherits fd 1), so an injected stdout is never paged.
 */
export function openPager(io: Io, spawnFn: SpawnFn = defaultSpawn): Pager | undefined {
  if (!io.stdoutIsTTY || io.stdout !== process.stdout) return undefined;
  const words = pagerCommand(io.env);
  if (!words) return undefined;
  let child: ChildProcess | undefined;
  let state: 'idle' | 'starting' | 'running' | 'direct' | 'gone' = 'idle';
  const queued: string[] = [];
  let ready: Promise<void> = Promise.resolve();
  let exited: Promise<void> = Promise.resolve();
  const ignoreInterrupt = () => {
    // Ctrl-C belongs to the pager (less uses it to stop a search); we wait for it to end.
  };

  const start = () => {
    state = 'starting';
    // less reads LESS when it is set; these are the options the default command line gives.
    const env = { ...io.env, LESS: io.env.LESS ?? 'FRX', LV: io.env.LV ?? '-c' };
    try {
      child = spawnFn(words[0]!, words.slice(1), env);
    } catch {
      direct();
      return;
    }
    const c = child;
    process.on('SIGINT', ignoreInterrupt);
    ready = new Promise<void>((resolve) => {
      c.once('spawn', () => {
        if (state === 'starting') {
          state = 'running';
          for (const s of queued.splice(0)) c.stdin?.write(s);
        }
        resolve();
      });
      // Not installed or not runnable: print directly, as if no pager were set.
      c.once('error', () => {
        if (state === 'starting') direct();
        resolve();
      });
    });
    exited = new Promise<void>((resolve) => {
      const done = () => {
        process.off('SIGINT', ignoreInterrupt);
        if (state === 'running') state = 'gone';
        resolve();
      };
      c.once('exit', done);
      c.once('error', done);
    });
    // The person quit before the end: the rest of the output has nowhere to go, and that is fine.
    c.stdin?.on('error', () => {
      state = 'gone';
    });
  };

  const direct = () => {
    state = 'direct';
    for (const s of queued.splice(0)) io.stdout.write(s);
  };

  return {
    out: {
      get closed() {
        return state === 'gone';
      },
      get columns() {
        return (io.stdout as { columns?: number }).columns;
      },
      write(chunk: string) {
        if (state === 'idle') start();
        if (state === 'starting') queued.push(String(chunk));
        else if (state === 'running') child?.stdin?.write(chunk);
        else if (state === 'direct') io.stdout.write(chunk);
        return true;
      },
    },
    async close() {
      if (state === 'idle' || state === 'direct') return;
      await ready;
      if (state === 'running') child?.stdin?.end();
      await exited;
    },
  };
}
