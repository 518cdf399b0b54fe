import type { ServerResponse } from 'node:http';

// Server-sent events to every open page. A page that stops reading is dropped once too much is
// queued for it (it reconnects and reloads the lists), so one stuck tab cannot grow memory.

const MAX_QUEUED = 8 * 1024 * 1024;

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export class Hub {
  private readonly clients = new Set<ServerResponse>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly watchers = new Set<(open: number) => void>();

  constructor(heartbeatMs = 15_000) {
    // A comment line now and then keeps proxies and idle timers from closing the stream.
    this.heartbeat = setInterval(() => this.write(': ping\n\n'), heartbeatMs);
    this.heartbeat.unref();
  }

  /** Called with the number of open streams whenever it changes (sources poll only while > 0). */
  onCount(fn: (open: number) => void): void {
    this.watchers.add(fn);
  }

  get open(): number {
    return this.clients.size;
  }

  /**
   * Opens a stream that begins with `initial` (the lists as they are now): written in the same
   * turn as the stream joins, so no change falls between the lists and the events after them.
   */
  add(res: ServerResponse, headers: Record<string, string>, initial: [string, unknown][] = []): void {
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.write(': connected\n\n');
    for (const [event, data] of initial) res.write(frame(event, data));
    this.clients.add(res);
    res.on('close', () => {
      if (this.clients.delete(res)) this.count();
    });
    this.count();
  }

  send(event: string, data: unknown): void {
    this.write(frame(event, data));
  }

  private write(frame: string): void {
    for (const res of this.clients) {
      if (res.writableLength > MAX_QUEUED) {
        res.destroy();
        continue;
      }
      res.write(frame);
    }
  }

  private count(): void {
    for (const fn of this.watchers) fn(this.clients.size);
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const res of this.clients) res.end();
    this.clients.clear();
  }
}
