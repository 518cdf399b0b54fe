import type { PartnerClient } from '../../client/client.js';
import type { RequestDetail, RequestRow } from '../../contract/inspect-wire.js';

// The local server's request log (GET /v1/operator/requests), followed with long polls while a
// page is open; one request in full on a click (GET /v1/operator/requests/{request_id}).

/** Under the client's 30 s answer timeout. */
const WAIT_S = 20;
const PAGE = 1000;

/** The background reads inspect makes itself; the page hides them unless asked. */
const OWN_PATHS = ['/v1/operator/webhooks/deliveries'];

/** Request ids of the requests this process made (menu reads, replays): bounded, oldest out first. */
export class OwnRequests {
  private readonly ids = new Set<string>();
  constructor(private readonly max = 10_000) {}
  add(id: string): void {
    if (!id) return;
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value!);
  }
  has(id: string): boolean {
    return this.ids.has(id);
  }
}

type Entry = Omit<RequestRow, 'own'>;

interface Page {
  results: Entry[];
  next_after: number;
}

export class RequestsSource {
  private readonly held = new Map<number, RequestRow>();
  private after: number | undefined;
  private following = 0;
  private readonly listeners = new Set<(r: RequestRow) => void>();
  lastError: string | undefined;

  /**
   * `poller` makes the long polls on a connection pool of its own, destroyed on close so a poll in
   * flight is dropped, not waited out.
   */
  constructor(
    private readonly client: PartnerClient,
    private readonly poller: PartnerClient = client,
    private readonly onClose: () => Promise<void> = async () => undefined,
    private readonly own: OwnRequests = new OwnRequests(),
    readonly max = 10_000,
  ) {}

  onRow(fn: (r: RequestRow) => void): void {
    this.listeners.add(fn);
  }

  /** Called after each poll, so a change of lastError can be told. */
  onStatus(fn: () => void): void {
    this.status = fn;
  }
  private status: () => void = () => undefined;

  private take(entries: Entry[]): void {
    for (const e of entries) {
      const row: RequestRow = {
        ...e,
        own: this.own.has(e.request_id) || OWN_PATHS.some((p) => e.path.startsWith(p)),
      };
      this.held.set(e.seq, row);
      if (this.held.size > this.max) this.held.delete(this.held.keys().next().value!);
      for (const fn of this.listeners) fn(row);
    }
  }

  private async load(): Promise<void> {
    if (this.after !== undefined) return;
    try {
      const page = (await this.client.call('operatorListRequests', { query: { limit: PAGE } })) as Page;
      this.after ??= page.next_after;
      this.take(page.results);
      this.lastError = undefined;
    } catch (err) {
      this.lastError = (err as Error).message;
      throw err;
    }
  }

  /** Newest first. */
  async list(): Promise<RequestRow[]> {
    await this.load();
    return this.rows();
  }

  /** What is held now, newest first. */
  rows(): RequestRow[] {
    return [...this.held.values()].reverse();
  }

  async get(requestId: string): Promise<RequestDetail> {
    return (await this.client.call('operatorGetRequest', {
      params: { request_id: requestId },
    })) as RequestDetail;
  }

  /** Follows the log while on. */
  follow(on: boolean): void {
    const gen = ++this.following;
    if (!on) return;
    void (async () => {
      while (gen === this.following) {
        const started = performance.now();
        let got = 0;
        try {
          await this.load();
          const page = (await this.poller.call('operatorListRequests', {
            query: { after: this.after, limit: PAGE, wait: WAIT_S },
          })) as Page;
          if (gen !== this.following) return;
          this.after = page.next_after;
          this.take(page.results);
          got = page.results.length;
          this.lastError = undefined;
        } catch (err) {
          if (gen !== this.following) return;
          this.lastError = (err as Error).message;
        }
        this.status();
        // An empty answer at once (the server closing, or gone): pause so the loop never spins.
        const took = performance.now() - started;
        if (got === 0 && took < 1000) await new Promise((r) => setTimeout(r, 1000 - took).unref());
      }
    })();
  }

  async close(): Promise<void> {
    this.following++;
    await this.onClose();
  }
}
