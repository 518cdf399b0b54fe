import { z } from 'zod';
import { DeletedPayload, Id, queryInt, tenantQuery } from '../schemas/common.js';
import {
  AddWebhookBody,
  Delivery,
  DeliveryFeed,
  DeliveryFeedQuery,
  ReplayResult,
  Webhook,
  WebhookLogQuery,
  WebhookSecret,
  WebhookSecretBody,
} from '../schemas/webhooks.js';
import { defineOperation as op } from '../operation.js';

// Registration is operator-only (spec §6.1); partners can read what is registered (webhooks:read).
export const webhookOperations = {
  listWebhooks: op({
    id: 'listWebhooks',
    method: 'GET',
    path: '/v1/partner/webhooks',
    auth: 'partner',
    scopes: ['webhooks:read'],
    summary: "The receiver URLs registered for the credential's business (never the secret)",
    query: tenantQuery(),
    response: z.array(Webhook),
    cli: { command: ['webhooks', 'list'], example: 'partner webhooks list --json' },
  }),
  operatorAddWebhook: op({
    id: 'operatorAddWebhook',
    method: 'POST',
    path: '/v1/operator/webhooks',
    auth: 'operator',
    scopes: [],
    summary:
      'Register a receiver URL for a (brand, branch, event type); brand/branch omitted = all of the business',
    body: AddWebhookBody,
    response: Webhook,
    status: 201,
    cli: {
      command: ['operator', 'webhooks', 'add'],
      example: 'partner operator webhooks add --business 1 --url http://127.0.0.1:4242/ --event all',
      flags: { business_id: 'business', brand_id: 'brand', branch_id: 'branch' },
    },
  }),
  operatorListWebhooks: op({
    id: 'operatorListWebhooks',
    method: 'GET',
    path: '/v1/operator/webhooks',
    auth: 'operator',
    scopes: [],
    summary: 'List registered receiver URLs',
    query: z.strictObject({ business_id: queryInt(z.number().int().positive()).optional() }),
    response: z.array(Webhook),
    cli: {
      command: ['operator', 'webhooks', 'list'],
      example: 'partner operator webhooks list --business 1',
      flags: { business_id: 'business' },
    },
  }),
  operatorRemoveWebhook: op({
    id: 'operatorRemoveWebhook',
    method: 'DELETE',
    path: '/v1/operator/webhooks/{id}',
    auth: 'operator',
    scopes: [],
    summary:
      'Remove a registration; its pending deliveries end at once (failed, logged "registration removed")',
    params: z.object({ id: Id }),
    response: DeletedPayload,
    cli: { command: ['operator', 'webhooks', 'remove'], example: 'partner operator webhooks remove 3' },
  }),
  operatorWebhookSecret: op({
    id: 'operatorWebhookSecret',
    method: 'POST',
    path: '/v1/operator/webhook-secrets',
    auth: 'operator',
    scopes: [],
    summary: "A business's webhook_secret_key (created on first use); rotate: true issues a new one",
    body: WebhookSecretBody,
    response: WebhookSecret,
    cli: {
      command: ['operator', 'webhooks', 'secret'],
      example: 'partner operator webhooks secret --business 1 --rotate',
      flags: { business_id: 'business' },
    },
  }),
  operatorWebhookLog: op({
    id: 'operatorWebhookLog',
    method: 'GET',
    path: '/v1/operator/webhooks/log',
    auth: 'operator',
    scopes: [],
    summary: 'Deliveries with every attempt (status code, duration, error), newest first',
    query: WebhookLogQuery,
    response: z.array(Delivery),
    cli: {
      command: ['operator', 'webhooks', 'log'],
      example: 'partner operator webhooks log --status failed',
      // `event_id` would otherwise shorten to --event (the _id rule); the documented flag is --event-id.
      flags: { business_id: 'business', event_id: 'event-id' },
    },
  }),
  operatorWebhookDeliveries: op({
    id: 'operatorWebhookDeliveries',
    method: 'GET',
    path: '/v1/operator/webhooks/deliveries',
    auth: 'operator',
    scopes: [],
    summary:
      'Deliveries in the order they changed, each with its exact body, headers and attempts; since and after_id go on from a cursor',
    query: DeliveryFeedQuery,
    response: DeliveryFeed,
    cli: {
      command: ['operator', 'webhooks', 'deliveries'],
      example: 'partner operator webhooks deliveries --since 2026-01-01T00:00:00Z --json',
      flags: { business_id: 'business' },
    },
  }),
  operatorReplayWebhook: op({
    id: 'operatorReplayWebhook',
    method: 'POST',
    path: '/v1/operator/webhooks/replay/{event_id}',
    auth: 'operator',
    scopes: [],
    summary:
      'Re-send an event to its receivers still registered, with the same event id and a fresh retry schedule',
    params: z.object({ event_id: z.string().min(1).max(100) }),
    response: ReplayResult,
    cli: {
      command: ['operator', 'webhooks', 'replay'],
      example: 'partner operator webhooks replay evt_9Qd2…',
    },
  }),
} as const;
