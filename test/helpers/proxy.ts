import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A proxy in front of the test server for the menu-push tests: it logs every request and can
// lose answers, cut the network, or answer for the server.

export interface LogEntry {
  n: number;
  method: string;
  path: string;
  key?: string;
  status?: number;
  replayed?: boolean;
  fate?: 'refused' | 'answer lost';
}

/**
 * A proxy in front of the server that can lose answers: requests in `loseAnswer` reach the
 * server but the connection is cut before the answer; after `cutAfter`, every request is cut
 * before it reaches the server (the network is gone).
 */
export async function startProxy(target: string) {
  const log: LogEntry[] = [];
  const ctl = {
    cutAfter: Number.POSITIVE_INFINITY,
    loseAnswer: new Set<number>(),
    delayMs: 0,
    /** Runs before a request is forwarded (e.g. to let something else reach the server first). */
    before: undefined as ((e: LogEntry, body: string) => Promise<void>) | undefined,
    /** Answers instead of the server when it returns an answer (the server never sees the request). */
    answer: undefined as
      | ((e: LogEntry, body: string) => { status: number; body: unknown } | undefined)
      | undefined,
  };
  let n = 0;
  const server: Server = createServer(async (req, res) => {
    const entry: LogEntry = {
      n: ++n,
      method: req.method!,
      path: req.url!,
      ...(typeof req.headers['idempotency-key'] === 'string' ? { key: req.headers['idempotency-key'] } : {}),
    };
    log.push(entry);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (entry.n > ctl.cutAfter) {
      entry.fate = 'refused';
      req.socket.destroy();
      return;
    }
    if (ctl.delayMs) await new Promise((r) => setTimeout(r, ctl.delayMs));
    await ctl.before?.(entry, Buffer.concat(chunks).toString());
    const own = ctl.answer?.(entry, Buffer.concat(chunks).toString());
    if (own) {
      entry.status = own.status;
      res.writeHead(own.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(own.body));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
    const up = await fetch(target + req.url, {
      method: req.method!,
      headers,
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = Buffer.from(await up.arrayBuffer());
    entry.status = up.status;
    entry.replayed = up.headers.get('idempotent-replayed') === 'true';
    if (ctl.loseAnswer.has(entry.n)) {
      entry.fate = 'answer lost';
      req.socket.destroy();
      return;
    }
    const out: Record<string, string> = {};
    up.headers.forEach((v, k) => {
      if (
        !['content-encoding', 'transfer-encoding', 'connection', 'keep-alive', 'content-length'].includes(k)
      )
        out[k] = v;
    });
    res.writeHead(up.status, out);
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    log,
    ctl,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
