import { formatDuration } from '../contract/duration.js';
import type { Command } from 'commander';
import type { PartnerClient, RequestLog, Route, WaitNotice } from '../client/client.js';
import { MAX_RETRY_AFTER_MS } from './errors.js';
import { plural } from './output/words.js';
import type { Io } from './io.js';
import type { Manifest } from './manifest/types.js';
import {
  type OperatorTarget,
  type PartnerTarget,
  resolveOperatorTarget,
  resolvePartnerTarget,
} from './target.js';

// What a running command gets: the injected Io, the parsed global options, and lazily created
// API clients (closed by main when the command ends).

interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  json?: boolean;
  color?: boolean;
  verbose?: boolean;
  insecure?: boolean;
}

export interface Ctx {
  io: Io;
  manifest: Manifest;
  json: boolean;
  verbose: boolean;
  insecure: boolean;
  /** Colours on stdout (TTY, no NO_COLOR, no --no-color). */
  color: boolean;
  /** Colours on stderr. */
  colorErr: boolean;
  globals: GlobalOptions;
  partner(): Promise<{ client: PartnerClient; target: PartnerTarget }>;
  operator(o: {
    server?: string;
    token?: string;
    dataDir?: string;
  }): Promise<{ client: PartnerClient; target: OperatorTarget }>;
  /** A client for a base URL and credential given outright (`auth login` checks one before saving it). */
  clientFor(o: { baseUrl: string; credential: { key: string; secret: string } }): Promise<PartnerClient>;
  /** Where the partner credential in use came from, once resolved (for error hints). */
  credentialSource?: PartnerTarget['source'];
  /**
   * Runs `fn` under a spinner on stderr when it is a terminal (and nothing when not). `fn` may say
   * how far it got (`page 3 of 12`): shown after the text, on the spinner's one line.
   */
  spin<T>(text: string, fn: (progress: (status: string) => void) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function routesOf(manifest: Manifest): Record<string, Route> {
  const out: Record<string, Route> = {};
  for (const o of manifest.ops) out[o.id] = { id: o.id, method: o.method, path: o.path, auth: o.auth };
  return out;
}

/** Colours on a stream: a terminal, colour allowed by the Io, no --no-color, NO_COLOR or TERM=dumb. */
export function colorAllowed(io: Io, tty: boolean, flag: boolean | undefined): boolean {
  if (flag === false || !io.color || !tty) return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  return io.env.TERM !== 'dumb';
}

export function makeCtx(io: Io, manifest: Manifest, cmd: Command): Ctx {
  const globals = cmd.optsWithGlobals() as GlobalOptions;
  const clients: PartnerClient[] = [];
  const verbose = globals.verbose === true;
  const onRequest = (e: RequestLog) => {
    if (!verbose) return;
    const status = e.status === 0 ? 'no answer' : String(e.status);
    const extra = [
      e.request_id ? `request_id ${e.request_id}` : '',
      e.pacedMs ? `paced ${e.pacedMs} ms` : '',
      e.retryInMs !== undefined ? `retrying in ${e.retryInMs} ms` : '',
    ]
      .filter(Boolean)
      .join(', ');
    io.stderr.write(
      `* ${e.method} ${e.url} → ${status} in ${Math.round(e.ms)} ms${extra ? ` (${extra})` : ''}\n`,
    );
  };
  // What the spinner of ctx.spin() cannot say: why a call sits still (a 429's Retry-After, pacing).
  // Only inside spin(), i.e. commands whose only feedback is that spinner; flows with their own
  // progress display (menu push, orders watch) report waits themselves.
  let spinning = 0;
  let spinner: { clear(): unknown; render(): unknown; text: string } | undefined;
  // The spinner's one line: its text, how far the work got, and the wait it sits in (pacing).
  const line = { base: '', status: '', wait: '' };
  const lineText = () => {
    const tail = `${line.status ? ` ${line.status}` : ''}${line.wait ? ` · ${line.wait}` : ''}`;
    // One row: the text gives way to the status and the wait (a wrapped spinner line smears).
    const room = ((io.stderr as { columns?: number }).columns || 80) - 3 - tail.length;
    const base = line.base.length > room ? `${line.base.slice(0, Math.max(0, room - 1))}…` : line.base;
    return `${base}${tail}`;
  };
  const notice = (text: string) => {
    if (spinning === 0 || !io.stderrIsTTY) return;
    spinner?.clear();
    io.stderr.write(`${text}\n`);
    spinner?.render();
  };
  /** A wait that recurs on every request (pacing): said on the spinner's line, not a new line each time. */
  let spinnerShown = 0;
  const waiting = (text: string) => {
    if (spinnerShown === 0) return notice(text);
    line.wait = text;
    if (spinner) spinner.text = lineText();
  };
  const onWait = (w: WaitNotice) => {
    if (w.reason === 'retry' && w.status === 429)
      notice(`rate limited (429), waiting ${formatDuration(w.ms)} before retrying`);
    else if (w.reason === 'retry' && w.ms >= 1000)
      notice(`the server answered ${w.status}, retrying in ${formatDuration(w.ms)}`);
    else if (w.reason === 'pace' && w.ms >= 1000)
      waiting(
        spinnerShown
          ? `pacing${w.limit ? ` at ${w.limit}/min` : ''}, waiting ${formatDuration(w.ms)}`
          : `pacing under the rate limit${w.limit ? ` (${plural(w.limit, 'request')} per minute)` : ''}, waiting ${formatDuration(w.ms)}`,
      );
  };
  const newClient = async (o: {
    baseUrl: string;
    credential?: { key: string; secret: string };
    operatorToken?: string;
  }) => {
    const { PartnerClient } = await import('../client/client.js');
    const client = new PartnerClient({
      ...o,
      insecure: globals.insecure === true,
      routes: routesOf(manifest),
      clock: io.clock,
      // A person is waiting: a Retry-After beyond 30 s is reported (exit 6) rather than sat out.
      retry: { maxRetryAfterMs: MAX_RETRY_AFTER_MS },
      onRequest,
      onWait,
      userAgent: `partner-cli/${__PARTNER_VERSION__}`,
    });
    clients.push(client);
    return client;
  };
  const ctx: Ctx = {
    io,
    manifest,
    globals,
    json: globals.json === true,
    verbose,
    insecure: globals.insecure === true,
    color: colorAllowed(io, io.stdoutIsTTY, globals.color),
    colorErr: colorAllowed(io, io.stderrIsTTY, globals.color),
    async partner() {
      const target = resolvePartnerTarget({
        configDir: io.configDir,
        env: io.env,
        profile: globals.profile,
        baseUrl: globals.baseUrl,
      });
      ctx.credentialSource = target.source;
      const client = await newClient({
        baseUrl: target.baseUrl,
        credential: { key: target.key, secret: target.secret },
      });
      return { client, target };
    },
    clientFor: (o) => newClient(o),
    async operator(o) {
      const target = resolveOperatorTarget({
        env: io.env,
        server: o.server,
        token: o.token,
        dataDir: o.dataDir,
      });
      const client = await newClient({ baseUrl: target.baseUrl, operatorToken: target.token });
      return { client, target };
    },
    async spin(text, fn) {
      spinning++;
      if (!io.stderrIsTTY || !io.stdoutIsTTY) {
        try {
          return await fn(() => undefined);
        } finally {
          spinning--;
        }
      }
      spinnerShown++;
      Object.assign(line, { base: text, status: '', wait: '' });
      const progress = (status: string) => {
        Object.assign(line, { status, wait: '' });
        if (spinner) spinner.text = lineText();
      };
      // A quick call shows no spinner, and does not even load ora.
      let done = false;
      let stop: (() => void) | undefined;
      const timer = setTimeout(async () => {
        const { default: ora } = await import('ora');
        if (done) return;
        const s = ora({
          text: lineText(),
          stream: io.stderr as NodeJS.WritableStream,
          isEnabled: true,
          discardStdin: false,
          color: ctx.colorErr ? 'cyan' : false,
        }).start();
        spinner = s;
        stop = () => {
          s.stop();
          spinner = undefined;
        };
      }, 150);
      try {
        return await fn(progress);
      } finally {
        done = true;
        spinning--;
        spinnerShown--;
        clearTimeout(timer);
        stop?.();
      }
    },
    async close() {
      await Promise.all(clients.splice(0).map((c) => c.close()));
    },
  };
  return ctx;
}
