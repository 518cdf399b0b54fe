// Webhook registrations, signing secrets, the delivery log and replays (what the operator
// handlers and the dispatcher call).
import { eventStatus } from '../domain/delivery.js';
import { ApiError, invalidField, notFound } from '../errors.js';
import type { Sealer } from '../security/sealed.js';
import { newToken } from '../security/secrets.js';
import type { DeliveryRow } from '../store/deliveries-repo.js';
import type { Store, Tx } from '../store/store.js';
import type { WebhookEventName, WebhookRow } from '../store/webhooks-repo.js';
import { requireBusiness } from './credentials.js';

/**
 * The business's webhook_secret_key, created on first use (sealed at rest). Opening and sealing
 * happen outside the units; only the stored text goes through the store.
 */
export async function webhookSecret(
  store: Store,
  sealer: Sealer,
  businessId: number,
  now: number,
): Promise<string> {
  const stored = await store.read((tx) => tx.webhookSecrets.get(businessId));
  if (stored) return sealer.open(stored.sealed);
  const fresh = sealer.seal(newToken('whsec_', 24));
  // Two first uses at once keep whichever was stored first.
  const kept = await store.write((tx) => tx.webhookSecrets.create(businessId, fresh, now));
  return sealer.open(kept.sealed);
}

/** Issues a new secret; deliveries from now on are signed with it. */
export async function rotateWebhookSecret(store: Store, sealer: Sealer, businessId: number, now: number) {
  const sealed = sealer.seal(newToken('whsec_', 24));
  const kept = await store.write(async (tx) => {
    await requireBusiness(tx, businessId);
    return tx.webhookSecrets.rotate(businessId, sealed, now);
  });
  return { webhook_secret_key: sealer.open(kept.sealed), rotated_at: kept.rotated_at };
}

/** Registers a URL for (business, brand?, branch?, event); the same registration again is a no-op. */
export async function addWebhook(
  tx: Tx,
  b: {
    business_id: number;
    brand_id?: number | undefined;
    branch_id?: number | undefined;
    event: WebhookEventName;
    url: string;
  },
  now: number,
): Promise<WebhookRow> {
  await requireBusiness(tx, b.business_id);
  const t = tx.tenant(b.business_id);
  if (b.brand_id !== undefined && !(await t.brands.get(b.brand_id))) {
    throw invalidField(['body', 'brand_id'], `business ${b.business_id} has no brand ${b.brand_id}`);
  }
  if (b.branch_id !== undefined) {
    if (!(await t.branches.get(b.branch_id))) {
      throw invalidField(['body', 'branch_id'], `business ${b.business_id} has no branch ${b.branch_id}`);
    }
    if (b.brand_id !== undefined && !(await t.branches.carries(b.branch_id, b.brand_id))) {
      throw invalidField(['body', 'branch_id'], `branch ${b.branch_id} does not carry brand ${b.brand_id}`);
    }
  }
  const tuple = {
    business_id: b.business_id,
    brand_id: b.brand_id ?? null,
    branch_id: b.branch_id ?? null,
    event: b.event,
    url: b.url,
  };
  return (await tx.webhooks.find(tuple)) ?? tx.webhooks.insert(tuple, now);
}

/** The webhook log's last entry of a delivery ended by the removal of its registration. */
const REGISTRATION_REMOVED = 'registration removed';

/**
 * Removes a registration and ends its pending deliveries at once (docs/webhooks.md): each is
 * marked failed, with a last log entry saying why (no status code, `registration removed`),
 * instead of retrying for hours to a URL nobody registers any more. Its events are settled as
 * the dispatcher settles them. False when there was no live registration of that id.
 */
export async function removeWebhook(tx: Tx, id: number, now: number): Promise<boolean> {
  const live = (await tx.webhooks.list()).find((w) => w.id === id);
  if (!live || !(await tx.webhooks.remove(id, now))) return false;
  // An operator's rare act: every pending delivery of the business, whatever their number.
  const pending = (await tx.deliveries.log({ status: 'pending', businessId: live.business_id }, 1e9)).filter(
    (d) => d.webhook_id === id,
  );
  const at = new Date(now).toISOString();
  const events = new Map<string, number>();
  for (const d of pending) {
    await tx.deliveries.settle(d.id, { status: 'failed' }, now);
    // After every attempt made or under way (a claim counts its attempt before it is sent).
    await tx.deliveries.recordAttempt(d.id, {
      attempt: d.attempts + 1,
      at,
      status_code: null,
      duration_ms: 0,
      error: REGISTRATION_REMOVED,
    });
    events.set(d.event_id, d.event_seq);
  }
  for (const [eventId, seq] of events) {
    const rows = await tx.deliveries.ofEvent(eventId);
    const attempts = rows.reduce((m, r) => Math.max(m, r.attempts), 0);
    await tx.outbox.settle(seq, eventId, eventStatus(rows.map((r) => r.status)), attempts, now);
  }
  return true;
}

/** Deliveries as the operator's log shows them, each with its attempts. */
export async function deliveriesOut(tx: Tx, rows: DeliveryRow[]) {
  const out = [];
  for (const d of rows) {
    out.push({
      id: d.id,
      event_id: d.event_id,
      event_type: d.event_type,
      business_id: d.business_id,
      webhook_id: d.webhook_id,
      url: d.url,
      status: d.status,
      attempts: d.attempts,
      next_attempt_at: d.next_attempt_ms === null ? null : new Date(d.next_attempt_ms).toISOString(),
      batched_event_ids: d.batched_event_ids,
      created_at: d.created_at,
      updated_at: d.updated_at,
      log: await tx.deliveries.attempts(d.id),
    });
  }
  return out;
}

/**
 * Re-sends an event with the same event id (an event that went out inside a batch is re-sent as
 * that batch: same bytes) to the registrations of its deliveries that are still live: one to a
 * removed registration is never revived, and an event whose receivers were all removed is
 * refused. An event nobody received is offered to today's receivers.
 */
export async function replayEvent(tx: Tx, id: string, now: number) {
  const event = await tx.outbox.get(id);
  if (!event) throw notFound('event', id);
  const eventId = event.batched_into ?? event.id;
  const deliveries = await tx.deliveries.byEvent(eventId);
  const hasDeliveries = deliveries.length > 0;
  const webhooks = await tx.webhooks.list();
  if (hasDeliveries && !deliveries.some((d) => webhooks.some((w) => w.id === d.webhook_id))) {
    const ids = [...new Set(deliveries.map((d) => d.webhook_id))].join(', ');
    throw new ApiError(
      'resource_not_found',
      `event ${id} went only to webhook registrations since removed (${ids}): deliveries to a removed registration are not replayed`,
    );
  }
  if (!hasDeliveries && webhooks.length === 0) {
    throw new ApiError(
      'resource_not_found',
      `event ${id} has no receiver to replay to; register one with partner operator webhooks add`,
    );
  }
  if (hasDeliveries) {
    await tx.deliveries.reopen(eventId, now);
    await tx.outbox.reopen(eventId, now);
  } else {
    await tx.outbox.refanOut(event.seq, now);
  }
  return { event_id: eventId, deliveries: await deliveriesOut(tx, await tx.deliveries.byEvent(eventId)) };
}
