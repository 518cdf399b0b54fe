import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  at: number;
  body: Buffer;
  headers: IncomingHttpHeaders;
}

/**
 * A webhook receiver for tests: records every request; `respond` decides the answer per request
 * (status code, or 'hang' to never answer). Bound to 127.0.0.1 on a free port.
 */
export async function startRecorder(respond: (n: number, r: Received) => number | 'hang' = () => 200) {
  const got: Received[] = [];
  const hanging = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { at: Date.now(), body: Buffer.concat(chunks), headers: req.headers };
      got.push(r);
      const answer = respond(got.length, r);
      if (answer === 'hang') {
        hanging.add(() => res.destroy());
        return;
      }
      res
        .writeHead(answer, answer >= 300 && answer < 400 ? { location: 'http://127.0.0.1:1/elsewhere' } : {})
        .end('ok');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    /** Waits (bounded) until `n` requests have arrived. */
    async waitFor(n: number, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      while (got.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      if (got.length < n)
        throw new Error(`expected ${n} deliveries, got ${got.length} within ${timeoutMs} ms`);
      return got;
    },
    async close() {
      for (const h of hanging) h();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
