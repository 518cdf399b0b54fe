// Webhook deliveries (one outbox event to one receiver URL) and the log of their attempts.

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: number;
  event_seq: number;
  event_id: string;
  event_type: string;
  business_id: number;
  webhook_id: number | null;
  url: string;
  /** The exact bytes signed and sent. */
  payload: string;
  /** Events whose orders this delivery carries besides its own (a batch of new orders). */
  batched_event_ids: string[];
  status: DeliveryStatus;
  attempts: number;
  /** Attempts made before the current retry schedule began (a replay restarts it). */
  budget_start: number;
  next_attempt_ms: number | null;
  created_at: string;
  updated_at: string;
}

export interface AttemptRow {
  attempt: number;
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface NewDelivery {
  event_seq: number;
  event_id: string;
  event_type: string;
  business_id: number;
  webhook_id: number;
  url: string;
  payload: string;
  batched_event_ids: readonly string[];
}

/** A delivery as its claimant sends it: `attempts` already counts this attempt. */
export type ClaimedDelivery = Pick<
  DeliveryRow,
  | 'id'
  | 'event_id'
  | 'event_type'
  | 'url'
  | 'payload'
  | 'business_id'
  | 'attempts'
  | 'budget_start'
  | 'event_seq'
>;

export interface DeliveryLogFilter {
  /** The event's own deliveries, or the batch that carried it. */
  eventId?: string | undefined;
  status?: DeliveryStatus | undefined;
  businessId?: number | undefined;
}

export interface DeliveriesRepo {
  /** Due at `now`. */
  insert(d: NewDelivery, now: number): Promise<void>;
  /**
   * Pending, due and not leased at `now`, oldest due first. `perUrl`: the most deliveries to one
   * URL that may be in flight at once (the widest window any URL may have); a backend shared by
   * several processes offers a URL no more than its live leases leave of that.
   */
  due(now: number, limit: number, perUrl?: number): Promise<{ id: number; url: string }[]>;
  /**
   * Takes a lease on a delivery and counts the attempt; undefined when it is no longer pending,
   * or someone else's lease on it still runs. `urlSlots`: the claimant's window for the URL, the
   * most deliveries to it in flight at once with this one; a backend shared by several processes
   * refuses the claim when the live leases of every process on that URL already fill it (absent:
   * the backend's own bound). A backend of one process leaves that count to the claimant.
   */
  claim(
    id: number,
    owner: string,
    leaseUntil: number,
    now: number,
    urlSlots?: number,
  ): Promise<ClaimedDelivery | undefined>;
  recordAttempt(deliveryId: number, a: AttemptRow): Promise<void>;
  /** The attempt's outcome: delivered, failed for good, or pending again at `nextAttemptMs`. */
  settle(
    id: number,
    outcome: { status: 'delivered' | 'failed' } | { status: 'pending'; nextAttemptMs: number },
    now: number,
  ): Promise<void>;
  /** Status and attempts of every delivery of an event. */
  ofEvent(eventId: string): Promise<{ status: DeliveryStatus; attempts: number }[]>;
  /** Owners of leases still recorded (to reclaim a dead process's). */
  leaseOwners(): Promise<string[]>;
  releaseLeases(owner: string): Promise<void>;
  /**
   * A shared store only: releases live leases whose owner (an instance, `Store.instance`) is no
   * longer connected, so a killed instance's deliveries are taken over at once rather than when
   * their leases run out. Resolves to how many were released.
   */
  releaseOrphaned?(now: number): Promise<number>;
  /** When the next pending delivery is due (or its lease ends), if any. */
  nextDueMs(): Promise<number | null>;
  /** Newest first. */
  log(f: DeliveryLogFilter, limit: number): Promise<DeliveryRow[]>;
  attempts(deliveryId: number): Promise<AttemptRow[]>;
  /**
   * The delivery feed (`partner inspect`): deliveries in the order they last changed. Without
   * `since`, the newest `limit` (oldest of them first); with it, those changed after the cursor
   * (`since` an ISO instant, ties broken by id).
   */
  changed(
    f: { since?: string | undefined; afterId: number; businessId?: number | undefined },
    limit: number,
  ): Promise<DeliveryRow[]>;
  /** By id. */
  byEvent(eventId: string): Promise<DeliveryRow[]>;
  /**
   * Replay: every delivery of the event to a registration still live pending again now, with a
   * fresh retry budget (one to a removed registration stays as it is).
   */
  reopen(eventId: string, now: number): Promise<void>;
}
