import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Io } from '../../src/cli/io.js';
import { run } from '../../src/cli/program.js';
import { ensureBuilt, root } from '../helpers/build.js';
import { tempDir } from '../helpers/temp-dir.js';

export { ensureBuilt, root } from '../helpers/build.js';
export { tempDir } from '../helpers/temp-dir.js';

// Runs a foreground command that serves the inspect page (`inspect`, `listen --inspect`,
// `local start --inspect`) in-process or as the built binary, and waits for the URL it prints.

export interface Running {
  /** The inspect page's URL with its token. */
  url: string;
  /** Its origin, for requests without the token. */
  origin: string;
  token: string;
  out(): string;
  err(): string;
  /** Waits (bounded) for a line matching `re` on stdout or stderr. */
  waitFor(re: RegExp, ms?: number): Promise<RegExpExecArray>;
  stop(): Promise<number | null>;
}

function handle(
  read: () => { out: string; err: string },
  stop: () => Promise<number | null>,
  done: Promise<number | null>,
): Omit<Running, 'url' | 'origin' | 'token'> {
  const waitFor = async (re: RegExp, ms = 15_000) => {
    const end = Date.now() + ms;
    let exited = false;
    void done.then(() => {
      exited = true;
    });
    for (;;) {
      const { out, err } = read();
      const m = re.exec(out) ?? re.exec(err);
      if (m) return m;
      if (exited) throw new Error(`exited before ${re}: ${err}`);
      if (Date.now() > end) throw new Error(`no ${re} within ${ms} ms; stderr: ${err}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { out: () => read().out, err: () => read().err, waitFor, stop };
}

async function withUrl(h: Omit<Running, 'url' | 'origin' | 'token'>): Promise<Running> {
  const m = await h.waitFor(/[Ii]nspect: +(http:\/\/127\.0\.0\.1:\d+\/\?token=([\w-]+))/);
  const url = m[1]!;
  return { ...h, url, origin: new URL(url).origin, token: m[2]! };
}

/** The CLI in this process with an injected Io; stops as on Ctrl-C. */
export async function startInProcess(
  argv: string[],
  o: { configDir: string; env?: Record<string, string> },
): Promise<Running> {
  let out = '';
  let err = '';
  let stopNow!: (sig: string) => void;
  const stopped = new Promise<string>((r) => {
    stopNow = r;
  });
  const io: Io = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: Readable.from([]),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: { PARTNER_KEYRING: 'off', ...o.env } as NodeJS.ProcessEnv,
    color: false,
    prompter: {
      input: () => Promise.reject(new Error('no prompt in tests')),
      password: () => Promise.reject(new Error('no prompt in tests')),
      confirm: () => Promise.reject(new Error('no prompt in tests')),
      select: () => Promise.reject(new Error('no prompt in tests')),
    },
    clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
    configDir: o.configDir,
    cwd: process.cwd(),
    untilStopped: () => stopped,
  };
  const done = run(argv, io);
  const h = handle(
    () => ({ out, err }),
    async () => {
      stopNow('SIGINT');
      return done;
    },
    done,
  );
  return withUrl(h);
}

/** The built binary (bin/partner.js over dist/), spawned; stops with SIGINT. */
export async function startBinary(argv: string[], env: Record<string, string>): Promise<Running> {
  ensureBuilt();
  const child: ChildProcess = spawn(process.execPath, [join(root, 'bin/partner.js'), ...argv], {
    env: { PATH: process.env.PATH ?? '', HOME: tempDir('partner-home-'), PARTNER_KEYRING: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const done = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const h = handle(
    () => ({ out, err }),
    async () => {
      child.kill('SIGINT');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await done;
      clearTimeout(t);
      return code;
    },
    done,
  );
  return withUrl(h).catch(async (e) => {
    child.kill('SIGKILL');
    throw e;
  });
}
