import type { Dispatcher } from 'undici';
// Deep imports on purpose: undici's index loads fetch, WebSocket, caches and mocks (~45 ms here),
// while the keep-alive Agent and the promise `request` API the client uses load in ~20 ms. The CLI
// pays this on every API command, so it matters for the start-up budget (issue 3 item 6).
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import requestImpl from 'undici/lib/api/api-request.js';

export function newAgent(): Dispatcher {
  return new AgentImpl({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 16 });
}

/** undici's `request` against any dispatcher (ours, or one the caller passed, e.g. a MockAgent). */
export function send(
  dispatcher: Dispatcher,
  url: URL,
  opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>,
): Promise<Dispatcher.ResponseData> {
  return requestImpl.call(dispatcher, { ...opts, origin: url.origin, path: url.pathname + url.search });
}
