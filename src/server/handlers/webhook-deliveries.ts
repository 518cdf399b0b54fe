import { sign } from '../../webhooks/signature.js';
import type { HandlersFor } from '../http/context.js';
import { sql } from '../http/prepared.js';
import type { Sealer } from '../security/sealed.js';
import type { Db } from '../store/db.js';

// The delivery feed (`partner inspect`): deliveries in the order they changed, each with the exact
// body and headers its receiver gets, so a page can show them live by polling with a cursor.

interface Row {
  id: number;
  event_id: string;
  event_type: string;
  business_id: number;
  webhook_id: number | null;
  url: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_ms: number | null;
  batched_event_ids: string;
  created_at: string;
  updated_at: string;
}

interface Attempt {
  attempt: number;
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** Read only: a business without a webhook secret yet gets none made here (a GET writes nothing). */
function secretOf(db: Db, sealer: Sealer, businessId: number): string | undefined {
  // No pluck(): the statement is shared (cached by its text) with secrets.ts, which reads rows.
  const row = sql(db, 'SELECT secret_sealed FROM webhook_secrets WHERE business_id = ?').get(businessId) as
    | { secret_sealed: string }
    | undefined;
  return row && sealer.open(row.secret_sealed);
}

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
  operatorWebhookDeliveries: ({ db, services }, { query }) => {
    const business = query.business_id;
    const where = business === undefined ? '' : ' AND business_id = ?';
    const rows = (
      query.since === undefined
        ? (
            sql(
              db,
              `SELECT * FROM webhook_deliveries WHERE 1${where} ORDER BY updated_at DESC, id DESC LIMIT ?`,
            ).all(...(business === undefined ? [] : [business]), query.limit) as Row[]
          ).reverse()
        : sql(
            db,
            `SELECT * FROM webhook_deliveries WHERE (updated_at > ? OR (updated_at = ? AND id > ?))${where} ORDER BY updated_at, id LIMIT ?`,
          ).all(
            // Stored as ISO text in UTC: compare in the same form, whatever offset was passed.
            new Date(query.since).toISOString(),
            new Date(query.since).toISOString(),
            query.after_id,
            ...(business === undefined ? [] : [business]),
            query.limit,
          )
    ) as Row[];
    const secrets = new Map<number, string | undefined>();
    const results = rows.map((d) => {
      if (!secrets.has(d.business_id))
        secrets.set(d.business_id, secretOf(db, services.sealer, d.business_id));
      const secret = secrets.get(d.business_id);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'partner-webhooks/1',
        ...(secret ? { 'x-partner-signature': sign(secret, Buffer.from(d.payload, 'utf8')) } : {}),
        'x-partner-event-id': d.event_id,
        'x-partner-event-type': d.event_type,
        'x-partner-delivery-attempt': String(Math.max(1, d.attempts)),
      };
      return {
        id: d.id,
        event_id: d.event_id,
        event_type: d.event_type,
        business_id: d.business_id,
        webhook_id: d.webhook_id,
        url: d.url,
        status: d.status,
        attempts: d.attempts,
        next_attempt_at: d.next_attempt_ms === null ? null : new Date(d.next_attempt_ms).toISOString(),
        batched_event_ids: JSON.parse(d.batched_event_ids) as string[],
        created_at: d.created_at,
        updated_at: d.updated_at,
        log: sql(
          db,
          'SELECT attempt, at, status_code, duration_ms, error FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt',
        ).all(d.id) as Attempt[],
        ...ordersOf(d.payload),
        body: d.payload,
        headers,
      };
    });
    const last = rows.at(-1);
    return { results, next: last ? { since: last.updated_at, after_id: last.id } : null };
  },
};
