import type * as Http from 'node:http';
import type { Transport, WireRequest, WireResponse } from './wire.js';

// The client's default transport: node:http(s) with a keep-alive agent. node:http is part of
// Node's snapshot and loads in ~3 ms, where undici's Agent took ~25 ms (with http2, tls and a
// WebAssembly parser) before the first byte: a CLI pays that on every API command (issue 14).
// node:https (and tls) load only for an https base URL. Like undici, it never sends a request
// again by itself: a connection lost before the answer is the caller's to retry (with the same
// Idempotency-Key), visibly; idle connections close after IDLE_MS, before a server's own timeout.

/** Idle keep-alive connections close after this (or sooner when the server's Keep-Alive says so). */
const IDLE_MS = 10_000;

function timeoutError(message: string): Error {
  return Object.assign(new Error(message), { code: 'ETIMEDOUT' });
}

export class HttpTransport implements Transport {
  private readonly agents = new Map<string, Http.Agent>();
  private readonly inFlight = new Set<Promise<unknown>>();

  private agent(protocol: string, mod: typeof Http): Http.Agent {
    let a = this.agents.get(protocol);
    if (!a) {
      a = new mod.Agent({ keepAlive: true, maxSockets: 16, timeout: IDLE_MS });
      this.agents.set(protocol, a);
    }
    return a;
  }

  send(url: URL, req: WireRequest): Promise<WireResponse> {
    const p = this.once(url, req);
    const tracked = p.catch(() => undefined).finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    return p;
  }

  private once(url: URL, r: WireRequest): Promise<WireResponse> {
    const mod = process.getBuiltinModule(
      url.protocol === 'https:' ? 'node:https' : 'node:http',
    ) as typeof Http;
    const headers: Record<string, string | number> = { ...r.headers };
    if (r.body !== null) headers['content-length'] = Buffer.byteLength(r.body);
    return new Promise((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
      };
      const req = mod.request(url, { method: r.method, headers, agent: this.agent(url.protocol, mod) });
      timer = setTimeout(() => req.destroy(timeoutError(`no answer within ${r.timeoutMs} ms`)), r.timeoutMs);
      req.on('error', (err) => fail(err));
      req.on('response', (res) => {
        clearTimeout(timer);
        const chunks: Buffer[] = [];
        const idle = () => {
          clearTimeout(timer);
          timer = setTimeout(
            () => res.destroy(timeoutError(`the answer stalled for ${r.timeoutMs} ms`)),
            r.timeoutMs,
          );
        };
        idle();
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          idle();
        });
        res.on('error', (err) => fail(err));
        res.on('close', () => {
          if (!res.complete)
            fail(Object.assign(new Error('the connection closed mid-answer'), { code: 'ECONNRESET' }));
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({
            statusCode: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
      req.end(r.body ?? undefined);
    });
  }

  /** Lets requests in flight finish (as undici's close does), then ends the connections. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }
}
