import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { IPty } from '@lydell/node-pty';
import type { Terminal as XTerm } from '@xterm/headless';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ensureBuilt, root } from '../helpers/build.js';
import { type Credential, writeLocalProfile } from '../helpers/profile.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDirs } from '../helpers/temp-dir.js';

export { ensureBuilt, root } from '../helpers/build.js';

// A real terminal for tests: the built `bin/partner.js` runs under a pseudo-terminal (node-pty),
// its output is fed to a headless xterm, and tests read the *screen* as a person sees it, type
// keys, and wait (bounded) for text to appear. No fake prompter anywhere: stdin, stdout and
// stderr of the child are the pty, so `isatty` is true just as in a terminal window.

const require = createRequire(import.meta.url);
const pty = require('@lydell/node-pty') as typeof import('@lydell/node-pty');
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');

const bin = join(root, 'bin/partner.js');

export const KEYS = {
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  enter: '\r',
  backspace: '\u007f',
  ctrlC: '\u0003',
  escape: '\u001b',
} as const;

export type Wanted = string | RegExp | ((screen: string[]) => boolean);

export interface PtyOptions {
  cols?: number;
  rows?: number;
  /** Extra environment (on top of PATH, HOME, TERM and the config dir). */
  env?: Record<string, string>;
  /** Config dir of the child (PARTNER_CONFIG_DIR); a fresh temp dir when omitted. */
  configDir?: string;
  cwd?: string;
}

export interface PtySession {
  /** The visible screen, one string per row, trailing spaces trimmed. */
  screen(): string[];
  /** Every line written so far (scrollback and screen), trailing spaces trimmed. */
  history(): string[];
  /**
   * Rows that continue the row above, i.e. lines too wide for the terminal: of the visible
   * screen, or with `all` of everything written (scrollback included).
   */
  wrappedRows(all?: boolean): number[];
  /** Everything the program wrote, escape sequences included. */
  readonly raw: string;
  /** Types text or key sequences (see KEYS). */
  write(data: string): void;
  /** Waits until the screen matches; on timeout throws with the screen in the message. */
  waitFor(wanted: Wanted, timeoutMs?: number): Promise<string[]>;
  /** Waits for the program to end; on timeout kills it and throws with the screen. */
  exit(timeoutMs?: number): Promise<number>;
  resize(cols: number, rows: number): void;
  /**
   * Closes the terminal as closing its window does: the pty's master side goes away, so the
   * program gets SIGHUP and an error (EIO) on anything it writes after.
   */
  hangUp(): void;
  /** Whether the program's process still exists (after hangUp, node-pty's exit report is not reliable). */
  running(): boolean;
  readonly cols: number;
  readonly rows: number;
  readonly configDir: string;
  kill(): void;
}

/** Written into a pty's slave once its child is gone, to see all output read (spawnPartner). */
const END = '\u001b]partner-pty-end\u0007';

const live = new Set<PtySession>();
const dirs = tempDirs('partner-pty-');

/** A temp dir removed by `cleanup()`, i.e. after each test. */
export const tempDir = dirs.make;

/** A config dir (removed by `cleanup()`) whose default profile `local` is the test server's demo credential. */
export function localProfile(s: { baseUrl: string; credential: Credential }): string {
  return writeLocalProfile(tempDir('partner-pty-cfg-'), s.baseUrl, s.credential);
}

/** Kills whatever a test left running and removes the temp dirs (call in afterEach). */
export function cleanup(): void {
  for (const s of live) s.kill();
  live.clear();
  dirs.remove();
}

function lineText(term: XTerm, y: number): string {
  // Up to the terminal's width: after a narrowing resize the buffer keeps cells beyond it.
  return (term.buffer.active.getLine(y)?.translateToString(true, 0, term.cols) ?? '').trimEnd();
}

function matches(wanted: Wanted, lines: string[]): boolean {
  if (typeof wanted === 'function') return wanted(lines);
  const text = lines.join('\n');
  return typeof wanted === 'string' ? text.includes(wanted) : wanted.test(text);
}

function describeWanted(w: Wanted): string {
  return typeof w === 'function' ? 'a screen passing the check' : String(w);
}

/** Runs `partner ARGS…` under a real pty of `cols`×`rows` (80×24 by default). */
export function spawnPartner(args: string[], o: PtyOptions = {}): PtySession {
  const cols = o.cols ?? 80;
  const rows = o.rows ?? 24;
  const configDir = o.configDir ?? tempDir('partner-pty-cfg-');
  const home = tempDir('partner-pty-home-');
  // A minimal environment: nothing of the developer's machine (CI, NO_COLOR, PARTNER_*) leaks in.
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    PARTNER_CONFIG_DIR: configDir,
    PARTNER_DATA_DIR: join(home, 'data'),
    // Never the developer's own OS keyring (a test that wants one passes its own session).
    PARTNER_KEYRING: 'off',
    ...o.env,
  };
  const term = new Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true });
  const child: IPty = pty.spawn(process.execPath, [bin, ...args], {
    name: 'xterm-256color',
    cols,
    rows,
    cwd: o.cwd ?? root,
    env,
  });
  let raw = '';
  let pending = 0;
  let exitCode: number | undefined;
  // Linux drops what is still buffered in a pty once its last slave fd closes, so a child that
  // writes a few KiB and exits lost its tail about one run in three. A terminal window never does:
  // it keeps reading. Hold a slave fd of our own until everything the child wrote has been read,
  // then let go (node-pty then sees the hang-up and reports the exit). Once the child is gone, the
  // watch writes END through that fd: the pty hands bytes over in order, so when END comes out of
  // the master, all of the child's output has come before it (END itself never reaches the screen).
  let hold: number | undefined = openSync(
    (child as unknown as { _pty: string })._pty,
    constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK,
  );
  let endWritten = false;
  // node-pty destroys its read stream 200 ms after the child's exit (a timer of its own, for
  // macOS, where the stream may never end). On a busy machine that timer can run before the poll
  // that reads the last of the output, which is then lost. While we hold the slave the stream does
  // end by itself once released (EIO), so node-pty's destroy waits for the release.
  const socket = (child as unknown as { _socket: { destroy(err?: Error): unknown } })._socket;
  const destroy = socket.destroy.bind(socket);
  let destroyAsked = false;
  socket.destroy = (err?: Error) => {
    if (hold === undefined) return destroy(err);
    destroyAsked = true;
    return socket;
  };
  const release = () => {
    if (hold === undefined) return;
    closeSync(hold);
    hold = undefined;
    clearInterval(watch);
    if (destroyAsked) destroy();
  };
  const watch = setInterval(() => {
    if (endWritten || hold === undefined) return;
    try {
      process.kill(child.pid, 0);
      return;
    } catch {
      // gone
    }
    try {
      writeSync(hold, END);
      endWritten = true;
    } catch {
      // The pty's buffer is full (nothing reads it?): the next look tries again.
    }
  }, 10);
  const exited = new Promise<number>((resolve) => {
    child.onExit(({ exitCode: code }) => {
      release();
      exitCode = code;
      resolve(code);
    });
  });
  const show = (d: string) => {
    if (d === '') return;
    raw += d;
    pending++;
    term.write(d, () => {
      pending--;
    });
  };
  /** Output after END was written, held back while it may be the start of END. */
  let carry = '';
  child.onData((d) => {
    if (!endWritten) return show(d);
    const text = carry + d;
    const at = text.indexOf(END);
    if (at >= 0) {
      carry = '';
      show(text.slice(0, at));
      release();
      return;
    }
    let keep = Math.min(END.length - 1, text.length);
    while (keep > 0 && !END.startsWith(text.slice(text.length - keep))) keep--;
    carry = text.slice(text.length - keep);
    show(text.slice(0, text.length - keep));
  });
  const flushed = async () => {
    for (let i = 0; pending > 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 5));
  };
  const screen = () => {
    const b = term.buffer.active;
    const out: string[] = [];
    for (let y = b.viewportY; y < b.viewportY + term.rows; y++) out.push(lineText(term, y));
    return out;
  };
  const history = () => {
    const out: string[] = [];
    for (let y = 0; y < term.buffer.active.length; y++) out.push(lineText(term, y));
    return out;
  };
  const wrappedRows = (all = false) => {
    const b = term.buffer.active;
    const from = all ? 0 : b.viewportY;
    const to = all ? b.length : b.viewportY + term.rows;
    const out: number[] = [];
    for (let y = from; y < to; y++) if (b.getLine(y)?.isWrapped) out.push(y - from);
    return out;
  };
  const dump = () =>
    `screen (${term.cols}×${term.rows}):\n${screen()
      .map((l) => `|${l}`)
      .join('\n')}`;
  const session: PtySession = {
    screen,
    history,
    wrappedRows,
    get raw() {
      return raw;
    },
    get cols() {
      return term.cols;
    },
    get rows() {
      return term.rows;
    },
    configDir,
    write(data) {
      child.write(data);
    },
    async waitFor(wanted, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await flushed();
        const s = screen();
        if (matches(wanted, s)) return s;
        if (exitCode !== undefined) {
          await new Promise((r) => setTimeout(r, 50));
          await flushed();
          if (matches(wanted, screen())) return screen();
          throw new Error(`exited (${exitCode}) before showing ${describeWanted(wanted)}\n${dump()}`);
        }
        if (Date.now() > deadline)
          throw new Error(`timed out after ${timeoutMs} ms waiting for ${describeWanted(wanted)}\n${dump()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async exit(timeoutMs = 30_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const d = dump();
          session.kill();
          reject(new Error(`did not exit within ${timeoutMs} ms\n${d}`));
        }, timeoutMs);
      });
      try {
        const code = await Promise.race([exited, timeout]);
        await flushed();
        return code;
      } finally {
        clearTimeout(timer);
      }
    },
    resize(c, r) {
      child.resize(c, r);
      term.resize(c, r);
    },
    hangUp() {
      release();
      // node-pty's Unix terminal closes the master and then sends SIGHUP, as a terminal window does.
      (child as unknown as { destroy(): void }).destroy();
    },
    running() {
      try {
        process.kill(child.pid, 0);
        return true;
      } catch {
        return false;
      }
    },
    kill() {
      release();
      if (exitCode === undefined) {
        try {
          child.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
      live.delete(session);
    },
  };
  live.add(session);
  void exited.then(() => live.delete(session));
  return session;
}

/**
 * The set-up most pty files share: the built binary, one demo-seeded test server for the file
 * (handed to `use` once started, closed after the file), and every session ended after each test.
 */
export function onDemoServer(use: (server: TestServer) => void): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer({ seed: 'demo' });
    use(server);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });
  afterEach(() => cleanup());
}
