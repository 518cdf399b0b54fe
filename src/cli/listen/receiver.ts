import { createServer, type IncomingMessage, type Server } from 'node:http';
import { request as undiciRequest } from 'undici';
import { verify } from '../../webhooks/signature.js';
import { OrderMemory, RecentIds } from './seen.js';

/** One delivery as the receiver saw it; `--json` prints these fields (docs/webhooks.md). */
export interface ReceivedEvent {
  event_id: string;
  event_type: string;
  attempt: number;
  verified: boolean;
  duplicate: boolean;
  stale: boolean;
  received_at: string;
  body: unknown;
  /** The exact bytes received (what was signed). */
  raw: Buffer;
  /** The request's headers, names in lower case (the inspect page shows them). */
  headers?: Record<string, string>;
  /** For `service.order.cart.updated`: the carts remembered before this event, by order id. */
  previousCarts?: Record<string, unknown>;
}

export interface ForwardResult {
  event_id: string;
  url: string;
  status?: number;
  ms: number;
  error?: string;
}

interface ReceiverOptions {
  host?: string;
  port?: number;
  secret: string;
  /** Only these event types are reported (all are acknowledged). */
  events?: readonly string[];
  forwardTo?: string;
  onEvent(e: ReceivedEvent): void;
  onForward?(r: ForwardResult): void;
  /** A delivery that failed verification (answered 401); `raw` and `headers` are absent for a handler error. */
  onRejected?(info: RejectedDelivery): void;
  maxRemembered?: number;
  now?: () => Date;
}

export interface RejectedDelivery {
  event_id: string | undefined;
  reason: string;
  event_type?: string | undefined;
  received_at?: string;
  raw?: Buffer;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  port: number;
  close(): Promise<void>;
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

const MAX_BODY = 5 * 1024 * 1024;

/** Header names in lower case, repeated ones joined as Node joins them. */
function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/**
 * A webhook receiver done as spec §6.5 says: verify the raw bytes in constant time, answer 401
 * `invalid signature` on a mismatch, acknowledge before any work, answer repeats silently, and
 * flag status updates older than one already seen as stale.
 */
export async function startReceiver(opts: ReceiverOptions): Promise<Receiver> {
  const seen = new RecentIds(opts.maxRemembered);
  const orders = new OrderMemory(opts.maxRemembered);
  const now = opts.now ?? (() => new Date());

  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res
        .writeHead(405, { allow: 'POST', 'content-type': 'text/plain' })
        .end('POST webhook deliveries here\n');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        res.writeHead(413, { 'content-type': 'text/plain' }).end('body too large\n');
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      const raw = Buffer.concat(chunks);
      const eventId = header(req, 'x-partner-event-id');
      const signature = header(req, 'x-partner-signature');
      if (!verify(opts.secret, raw, signature)) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid signature"}\n');
        opts.onRejected?.({
          event_id: eventId,
          reason: signature ? 'signature mismatch' : 'no x-partner-signature header',
          event_type: header(req, 'x-partner-event-type'),
          received_at: now().toISOString(),
          raw,
          headers: headersOf(req),
        });
        return;
      }
      // Acknowledge first: printing and forwarding happen after the sender has its 2xx.
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}\n');
      setImmediate(() => {
        try {
          handle(req, raw, eventId);
        } catch (err) {
          // A printing bug must not take the listener down; the delivery was already acknowledged.
          opts.onRejected?.({ event_id: eventId, reason: `handler error: ${(err as Error).message}` });
        }
      });
    });
  });

  function handle(req: IncomingMessage, raw: Buffer, eventId: string | undefined): void {
    const type = header(req, 'x-partner-event-type') ?? 'unknown';
    const id = eventId ?? `no-id:${raw.length}`;
    const duplicate = seen.seen(id);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = raw.toString('utf8');
    }
    const list = (body as { orders?: unknown[] } | null)?.orders;
    const orderList = Array.isArray(list) ? (list as Record<string, unknown>[]) : [];
    let stale = false;
    let previousCarts: Record<string, unknown> | undefined;
    if (!duplicate) {
      if (type === 'service.order.status.updated') {
        // An event is stale when every order in it is older than what was already seen.
        const flags = orderList.map((o) => orders.stale(o));
        stale = flags.length > 0 && flags.every(Boolean);
      } else if (type === 'service.order.cart.updated') {
        previousCarts = Object.fromEntries(orderList.map((o) => [String(o.id), orders.swapCart(o)]));
      } else {
        for (const o of orderList) orders.stale(o);
      }
    }
    const reported = !opts.events || opts.events.includes(type);
    if (reported) {
      opts.onEvent({
        event_id: id,
        event_type: type,
        attempt: Number(header(req, 'x-partner-delivery-attempt') ?? 1),
        verified: true,
        duplicate,
        stale,
        received_at: now().toISOString(),
        body,
        raw,
        headers: headersOf(req),
        ...(previousCarts ? { previousCarts } : {}),
      });
    }
    if (opts.forwardTo && !duplicate && reported) void forward(opts.forwardTo, req, raw, id);
  }

  async function forward(url: string, req: IncomingMessage, raw: Buffer, id: string): Promise<void> {
    const headers: Record<string, string> = {
      'content-type': header(req, 'content-type') ?? 'application/json',
    };
    for (const [k, v] of Object.entries(req.headers)) {
      if (k.startsWith('x-partner-') && typeof v === 'string') headers[k] = v;
    }
    const started = performance.now();
    try {
      const r = await undiciRequest(url, {
        method: 'POST',
        headers,
        body: raw,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      await r.body.dump();
      opts.onForward?.({ event_id: id, url, status: r.statusCode, ms: performance.now() - started });
    } catch (err) {
      opts.onForward?.({ event_id: id, url, ms: performance.now() - started, error: (err as Error).message });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 4242, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (opts.port ?? 4242);
  const host = opts.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
