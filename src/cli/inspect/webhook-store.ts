import type { WebhookDetail, WebhookRow } from '../../contract/inspect-wire.js';

// The rows of the Webhooks view, held by the CLI process: receipts of `listen` and deliveries of
// the local server, at most `max` (the oldest arrival goes first). Every change gets a new `rev`
// from one counter, so the page can merge a list and a stream in any order.

export type StoredWebhook = Omit<WebhookDetail, 'can_replay' | 'can_resend' | 'resend_default'> & {
  /** The exact bytes received, for a resend (never sent to the page as such). */
  raw?: Buffer;
};

const ROW_FIELDS = [
  'key',
  'source',
  'seq',
  'rev',
  'at',
  'event_id',
  'event_type',
  'brand_id',
  'branch_id',
  'order_ids',
  'verdict',
  'duplicate',
  'stale',
  'status',
  'attempt',
  'url',
] as const satisfies readonly (keyof WebhookRow)[];

function rowOf(w: StoredWebhook): WebhookRow {
  const out = {} as Record<string, unknown>;
  for (const f of ROW_FIELDS) out[f] = w[f];
  return out as unknown as WebhookRow;
}

export class WebhookStore {
  private readonly rows = new Map<string, StoredWebhook>();
  private seq = 0;
  private rev = 0;
  private readonly listeners = new Set<(row: WebhookRow) => void>();

  constructor(readonly max = 10_000) {}

  /** Calls `fn` with the summary of every row added or changed. */
  onChange(fn: (row: WebhookRow) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Adds a row, or changes the one with the same key (keeping its place in the list). */
  upsert(w: Omit<StoredWebhook, 'seq' | 'rev'>): StoredWebhook {
    const old = this.rows.get(w.key);
    const row: StoredWebhook = { ...w, seq: old?.seq ?? ++this.seq, rev: ++this.rev };
    this.rows.set(w.key, row);
    // Map order is insertion order: the first key is the oldest arrival.
    while (this.rows.size > this.max) this.rows.delete(this.rows.keys().next().value!);
    if (this.rows.has(w.key)) for (const fn of this.listeners) fn(rowOf(row));
    return row;
  }

  /** Changes a stored row in place (a resend recorded); nothing when it was dropped meanwhile. */
  update(key: string, fn: (w: StoredWebhook) => StoredWebhook): StoredWebhook | undefined {
    const old = this.rows.get(key);
    if (!old) return undefined;
    const row = { ...fn(old), key, seq: old.seq, rev: ++this.rev };
    this.rows.set(key, row);
    for (const l of this.listeners) l(rowOf(row));
    return row;
  }

  get(key: string): StoredWebhook | undefined {
    return this.rows.get(key);
  }

  /** Summaries, newest arrival first. */
  list(): WebhookRow[] {
    const out: WebhookRow[] = [];
    for (const w of this.rows.values()) out.push(rowOf(w));
    return out.reverse();
  }

  get size(): number {
    return this.rows.size;
  }
}
