// Pure rules of webhook delivery: who receives an event, when to retry, which new orders batch.

interface WebhookTarget {
  id: number;
  business_id: number;
  brand_id: number | null;
  branch_id: number | null;
  event: string;
  url: string;
}

export interface EventHead {
  seq: number;
  id: string;
  type: string;
  business_id: number;
  brand_id: number;
  branch_id: number;
  /** When the event was written (ms). */
  at: number;
}

/** A registration receives an event of its business when brand, branch and type match (null/'all' = any). */
function receives(
  w: Pick<WebhookTarget, 'business_id' | 'brand_id' | 'branch_id' | 'event'>,
  e: Pick<EventHead, 'business_id' | 'brand_id' | 'branch_id' | 'type'>,
): boolean {
  return (
    w.business_id === e.business_id &&
    (w.brand_id === null || w.brand_id === e.brand_id) &&
    (w.branch_id === null || w.branch_id === e.branch_id) &&
    (w.event === 'all' || w.event === e.type)
  );
}

/** Each URL once per event, even when several registrations of it match (e.g. a specific and an 'all'). */
export function receiversOf(webhooks: readonly WebhookTarget[], e: EventHead): WebhookTarget[] {
  const byUrl = new Map<string, WebhookTarget>();
  for (const w of webhooks) if (receives(w, e) && !byUrl.has(w.url)) byUrl.set(w.url, w);
  return [...byUrl.values()];
}

/**
 * Delay before the next attempt after `made` failed attempts of the current schedule, or
 * undefined when the schedule is spent (the delivery fails). Jitter spreads retries by ±10 %
 * so receivers that failed together are not retried in lockstep.
 */
export function retryDelay(
  schedule: readonly number[],
  made: number,
  random: () => number = Math.random,
): number | undefined {
  const base = schedule[made - 1];
  if (base === undefined) return undefined;
  return Math.max(0, Math.round(base * (0.9 + 0.2 * random())));
}

export const isDelivered = (status: number | undefined) =>
  status !== undefined && status >= 200 && status < 300;

export const BATCH_WINDOW_MS = 250;
export const CREATED = 'service.order.created.v2';

/**
 * Groups the new-order events of one (business, brand, branch) written within the batch window
 * of the group's first event into one delivery; every other event stays alone. Input in seq
 * order; output groups keep that order.
 */
export function batchEvents<E extends EventHead>(events: readonly E[], windowMs = BATCH_WINDOW_MS): E[][] {
  const groups: E[][] = [];
  const open = new Map<string, E[]>();
  for (const e of events) {
    if (e.type !== CREATED) {
      groups.push([e]);
      continue;
    }
    const key = `${e.business_id}:${e.brand_id}:${e.branch_id}`;
    const g = open.get(key);
    if (g && e.at - g[0]!.at <= windowMs) {
      g.push(e);
    } else {
      const fresh = [e];
      open.set(key, fresh);
      groups.push(fresh);
    }
  }
  return groups;
}

/** The summary status of an event from its deliveries: pending while any is, failed if any failed. */
export function eventStatus(deliveries: readonly string[]): 'pending' | 'delivered' | 'failed' {
  if (deliveries.includes('pending')) return 'pending';
  return deliveries.includes('failed') ? 'failed' : 'delivered';
}
