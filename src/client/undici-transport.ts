import type { Dispatcher } from 'undici';
// Deep imports on purpose: undici's index loads fetch, WebSocket, caches and mocks (~45 ms here),
// while the keep-alive Agent and the promise `request` API load in ~20 ms. Only for a caller that
// brings its own Dispatcher (a pool it destroys to drop a long poll, a MockAgent); the client's
// default transport is node:http (http-transport.ts).
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import requestImpl from 'undici/lib/api/api-request.js';
import type { Transport, WireRequest, WireResponse } from './wire.js';

export function newAgent(): Dispatcher {
  return new AgentImpl({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 16 });
}

/** A transport over the caller's dispatcher; closing it is the caller's business. */
export function undiciTransport(dispatcher: Dispatcher): Transport {
  return {
    async send(url: URL, r: WireRequest): Promise<WireResponse> {
      const res = await requestImpl.call(dispatcher, {
        origin: url.origin,
        path: url.pathname + url.search,
        method: r.method as Dispatcher.HttpMethod,
        headers: r.headers,
        body: r.body,
        headersTimeout: r.timeoutMs,
        bodyTimeout: r.timeoutMs,
      });
      return { statusCode: res.statusCode, headers: res.headers, text: await res.body.text() };
    },
    async close() {},
  };
}
