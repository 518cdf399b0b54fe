import { rotateWebhookSecret, webhookSecret } from '../delivery/secrets.js';
import { type OutboxEvent, seqOfEventId } from '../store/outbox-repo.js';
import { getEvent } from '../store/sqlite/outbox-repo.js';
import { ApiError, invalidField, notFound } from '../errors.js';
import type { HandlersFor, OperatorCtx } from './context.js';
import { sql } from '../store/sqlite/statements.js';
import type { Db } from '../store/sqlite/db.js';

interface WebhookRow {
  id: number;
  business_id: number;
  brand_id: number | null;
  branch_id: number | null;
  event: string;
  url: string;
  created_at: string;
}

interface DeliveryRow {
  id: number;
  event_id: string;
  event_type: string;
  business_id: number;
  webhook_id: number | null;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_ms: number | null;
  batched_event_ids: string;
  created_at: string;
  updated_at: string;
}

const WEBHOOK_COLUMNS = 'id, business_id, brand_id, branch_id, event, url, created_at';
type WebhookEventName =
  | 'all'
  | 'service.order.created.v2'
  | 'service.order.status.updated'
  | 'service.order.cart.updated';
const webhookOut = (r: WebhookRow) => ({ ...r, event: r.event as WebhookEventName });

function requireBusiness(db: Db, id: number): void {
  if (!sql(db, 'SELECT 1 FROM businesses WHERE id = ?').get(id))
    throw invalidField(['body', 'business_id'], `no business ${id}`);
}

function deliveriesOut(db: Db, rows: DeliveryRow[]) {
  return rows.map((d) => ({
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
    ).all(d.id) as {
      attempt: number;
      at: string;
      status_code: number | null;
      duration_ms: number;
      error: string | null;
    }[],
  }));
}

const kick = (ctx: OperatorCtx) => ctx.services.dispatcher?.kick();

export const webhookHandlers: HandlersFor<
  | 'listWebhooks'
  | 'operatorAddWebhook'
  | 'operatorListWebhooks'
  | 'operatorRemoveWebhook'
  | 'operatorWebhookSecret'
  | 'operatorWebhookLog'
  | 'operatorReplayWebhook'
> = {
  listWebhooks: ({ db, businessId }) =>
    (
      sql(
        db,
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE business_id = ? AND deleted_at IS NULL ORDER BY id`,
      ).all(businessId) as WebhookRow[]
    ).map(webhookOut),

  operatorAddWebhook: ({ store, db, now }, { body }) =>
    store.write(async () => {
      requireBusiness(db, body.business_id);
      if (
        body.brand_id !== undefined &&
        !sql(db, 'SELECT 1 FROM brands WHERE id = ? AND business_id = ?').get(body.brand_id, body.business_id)
      ) {
        throw invalidField(
          ['body', 'brand_id'],
          `business ${body.business_id} has no brand ${body.brand_id}`,
        );
      }
      if (body.branch_id !== undefined) {
        if (
          !sql(db, 'SELECT 1 FROM branches WHERE id = ? AND business_id = ? AND deleted_at IS NULL').get(
            body.branch_id,
            body.business_id,
          )
        ) {
          throw invalidField(
            ['body', 'branch_id'],
            `business ${body.business_id} has no branch ${body.branch_id}`,
          );
        }
        if (
          body.brand_id !== undefined &&
          !sql(db, 'SELECT 1 FROM branch_brands WHERE branch_id = ? AND brand_id = ?').get(
            body.branch_id,
            body.brand_id,
          )
        ) {
          throw invalidField(
            ['body', 'branch_id'],
            `branch ${body.branch_id} does not carry brand ${body.brand_id}`,
          );
        }
      }
      const brand = body.brand_id ?? null;
      const branch = body.branch_id ?? null;
      // Registering the same URL for the same tuple again is a no-op that answers the registration.
      const existing = sql(
        db,
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE business_id = ? AND coalesce(brand_id, 0) = ? AND coalesce(branch_id, 0) = ? AND event = ? AND url = ? AND deleted_at IS NULL`,
      ).get(body.business_id, brand ?? 0, branch ?? 0, body.event, body.url) as WebhookRow | undefined;
      if (existing) return webhookOut(existing);
      const id = Number(
        sql(
          db,
          'INSERT INTO webhooks (business_id, brand_id, branch_id, event, url, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        ).run(body.business_id, brand, branch, body.event, body.url, new Date(now).toISOString())
          .lastInsertRowid,
      );
      return webhookOut(
        sql(db, `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`).get(id) as WebhookRow,
      );
    }),

  operatorListWebhooks: ({ store, db }, { query }) =>
    store.read(async () =>
      (
        (query.business_id === undefined
          ? sql(db, `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE deleted_at IS NULL ORDER BY id`).all()
          : sql(
              db,
              `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE business_id = ? AND deleted_at IS NULL ORDER BY id`,
            ).all(query.business_id)) as WebhookRow[]
      ).map(webhookOut),
    ),

  operatorRemoveWebhook: ({ store, db, now }, { params }) =>
    store.write(async () => {
      const r = sql(db, 'UPDATE webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL').run(
        new Date(now).toISOString(),
        params.id,
      );
      if (r.changes === 0) throw notFound('webhook', params.id);
      return { id: params.id, deleted: true as const };
    }),

  operatorWebhookSecret: ({ services, store, db, now }, { body }) =>
    store.write(async () => {
      requireBusiness(db, body.business_id);
      const key = body.rotate
        ? rotateWebhookSecret(db, services.sealer, body.business_id, now)
        : webhookSecret(db, services.sealer, body.business_id, now);
      const rotated = sql(db, 'SELECT rotated_at FROM webhook_secrets WHERE business_id = ?')
        .pluck()
        .get(body.business_id) as string | null;
      return { business_id: body.business_id, webhook_secret_key: key, rotated_at: rotated };
    }),

  operatorWebhookLog: ({ store, db }, { query }) =>
    store.read(async () => {
      const where: string[] = [];
      const args: (string | number)[] = [];
      if (query.event_id) {
        where.push('(event_id = ? OR batched_event_ids LIKE ?)');
        args.push(query.event_id, `%"${query.event_id.replace(/["%_\\]/g, '')}"%`);
      }
      if (query.status) {
        where.push('status = ?');
        args.push(query.status);
      }
      if (query.business_id !== undefined) {
        where.push('business_id = ?');
        args.push(query.business_id);
      }
      const rows = sql(
        db,
        `SELECT * FROM webhook_deliveries${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`,
      ).all(...args, query.limit) as DeliveryRow[];
      return deliveriesOut(db, rows);
    }),

  operatorReplayWebhook: (ctx, { params }) =>
    ctx.store.write(async () => {
      const { db, now } = ctx;
      const event = getEvent(db, params.event_id) as
        | (OutboxEvent & { batched_into: string | null })
        | undefined;
      if (!event) throw notFound('event', params.event_id);
      // An event that went out inside a batch is re-sent as that batch (same bytes, same event id).
      const eventId = event.batched_into ?? event.id;
      const hasDeliveries =
        sql(db, 'SELECT 1 FROM webhook_deliveries WHERE event_id = ?').get(eventId) !== undefined;
      if (!hasDeliveries && !sql(db, 'SELECT 1 FROM webhooks WHERE deleted_at IS NULL').get()) {
        throw new ApiError(
          'resource_not_found',
          `event ${params.event_id} has no receiver to replay to; register one with partner operator webhooks add`,
        );
      }
      const at = new Date(now).toISOString();
      db.transaction(() => {
        if (hasDeliveries) {
          sql(
            db,
            "UPDATE webhook_deliveries SET status = 'pending', budget_start = attempts, next_attempt_ms = ?, lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE event_id = ?",
          ).run(now, at, eventId);
          sql(
            db,
            "UPDATE outbox_events SET status = 'pending', updated_at = ? WHERE seq = ? OR batched_into = ?",
          ).run(at, seqOfEventId(eventId) ?? -1, eventId);
        } else {
          // Nobody was registered when it was written: offer it to today's receivers.
          sql(
            db,
            "UPDATE outbox_events SET fanned_out = 0, status = 'pending', updated_at = ? WHERE seq = ?",
          ).run(at, event.seq);
        }
      })();
      kick(ctx);
      const rows = sql(db, 'SELECT * FROM webhook_deliveries WHERE event_id = ? ORDER BY id').all(
        eventId,
      ) as DeliveryRow[];
      return { event_id: eventId, deliveries: deliveriesOut(db, rows) };
    }),
};
