import {
  type CartLine,
  ORDER_EVENT_TYPES,
  type Order,
  OrderEventPayload,
  type OrderEventType,
  WEBHOOK_HEADERS,
} from '../contract/schemas/orders.js';
import { sign, verify } from './signature.js';

// A webhook delivery turned into a typed event, after its signature is checked over the exact
// bytes received (docs/webhooks.md, docs/library.md). The body is validated against the same
// schema the server builds it from; the event keeps the body as received (fields a newer server
// adds stay in it).

export type { CartLine, Order };

export const EVENT_TYPES: readonly OrderEventType[] = ORDER_EVENT_TYPES;
export type EventType = OrderEventType;

/** The delivery headers (lowercase, as Node and the Fetch API give them). */
export const HEADERS = WEBHOOK_HEADERS;

interface EventBase<T extends EventType> {
  /** `x-partner-event-id`: the same on every retry of the event; de-duplicate on it. */
  id: string;
  type: T;
  /** `x-partner-delivery-attempt`: 1, 2, … */
  attempt: number;
  brand_id: number;
  branch_id: number;
  /** One or more orders of that brand and branch, each the full order read. */
  orders: Order[];
}

/** `service.order.created.v2`: new orders (several of one brand and branch may come batched). */
export type OrderCreatedEvent = EventBase<'service.order.created.v2'>;
/** `service.order.status.updated`: compare `updated_at` to drop an older update arriving late. */
export type OrderStatusUpdatedEvent = EventBase<'service.order.status.updated'>;
/** `service.order.cart.updated`: the order with its replaced cart. */
export type OrderCartUpdatedEvent = EventBase<'service.order.cart.updated'>;
/** Any event; `switch (event.type)` narrows it. */
export type PartnerEvent = OrderCreatedEvent | OrderStatusUpdatedEvent | OrderCartUpdatedEvent;

export type WebhookErrorCode =
  | 'missing_signature'
  | 'invalid_signature'
  | 'missing_event_id'
  | 'invalid_body'
  | 'unknown_event_type'
  | 'body_not_raw';

/**
 * Why a delivery was not turned into an event. `status` is the answer to send: 401 for a
 * signature that does not verify (the sender may retry with the right key), 400 for a signed body
 * that is not an event, and 200 for a correctly signed event of a type this version does not know
 * (acknowledge it, or the sender retries it for hours). `body_not_raw` (500) is the receiver's own
 * mistake, not the sender's: the body was handed over already parsed; the delivery is retried and
 * verifies once the raw bytes are passed.
 */
export class WebhookError extends Error {
  override readonly name = 'WebhookError';
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
    readonly status: 200 | 400 | 401 | 500,
  ) {
    super(message);
  }
}

/** Node's `req.headers`, a Fetch API `Headers`, or a plain object of header names to values. */
export type HeadersLike =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const v = (headers as { get(name: string): string | null | undefined }).get(name);
    return v ?? undefined;
  }
  const rec = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const v = rec[name] ?? Object.entries(rec).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : (v as string | undefined);
}

function isEventType(t: string | undefined): t is EventType {
  return t !== undefined && (EVENT_TYPES as readonly string[]).includes(t);
}

/**
 * Checks a delivery and returns it as a typed event; throws a WebhookError otherwise.
 *
 * - `body`: the raw bytes exactly as received (a Buffer/Uint8Array, or the same bytes as a UTF-8
 *   string). Never a re-serialised object: the signature is over the bytes.
 * - `secret`: the business's webhook secret; several while rotating (any one may verify).
 *
 * The signature is compared in constant time, before the body is even parsed.
 */
export function verifyEvent(
  body: Uint8Array | string,
  headers: HeadersLike,
  secret: string | readonly string[],
): PartnerEvent {
  // The usual mistake: a framework's JSON parser (express.json(), Fastify's default) ran first and
  // the object came instead of the bytes; its signature cannot be checked, whatever the object.
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    const b = body as unknown;
    const got =
      b === null
        ? 'null'
        : Array.isArray(b)
          ? 'an array'
          : typeof b === 'object'
            ? 'an object'
            : `a ${typeof b}`;
    throw new WebhookError(
      'body_not_raw',
      `verifyEvent needs the raw body bytes (a Buffer or the UTF-8 string as received), got ${got}: the body was parsed before the signature could be checked (use express.raw({ type: 'application/json' }), not express.json(); in Fastify a 'buffer' content-type parser)`,
      500,
    );
  }
  const signature = header(headers, HEADERS.signature);
  if (!signature) throw new WebhookError('missing_signature', `no ${HEADERS.signature} header`, 401);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === ''))
    throw new TypeError('verifyEvent: the webhook secret must be a non-empty string');
  // Every secret is tried (no early exit), so the time taken does not tell which one matched.
  let ok = false;
  for (const s of secrets) ok = verify(s, body, signature) || ok;
  if (!ok) throw new WebhookError('invalid_signature', 'invalid signature', 401);

  const id = header(headers, HEADERS.eventId);
  if (!id) throw new WebhookError('missing_event_id', `no ${HEADERS.eventId} header`, 400);
  const type = header(headers, HEADERS.eventType);
  let json: unknown;
  try {
    json = JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
  } catch {
    throw new WebhookError('invalid_body', 'the body is not JSON', 400);
  }
  if (!isEventType(type))
    throw new WebhookError(
      'unknown_event_type',
      `unknown event type "${type ?? ''}"; acknowledge and ignore it`,
      200,
    );
  const checked = OrderEventPayload.safeParse(json);
  if (!checked.success) {
    const first = checked.error.issues[0];
    throw new WebhookError(
      'invalid_body',
      `the body is not a ${type} event: ${first ? `${first.path.join('.') || 'body'}: ${first.message}` : 'invalid'}`,
      400,
    );
  }
  const raw = json as { brand_id: number; branch_id: number; orders: Order[] };
  const attempt = Number(header(headers, HEADERS.attempt) ?? '1');
  return {
    id,
    type,
    attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : 1,
    brand_id: raw.brand_id,
    branch_id: raw.branch_id,
    orders: raw.orders,
  } as PartnerEvent;
}

/**
 * A signed delivery as the server sends it (body bytes and headers), for testing a receiver.
 *
 * @example
 * const { body, headers } = signDelivery(secret, { type: 'service.order.created.v2', id: 'evt_1', payload });
 * await fetch('http://127.0.0.1:3000/webhooks', { method: 'POST', body, headers });
 */
export function signDelivery(
  secret: string,
  event: {
    type: EventType;
    id: string;
    attempt?: number;
    payload: { brand_id: number; branch_id: number; orders: Order[] };
  },
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event.payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      [HEADERS.signature]: sign(secret, body),
      [HEADERS.eventId]: event.id,
      [HEADERS.eventType]: event.type,
      [HEADERS.attempt]: String(event.attempt ?? 1),
    },
  };
}
