import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Asset } from './assets.js';
import type { Hub } from './hub.js';
import { tokenMatches } from './token.js';
import type {
  ActionResult,
  InspectInfo,
  MenuTargets,
  MenuView,
  RequestDetail,
  RequestRow,
  WebhookDetail,
  WebhookRow,
} from '../../contract/inspect-wire.js';

// The page's server, in the CLI process: 127.0.0.1 only; every data read, the event stream and
// the two actions need the run's token (header x-inspect-token, or ?token= for the page itself);
// a strict Content-Security-Policy; POST only for replay and resend.

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  // The page's URL carries the token: never send it on as a Referer.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export class InspectHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the routes answer with; each source that is absent throws an InspectHttpError. */
export interface InspectApi {
  info(): InspectInfo;
  /** Brings the sources up to date, then answers the stream's opening frames (called in the turn it joins). */
  streamStart(): Promise<() => [string, unknown][]>;
  webhooks(): Promise<WebhookRow[]>;
  webhook(key: string): Promise<WebhookDetail>;
  replay(key: string): Promise<ActionResult>;
  resend(key: string, url: string): Promise<ActionResult>;
  requests(): Promise<RequestRow[]>;
  request(id: string): Promise<RequestDetail>;
  menuTargets(): Promise<MenuTargets>;
  menu(brandId: number, branchId: number): Promise<MenuView>;
}

interface InspectServerOptions {
  port: number;
  token: string;
  assets: Map<string, Asset>;
  hub: Hub;
  api: InspectApi;
}

export interface InspectServer {
  /** The page's URL, token included: what is printed and opened. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024;

function send(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', ...extra });
  res.end(text);
}

const fail = (res: ServerResponse, status: number, code: string, message: string) =>
  send(res, status, { error: { code, message } });

async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    throw new InspectHttpError(415, 'unsupported_media_type', 'send the body as application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new InspectHttpError(413, 'too_large', `the body is over ${MAX_BODY} bytes`);
    chunks.push(c as Buffer);
  }
  if (size === 0) return {};
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new InspectHttpError(400, 'bad_request', 'the body is not JSON');
  }
}

const positiveInt = (v: string | null, name: string): number => {
  const n = Number(v);
  if (!v || !/^\d+$/.test(v) || n < 1)
    throw new InspectHttpError(400, 'bad_request', `${name} must be a positive integer`);
  return n;
};

/** Errors of the sources (the API's error envelope, a refused connection) in the page's terms. */
function upstream(err: unknown): InspectHttpError {
  if (err instanceof InspectHttpError) return err;
  const e = err as { name?: string; code?: string; status?: number; message?: string };
  if (e?.name === 'ApiError')
    return new InspectHttpError(
      502,
      e.code ?? 'upstream_error',
      `${e.code}: ${e.message} (HTTP ${e.status})`,
    );
  return new InspectHttpError(502, 'upstream_unreachable', e?.message ?? String(err));
}

export async function startInspectServer(o: InspectServerOptions): Promise<InspectServer> {
  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const p = url.pathname;
    const method = req.method ?? 'GET';
    const asset = o.assets.get(p);
    if (asset && p.startsWith('/assets/')) {
      // The page's code and styles: the same files the package ships, no data in them.
      if (method !== 'GET' && method !== 'HEAD')
        return fail(res, 405, 'method_not_allowed', `${method} ${p}`);
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type });
      res.end(method === 'HEAD' ? undefined : asset.body);
      return;
    }
    if (p === '/') {
      if (method !== 'GET') return fail(res, 405, 'method_not_allowed', `${method} /`);
      if (!tokenMatches(o.token, url.searchParams.get('token') ?? undefined))
        return fail(res, 401, 'unauthorized', 'open the URL partner printed: it carries this run’s token');
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset!.type });
      res.end(asset!.body);
      return;
    }
    if (!p.startsWith('/api/')) return fail(res, 404, 'not_found', `nothing at ${p}`);
    const given = req.headers['x-inspect-token'];
    if (!tokenMatches(o.token, Array.isArray(given) ? given[0] : given))
      return fail(res, 401, 'unauthorized', 'missing or wrong x-inspect-token');

    let parts: string[];
    try {
      parts = p.slice('/api/'.length).split('/').map(decodeURIComponent);
    } catch {
      return fail(res, 400, 'bad_request', 'bad escape in the path');
    }
    const post = method === 'POST';
    if (method !== 'GET' && !post) return fail(res, 405, 'method_not_allowed', `${method} ${p}`);
    const only = (m: 'GET' | 'POST') => {
      if (method !== m) throw new InspectHttpError(405, 'method_not_allowed', `${method} ${p}: use ${m}`);
    };
    const [a, b, c] = parts;
    if (a === 'stream' && parts.length === 1) {
      only('GET');
      const initial = await o.api.streamStart();
      o.hub.add(res, SECURITY_HEADERS, initial());
      return;
    }
    let body: unknown;
    if (a === 'info' && parts.length === 1) {
      only('GET');
      body = o.api.info();
    } else if (a === 'webhooks' && parts.length === 1) {
      only('GET');
      body = { rows: await o.api.webhooks() };
    } else if (a === 'webhooks' && b && parts.length === 2) {
      only('GET');
      body = await o.api.webhook(b);
    } else if (a === 'webhooks' && b && c === 'replay' && parts.length === 3) {
      only('POST');
      await readJson(req);
      body = await o.api.replay(b);
    } else if (a === 'webhooks' && b && c === 'resend' && parts.length === 3) {
      only('POST');
      const { url: target } = ((await readJson(req)) ?? {}) as { url?: unknown };
      if (typeof target !== 'string' || !/^https?:\/\/[^\s]+$/i.test(target))
        throw new InspectHttpError(400, 'bad_request', 'url must be an http:// or https:// URL');
      body = await o.api.resend(b, target);
    } else if (a === 'requests' && parts.length === 1) {
      only('GET');
      body = { rows: await o.api.requests() };
    } else if (a === 'requests' && b && parts.length === 2) {
      only('GET');
      body = await o.api.request(b);
    } else if (a === 'menu' && b === 'targets' && parts.length === 2) {
      only('GET');
      body = await o.api.menuTargets();
    } else if (a === 'menu' && parts.length === 1) {
      only('GET');
      body = await o.api.menu(
        positiveInt(url.searchParams.get('brand_id'), 'brand_id'),
        positiveInt(url.searchParams.get('branch_id'), 'branch_id'),
      );
    } else {
      return fail(res, 404, 'not_found', `nothing at ${p}`);
    }
    send(res, 200, body);
  };

  let port = 0;
  const server: Server = createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      return fail(res, 400, 'bad_request', 'bad request target');
    }
    route(req, res, url).catch((err: unknown) => {
      const e = upstream(err);
      if (!res.headersSent) fail(res, e.status, e.code, e.message);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Loopback only, whatever else the command binds: the page shows payloads and customer data.
    server.listen(o.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${o.token}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        o.hub.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
