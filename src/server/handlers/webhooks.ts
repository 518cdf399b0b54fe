import { notFound } from '../errors.js';
import { requireBusiness } from '../services/credentials.js';
import {
  addWebhook,
  deliveriesOut,
  removeWebhook,
  replayEvent,
  rotateWebhookSecret,
  webhookSecret,
} from '../services/webhooks.js';
import type { HandlersFor } from './context.js';

export const webhookHandlers: HandlersFor<
  | 'listWebhooks'
  | 'operatorAddWebhook'
  | 'operatorListWebhooks'
  | 'operatorRemoveWebhook'
  | 'operatorWebhookSecret'
  | 'operatorWebhookLog'
  | 'operatorReplayWebhook'
> = {
  listWebhooks: ({ store }) => store.webhooks.list(),

  operatorAddWebhook: ({ store, now }, { body }) => store.write((tx) => addWebhook(tx, body, now)),

  operatorListWebhooks: ({ store }, { query }) => store.read((tx) => tx.webhooks.list(query.business_id)),

  operatorRemoveWebhook: async ({ store, now }, { params }) => {
    if (!(await store.write((tx) => removeWebhook(tx, params.id, now)))) throw notFound('webhook', params.id);
    return { id: params.id, deleted: true as const };
  },

  operatorWebhookSecret: async ({ services, store, now }, { body }) => {
    if (body.rotate)
      return {
        business_id: body.business_id,
        ...(await rotateWebhookSecret(store, services.sealer, body.business_id, now)),
      };
    await store.read((tx) => requireBusiness(tx, body.business_id));
    const key = await webhookSecret(store, services.sealer, body.business_id, now);
    const stored = await store.read((tx) => tx.webhookSecrets.get(body.business_id));
    return { business_id: body.business_id, webhook_secret_key: key, rotated_at: stored?.rotated_at ?? null };
  },

  operatorWebhookLog: ({ store }, { query }) =>
    store.read(async (tx) =>
      deliveriesOut(
        tx,
        await tx.deliveries.log(
          { eventId: query.event_id, status: query.status, businessId: query.business_id },
          query.limit,
        ),
      ),
    ),

  operatorReplayWebhook: async ({ services, store, now }, { params }) => {
    const out = await store.write((tx) => replayEvent(tx, params.event_id, now));
    services.dispatcher?.kick();
    return out;
  },
};
