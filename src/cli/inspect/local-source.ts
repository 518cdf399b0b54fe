import type { PartnerClient } from '../../client/client.js';
import type { WebhookStore } from './webhook-store.js';
import type { AttemptLog } from '../../contract/inspect-wire.js';

// The local server's deliveries, read from the operator API's delivery feed
// (GET /v1/operator/webhooks/deliveries) while a page is open, and replayed on request.

interface FeedDelivery {
  id: number;
  event_id: string;
  event_type: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  batched_event_ids: string[];
  created_at: string;
  updated_at: string;
  log: AttemptLog[];
  brand_id: number | null;
  branch_id: number | null;
  order_ids: number[];
  body: string;
  headers: Record<string, string>;
}

interface Feed {
  results: FeedDelivery[];
  next: { since: string; after_id: number } | null;
}

/** How far back each poll reads again: changes committed late within one millisecond are not missed. */
const OVERLAP_MS = 2000;
const PAGE = 1000;

export class LocalSource {
  /** The newest updated_at seen (server time). */
  private newest: string | undefined;
  /** What each delivery looked like when last stored, to skip re-reads that changed nothing. */
  private readonly seen = new Map<number, string>();
  private running: Promise<boolean> | undefined;
  /** Attempts of the deliveries to `ownUrl`, by event id (shown on listen's own rows). */
  private readonly own = new Map<string, AttemptLog[]>();
  lastError: string | undefined;

  /**
   * `ownUrl`: listen's own receiver URL under `listen --local --inspect`. Deliveries to it are
   * listen's rows already; they are not listed twice, their attempts join those rows instead.
   */
  constructor(
    private readonly store: WebhookStore,
    private readonly operator: PartnerClient,
    private readonly ownUrl?: string,
    private readonly onOwn?: (eventId: string) => void,
  ) {}

  /** The server's attempts at delivering `eventId` to listen itself. */
  attemptsFor(eventId: string | null): AttemptLog[] {
    return (eventId && this.own.get(eventId)) || [];
  }

  /** One pass over what changed; true when a row was added or changed. Concurrent calls share one pass. */
  poll(): Promise<boolean> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<boolean> {
    let changed = false;
    try {
      if (this.newest === undefined) {
        // First read: the most recently changed deliveries, up to a page.
        const feed = (await this.operator.call('operatorWebhookDeliveries', {
          query: { limit: PAGE },
        })) as Feed;
        changed = this.take(feed.results);
      } else {
        let cursor = { since: new Date(Date.parse(this.newest) - OVERLAP_MS).toISOString(), after_id: 0 };
        for (let pages = 0; pages < 50; pages++) {
          const feed = (await this.operator.call('operatorWebhookDeliveries', {
            query: { ...cursor, limit: PAGE },
          })) as Feed;
          changed = this.take(feed.results) || changed;
          if (!feed.next || feed.results.length < PAGE) break;
          cursor = feed.next;
        }
      }
      this.lastError = undefined;
    } catch (err) {
      this.lastError = (err as Error).message;
    }
    return changed;
  }

  private take(results: FeedDelivery[]): boolean {
    let changed = false;
    // The feed comes in order of change; rows are listed in order of creation.
    const byCreation = [...results].sort((a, b) =>
      a.created_at === b.created_at ? a.id - b.id : a.created_at < b.created_at ? -1 : 1,
    );
    for (const d of byCreation) {
      if (this.newest === undefined || d.updated_at > this.newest) this.newest = d.updated_at;
      const sig = `${d.updated_at}|${d.status}|${d.attempts}|${d.log.length}`;
      if (this.seen.get(d.id) === sig) continue;
      this.seen.set(d.id, sig);
      if (this.seen.size > this.store.max * 2) this.seen.delete(this.seen.keys().next().value!);
      changed = true;
      if (d.url === this.ownUrl) {
        this.own.set(d.event_id, d.log);
        if (this.own.size > this.store.max) this.own.delete(this.own.keys().next().value!);
        this.onOwn?.(d.event_id);
        continue;
      }
      const signed = d.headers['x-partner-signature'] !== undefined;
      this.store.upsert({
        key: `d${d.id}`,
        source: 'local',
        at: d.created_at,
        event_id: d.event_id,
        event_type: d.event_type,
        brand_id: d.brand_id,
        branch_id: d.branch_id,
        order_ids: d.order_ids,
        verdict: signed ? 'signed' : 'unsigned',
        duplicate: false,
        stale: false,
        status: d.status,
        attempt: d.attempts,
        url: d.url,
        headers: d.headers,
        body: d.body,
        reason: null,
        attempts: d.log,
        next_attempt_at: d.next_attempt_at,
        batched_event_ids: d.batched_event_ids,
        resends: [],
      });
    }
    return changed;
  }

  /** Re-sends the event to its receivers with the same event id (the operator API's replay). */
  async replay(eventId: string): Promise<number> {
    const r = (await this.operator.call('operatorReplayWebhook', { params: { event_id: eventId } })) as {
      deliveries: unknown[];
    };
    void this.poll();
    return r.deliveries.length;
  }
}
