import { createServer, type Server } from 'node:http';

// A webhook receiver that counts: deliveries per event id, the order ids each carried, and the
// most deliveries it held open at once. Each is answered 200 after `holdMs` (or, while paused, on
// resume).

export interface Got {
  eventId: string;
  type: string;
  at: number;
  orderIds: number[];
}

export async function startCountingReceiver(holdMs = 0) {
  const got: Got[] = [];
  /** While paused, answers that fall due wait: every sender keeps what it has in flight. */
  let paused = false;
  const held: (() => void)[] = [];
  let open = 0;
  let maxOpen = 0;
  const server: Server = createServer((req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    let holding = true;
    const release = () => {
      if (holding) open--;
      holding = false;
    };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      let orderIds: number[] = [];
      try {
        orderIds = (JSON.parse(Buffer.concat(chunks).toString('utf8')).orders as { id: number }[]).map(
          (o) => o.id,
        );
      } catch {
        // counted with no orders; the test then misses them
      }
      got.push({
        eventId: String(req.headers['x-partner-event-id']),
        type: String(req.headers['x-partner-event-type']),
        at,
        orderIds,
      });
      const answer = () => {
        release();
        if (!res.destroyed) res.writeHead(200).end('ok');
      };
      setTimeout(() => (paused ? held.push(answer) : answer()), holdMs);
    });
    // A sender that died mid-request (kill -9) frees its slot too.
    res.on('close', release);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    maxOpen: () => maxOpen,
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const answer of held.splice(0)) answer();
    },
    /** Deliveries open now: received, not yet answered, their sender still waiting. */
    openCount: () => open,
    /** Answers every delivery held so far, and stays paused. */
    releaseHeld() {
      for (const answer of held.splice(0)) answer();
    },
    /** Deliveries per event id. */
    counts(): Map<string, number> {
      const m = new Map<string, number>();
      for (const g of got) m.set(g.eventId, (m.get(g.eventId) ?? 0) + 1);
      return m;
    },
    orderIds(): Set<number> {
      return new Set(got.flatMap((g) => g.orderIds));
    },
    /** Waits (bounded) until `done()` holds; throws with `what` when it does not in time. */
    async until(done: () => boolean, timeoutMs: number, what: string | (() => string)) {
      const end = Date.now() + timeoutMs;
      while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      if (!done()) throw new Error(`within ${timeoutMs} ms: ${typeof what === 'string' ? what : what()}`);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
