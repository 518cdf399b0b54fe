// `partner/webhooks` (docs/library.md): check a delivery's signature over its raw bytes in constant
// time and turn it into a typed event; sign deliveries to test a receiver.
export { sign, verify } from './signature.js';
export {
  type CartLine,
  EVENT_TYPES,
  type EventType,
  HEADERS,
  type HeadersLike,
  type Order,
  type OrderCartUpdatedEvent,
  type OrderCreatedEvent,
  type OrderStatusUpdatedEvent,
  type PartnerEvent,
  signDelivery,
  verifyEvent,
  WebhookError,
  type WebhookErrorCode,
} from './events.js';
