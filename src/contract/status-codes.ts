// The order status codes alone (spec §2.7: stable across releases), apart from the dictionary's
// translations (order-statuses.ts), so the inspect page can import them without 9 KB of text.

/** The 11 canonical codes, in id order (index + 1 = id). */
export const STATUS_CODES = [
  'PLACED',
  'ACCEPTED',
  'CANCELLED',
  'READY',
  'DELIVERED',
  'SCHEDULED',
  'DRIVER ASSIGNED',
  'DRIVER ARRIVED',
  'PICKED UP',
  'PENDING',
  'VOID',
] as const;
export type StatusCode = (typeof STATUS_CODES)[number];
