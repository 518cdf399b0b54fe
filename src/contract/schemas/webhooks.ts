import { z } from 'zod';
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

export const DeliveryStatus = z.enum(['pending', 'delivered', 'failed']);

export const DeliveryAttempt = z.object({
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
