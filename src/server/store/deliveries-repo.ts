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
