// Talking to the inspect server: the run's token (from the page's own URL) goes in a header on
// every call and on the event stream, which is read with fetch since EventSource sends no headers.

const token = new URLSearchParams(location.search).get('token') ?? '';
const headers = { 'x-inspect-token': token };

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function answer<T>(r: Response): Promise<T> {
  const body = (await r.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!r.ok)
    throw new HttpError(r.status, body.error?.code ?? 'error', body.error?.message ?? `HTTP ${r.status}`);
  return body as T;
}

export async function getJson<T>(path: string): Promise<T> {
  return answer<T>(await fetch(path, { headers }));
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return answer<T>(
    await fetch(path, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

interface StreamHandlers {
  /** The stream is (again) open: reload the lists, events from now on are merged into them. */
  open(): void;
  event(type: string, data: unknown): void;
  closed(): void;
  /** The server no longer takes this page's token: another run serves this port now. */
  ended(): void;
}

/** Follows /api/stream, reconnecting after a second whenever it ends; returns a stop function. */
export function follow(h: StreamHandlers): () => void {
  let stopped = false;
  let ctl: AbortController | undefined;
  const run = async () => {
    while (!stopped) {
      ctl = new AbortController();
      try {
        const r = await fetch('/api/stream', { headers, signal: ctl.signal });
        if (r.status === 401) {
          h.ended();
          return;
        }
        if (!r.ok || !r.body) throw new Error(`HTTP ${r.status}`);
        h.open();
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let end = buf.indexOf('\n\n');
          while (end >= 0) {
            const frame = buf.slice(0, end);
            buf = buf.slice(end + 2);
            end = buf.indexOf('\n\n');
            let type = 'message';
            let data = '';
            for (const line of frame.split('\n')) {
              if (line.startsWith('event: ')) type = line.slice(7);
              else if (line.startsWith('data: ')) data += line.slice(6);
            }
            if (data) h.event(type, JSON.parse(data));
          }
        }
      } catch {
        // ended or refused: said below, then tried again
      }
      if (stopped) return;
      h.closed();
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  void run();
  return () => {
    stopped = true;
    ctl?.abort();
  };
}
