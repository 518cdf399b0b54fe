import { request } from 'undici';
import type { ReceivedEvent, RejectedDelivery } from '../listen/receiver.js';
import type { StoredWebhook, WebhookStore } from './webhook-store.js';
import type { ResendLog } from '../../contract/inspect-wire.js';

// `listen --inspect`: every delivery the receiver got becomes a row (verified or rejected), and a
// row can be re-sent, exact bytes and x-partner-* headers, to a URL of the user's choosing.

const SENSITIVE =
  /^(authorization|proxy-authorization|cookie|set-cookie)$|secret|token|password|api[-_]?key/i;

/** Credentials a sender may have added (an Authorization header, a cookie) never reach the page. */
function maskHeaders(h: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k] = SENSITIVE.test(k) ? '[masked]' : v;
  return out;
}

interface Payload {
  brand_id?: unknown;
  branch_id?: unknown;
  orders?: { id?: unknown }[];
}

const int = (v: unknown) => (Number.isInteger(v) ? (v as number) : null);

function parse(raw: Buffer): Payload | undefined {
  try {
    const p = JSON.parse(raw.toString('utf8')) as unknown;
    return p && typeof p === 'object' ? (p as Payload) : undefined;
  } catch {
    return undefined;
  }
}

function ids(p: Payload | undefined) {
  return {
    brand_id: int(p?.brand_id),
    branch_id: int(p?.branch_id),
    order_ids: (Array.isArray(p?.orders) ? p.orders : []).flatMap((o) => {
      const id = int(o?.id);
      return id === null ? [] : [id];
    }),
  };
}

export class ListenSource {
  private n = 0;
  /** Keys of the rows of each event id (a repeat delivery makes a second row). */
  private readonly byEvent = new Map<string, string[]>();

  constructor(private readonly store: WebhookStore) {}

  private index(eventId: string | null | undefined, key: string): void {
    if (!eventId) return;
    this.byEvent.set(eventId, [...(this.byEvent.get(eventId) ?? []), key]);
    if (this.byEvent.size > this.store.max) this.byEvent.delete(this.byEvent.keys().next().value!);
  }

  /** Marks the rows of `eventId` changed (the page fetches them again). */
  touch(eventId: string): void {
    for (const key of this.byEvent.get(eventId) ?? []) this.store.update(key, (w) => w);
  }

  received(e: ReceivedEvent): void {
    const key = `l${++this.n}`;
    this.index(e.event_id, key);
    this.store.upsert({
      key,
      source: 'listen',
      at: e.received_at,
      event_id: e.event_id,
      event_type: e.event_type,
      ...ids(e.body as Payload),
      verdict: e.verified ? 'verified' : 'invalid',
      duplicate: e.duplicate,
      stale: e.stale,
      status: 'received',
      attempt: e.attempt,
      url: null,
      headers: maskHeaders(e.headers),
      body: e.raw.toString('utf8'),
      raw: e.raw,
      reason: null,
      attempts: [],
      next_attempt_at: null,
      batched_event_ids: [],
      resends: [],
    });
  }

  rejected(r: RejectedDelivery): void {
    if (!r.raw) return; // a printing error after a verified receipt: that row already exists
    const attempt = Number(r.headers?.['x-partner-delivery-attempt'] ?? 1);
    const key = `l${++this.n}`;
    this.index(r.event_id, key);
    this.store.upsert({
      key,
      source: 'listen',
      at: r.received_at ?? new Date().toISOString(),
      event_id: r.event_id ?? null,
      event_type: r.event_type ?? 'unknown',
      ...ids(parse(r.raw)),
      verdict: 'invalid',
      duplicate: false,
      stale: false,
      status: 'rejected',
      attempt: Number.isFinite(attempt) ? attempt : 1,
      url: null,
      headers: maskHeaders(r.headers),
      body: r.raw.toString('utf8'),
      raw: r.raw,
      reason: r.reason,
      attempts: [],
      next_attempt_at: null,
      batched_event_ids: [],
      resends: [],
    });
  }

  /** POSTs the row's exact body and x-partner-* headers to `url`; the outcome is kept on the row. */
  async resend(row: StoredWebhook, url: string): Promise<ResendLog> {
    const headers: Record<string, string> = {
      'content-type': row.headers['content-type'] ?? 'application/json',
    };
    for (const [k, v] of Object.entries(row.headers)) if (k.startsWith('x-partner-')) headers[k] = v;
    const started = performance.now();
    const at = new Date().toISOString();
    let log: ResendLog;
    try {
      const r = await request(url, {
        method: 'POST',
        headers,
        body: row.raw ?? Buffer.from(row.body, 'utf8'),
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      await r.body.dump();
      log = {
        at,
        url,
        status: r.statusCode,
        duration_ms: Math.round(performance.now() - started),
        error: null,
      };
    } catch (err) {
      const e = err as Error & { code?: string };
      log = {
        at,
        url,
        status: null,
        duration_ms: Math.round(performance.now() - started),
        error: e.code ?? e.message,
      };
    }
    this.store.update(row.key, (w) => ({ ...w, resends: [...w.resends, log] }));
    return log;
  }
}
