import { z } from 'zod';
import { named } from '../json-schema.js';
import { IsoDateTime, queryInt } from './common.js';
import { ORDER_EVENT_TYPES } from './orders.js';

export const WebhookEvent = z.enum([...ORDER_EVENT_TYPES, 'all']);

/** A registered receiver URL (never its secret): one per (brand, branch, event); null = all. */
export const Webhook = z.object({
  id: z.number().int(),
  business_id: z.number().int(),
  brand_id: z.number().int().nullable(),
  branch_id: z.number().int().nullable(),
  event: WebhookEvent,
  url: z.string(),
  created_at: IsoDateTime,
});

const HttpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http:// or https:// URL');

export const AddWebhookBody = z.strictObject({
  business_id: z.number().int().positive(),
  url: HttpUrl,
  event: WebhookEvent,
  brand_id: z.number().int().positive().optional(),
  branch_id: z.number().int().positive().optional(),
});

export const WebhookSecretBody = z.strictObject({
  business_id: z.number().int().positive(),
  rotate: z.boolean().optional(),
});
export const WebhookSecret = z.object({
  business_id: z.number().int(),
  webhook_secret_key: z.string(),
  rotated_at: IsoDateTime.nullable(),
});

const DeliveryStatus = z.enum(['pending', 'delivered', 'failed']);

const DeliveryAttempt = z.object({
  attempt: z.number().int(),
  at: IsoDateTime,
  status_code: z.number().int().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
});

/** One event to one receiver, with every attempt made (the webhook log). */
export const Delivery = z.object({
  id: z.number().int(),
  event_id: z.string(),
  event_type: z.string(),
  business_id: z.number().int(),
  webhook_id: z.number().int().nullable(),
  url: z.string(),
  status: DeliveryStatus,
  attempts: z.number().int(),
  next_attempt_at: IsoDateTime.nullable(),
  /** Other events whose orders this delivery carries (batched new orders). */
  batched_event_ids: z.array(z.string()),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  log: z.array(DeliveryAttempt),
});

export const WebhookLogQuery = z.strictObject({
  event_id: z.string().optional(),
  status: DeliveryStatus.optional(),
  business_id: queryInt(z.number().int().positive()).optional(),
  limit: queryInt(z.number().int().min(1).max(1000)).default(100),
});

export const ReplayResult = z.object({ event_id: z.string(), deliveries: z.array(Delivery) });

/** A delivery with what its receiver gets: the exact body and the headers (partner inspect). */
const DeliveryDetail = Delivery.extend({
  brand_id: z.number().int().nullable(),
  branch_id: z.number().int().nullable(),
  /** Ids of the orders the body carries. */
  order_ids: z.array(z.number().int()),
  /** The exact body sent, UTF-8 JSON text. */
  body: z.string(),
  /**
   * The headers of the latest attempt (the first one's, before it is made); the signature is made
   * with the business's current webhook secret, absent while the business has none.
   */
  headers: z.record(z.string(), z.string()),
});

/** Where a feed of deliveries goes on from: the last one read, in (updated_at, id) order. */
const DeliveryCursor = z.object({ since: IsoDateTime, after_id: z.number().int() });

export const DeliveryFeedQuery = z.strictObject({
  since: IsoDateTime.optional().describe(
    'only deliveries changed at or after this time, oldest change first (without it: the LIMIT most recently changed)',
  ),
  after_id: queryInt(z.number().int().min(0))
    .default(0)
    .describe('with since: of the deliveries changed exactly at since, only those with a larger id'),
  business_id: queryInt(z.number().int().positive()).optional(),
  limit: queryInt(z.number().int().min(1).max(1000)).default(200),
});

export const DeliveryFeed = z.object({
  results: z.array(DeliveryDetail),
  /** Pass as since and after_id for the changes after these; null when there were none. */
  next: DeliveryCursor.nullable(),
});

// Their names in the OpenAPI document (components.schemas), which code generators name types after.
for (const [id, schema] of Object.entries({ Webhook, WebhookEvent })) named(id, schema);
