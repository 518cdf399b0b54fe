import { sign } from '../../webhooks/signature.js';
import type { DeliveryRow } from '../store/deliveries-repo.js';
import { deliveriesOut } from '../services/webhooks.js';
import type { HandlersFor } from './context.js';

// The delivery feed (`partner inspect`): deliveries in the order they changed, each with the exact
// body and headers its receiver gets, so a page can show them live by polling with a cursor.

function ordersOf(payload: string): {
  brand_id: number | null;
  branch_id: number | null;
  order_ids: number[];
} {
  try {
    const p = JSON.parse(payload) as { brand_id?: unknown; branch_id?: unknown; orders?: { id?: unknown }[] };
    const int = (v: unknown) => (Number.isInteger(v) ? (v as number) : null);
    return {
      brand_id: int(p.brand_id),
      branch_id: int(p.branch_id),
      order_ids: (Array.isArray(p.orders) ? p.orders : []).flatMap((o) => {
        const id = int(o?.id);
        return id === null ? [] : [id];
      }),
    };
  } catch {
    return { brand_id: null, branch_id: null, order_ids: [] };
  }
}

export const webhookDeliveryHandlers: HandlersFor<'operatorWebhookDeliveries'> = {
  operatorWebhookDeliveries: ({ store, services }, { query }) =>
    // Read only: a business without a webhook secret yet gets none made here (a GET writes nothing).
    store.read(async (tx) => {
      const rows: DeliveryRow[] = await tx.deliveries.changed(
        { since: query.since, afterId: query.after_id, businessId: query.business_id },
        query.limit,
      );
      const secrets = new Map<number, string | undefined>();
      const shown = await deliveriesOut(tx, rows);
      const results = [];
      for (const [i, d] of rows.entries()) {
        if (!secrets.has(d.business_id)) {
          const sealed = await tx.webhookSecrets.get(d.business_id);
          secrets.set(d.business_id, sealed && services.sealer.open(sealed.sealed));
        }
        const secret = secrets.get(d.business_id);
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          'user-agent': 'partner-webhooks/1',
          ...(secret ? { 'x-partner-signature': sign(secret, Buffer.from(d.payload, 'utf8')) } : {}),
          'x-partner-event-id': d.event_id,
          'x-partner-event-type': d.event_type,
          'x-partner-delivery-attempt': String(Math.max(1, d.attempts)),
        };
        // The operator log's shape, plus what the receiver gets.
        results.push({ ...shown[i]!, ...ordersOf(d.payload), body: d.payload, headers });
      }
      const last = rows.at(-1);
      return { results, next: last ? { since: last.updated_at, after_id: last.id } : null };
    }),
};
