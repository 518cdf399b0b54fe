import type { Command } from 'commander';
import type { PartnerClient, RequestLog, Route } from '../client/client.js';
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

export interface GlobalOptions {
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
  /** Runs `fn` under a spinner on stderr when it is a terminal (and nothing when not). */
  spin<T>(text: string, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function routesOf(manifest: Manifest): Record<string, Route> {
  const out: Record<string, Route> = {};
  for (const o of manifest.ops) out[o.id] = { id: o.id, method: o.method, path: o.path, auth: o.auth };
  return out;
}

function colorAllowed(io: Io, tty: boolean, flag: boolean | undefined): boolean {
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
      retry: { maxRetryAfterMs: 30_000 },
      onRequest,
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
      const client = await newClient({
        baseUrl: target.baseUrl,
        credential: { key: target.key, secret: target.secret },
      });
      return { client, target };
    },
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
      if (!io.stderrIsTTY || !io.stdoutIsTTY) return fn();
      // A quick call shows no spinner, and does not even load ora.
      let done = false;
      let stop: (() => void) | undefined;
      const timer = setTimeout(async () => {
        const { default: ora } = await import('ora');
        if (done) return;
        const spinner = ora({
          text,
          stream: io.stderr as NodeJS.WritableStream,
          isEnabled: true,
          discardStdin: false,
          color: ctx.colorErr ? 'cyan' : false,
        }).start();
        stop = () => spinner.stop();
      }, 150);
      try {
        return await fn();
      } finally {
        done = true;
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
