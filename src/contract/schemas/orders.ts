import { z } from 'zod';
import { documentedAs, named, NON_BLANK_PATTERN, stateRules } from '../json-schema.js';
import { toStatusCode } from '../order-rules.js';
import { STATUS_CODES, STATUS_ID, type StatusCode } from '../order-statuses.js';
import {
  BusinessIdIgnored,
  Decimal,
  Id,
  IntId,
  IsoDateTime,
  PaginationQuery,
  TENANT_QUERY,
} from './common.js';

// Orders (spec §2.8, docs/orders.md) and the event payload shared by webhook delivery and
// `partner listen` (spec §6.3).

// ─── Status references ──────────────────────────────────────────────────────────────────────

export { toStatusCode };

const STATUS_HINT = `a status id (1–11) or code (${STATUS_CODES.join(', ')})`;

/** Input: id or code; output: the canonical code. */
function statusRef() {
  return z.union([z.number().int(), z.string()]).transform((v, ctx) => {
    const code = toStatusCode(v);
    if (code === undefined) {
      ctx.addIssue({ code: 'custom', message: `must be ${STATUS_HINT}` });
      return z.NEVER;
    }
    return code;
  });
}
const StatusRef = statusRef();

const LENIENT =
  'Codes also match case-insensitively, with `_` or `-` for the space (`picked_up`); ids may be sent as strings.';
const ALL_IDS = STATUS_CODES.map((c) => STATUS_ID[c]);
/** The targets a partner may patch an order to (spec §3 rule 2). */
export const PARTNER_TARGETS = ['ACCEPTED', 'CANCELLED', 'READY', 'DELIVERED'] as const;

/** The status of a partner patch: one of the four targets, as id or code. */
const PartnerTargetRef = documentedAs(statusRef(), {
  anyOf: [
    { type: 'integer', enum: PARTNER_TARGETS.map((c) => STATUS_ID[c]) },
    { type: 'string', enum: [...PARTNER_TARGETS] },
  ],
  description: `ACCEPTED (2), CANCELLED (3, needs cancellation_reason), READY (4) or DELIVERED (5), as id or code; any other status answers 409 state_invalid_transition. ${LENIENT}`,
});

/** Query form: one or more ids/codes separated by commas (`status=ACCEPTED,4`). */
const StatusFilter = documentedAs(
  z.string().transform((v, ctx) => {
    const out: StatusCode[] = [];
    for (const part of v.split(',')) {
      const code = toStatusCode(part);
      if (code === undefined) {
        ctx.addIssue({ code: 'custom', message: `"${part}" is not ${STATUS_HINT}` });
        return z.NEVER;
      }
      if (!out.includes(code)) out.push(code);
    }
    return out;
  }),
  {
    type: 'array',
    items: {
      anyOf: [
        { type: 'integer', enum: ALL_IDS },
        { type: 'string', enum: [...STATUS_CODES] },
      ],
    },
    minItems: 1,
    description: `Orders in any of these statuses, comma-separated (\`status=ACCEPTED,4\`). ${LENIENT}`,
  },
);

// ─── The order record ───────────────────────────────────────────────────────────────────────

const OrderTypeId = z.union([z.literal(1), z.literal(2), z.literal(3)]);
const ACTORS = ['system', 'partner', 'operator'] as const;

export const CartModifier = z.object({
  item_id: z.number().int(),
  title: z.string(),
  /** Per unit of the line. */
  quantity: z.number().int(),
  unit_price: Decimal,
});
export const CartLine = z.object({
  item_id: z.number().int(),
  partner_item_id: z.string(),
  title: z.string(),
  quantity: z.number().int(),
  unit_price: Decimal,
  /** quantity × (unit_price + Σ modifier.quantity × modifier.unit_price) */
  total: Decimal,
  modifiers: z.array(CartModifier),
});
export const Customer = z.object({ name: z.string(), phone: z.string() });
export const StatusHistoryEntry = z.object({
  status: z.number().int(),
  at: IsoDateTime,
  by: z.enum(ACTORS),
});

/** The order read (`GET /orders/{id}`), which is also what events carry (spec §2.8). */
export const Order = z.object({
  id: z.number().int(),
  /** Status id from the dictionary (spec §2.7). */
  status: z.number().int(),
  placed_at: IsoDateTime,
  /** ISO 4217 code of the branch's currency. */
  currency: z.string(),
  /** Σ cart[].total, as a decimal string with the currency's places. */
  total: Decimal,
  cart: z.array(CartLine),
  customer: Customer,
  branch_id: z.number().int(),
  brand_id: z.number().int(),
  updated_at: IsoDateTime,
  order_type_id: OrderTypeId,
  provider_id: z.number().int(),
  comment: z.string().nullable(),
  cancellation_reason: z.string().nullable(),
  created_at: IsoDateTime,
  status_history: z.array(StatusHistoryEntry),
});
export type Order = z.infer<typeof Order>;
export type CartLine = z.infer<typeof CartLine>;

// ─── Partner requests ───────────────────────────────────────────────────────────────────────

/** `2024-05-01T10:00:00Z`, `…+07:00`, or a bare date meaning its UTC midnight. */
const DateOrDateTime = z.union([IsoDateTime, z.iso.date()]);

export const ListOrdersQuery = PaginationQuery.extend({
  from: DateOrDateTime.optional(),
  to: DateOrDateTime.optional(),
  branch_id: Id.optional(),
  brand_id: Id.optional(),
  status: StatusFilter.optional(),
  ...TENANT_QUERY,
}).strict();

const Reason = z.string().max(500);

export const PatchOrderStatusBody = z
  .strictObject({
    id: IntId,
    status: PartnerTargetRef,
    platform: z.literal('enterprise'),
    cancellation_reason: Reason.nullable().optional(),
    business_id: BusinessIdIgnored,
  })
  .superRefine((b, ctx) => {
    if (b.status === 'CANCELLED' && !b.cancellation_reason?.trim()) {
      ctx.addIssue({
        code: 'custom',
        path: ['cancellation_reason'],
        message: 'is required (non-empty) when status is CANCELLED',
      });
    }
  })
  // The same rule for the document: a status naming CANCELLED (its id, or its code in any of the
  // spellings the server reads) needs a reason with a non-space character.
  .meta({
    if: {
      required: ['status'],
      properties: {
        status: {
          anyOf: [
            { const: STATUS_ID.CANCELLED },
            {
              type: 'string',
              pattern: `^\\s*(?:${STATUS_ID.CANCELLED}|[Cc][Aa][Nn][Cc][Ee][Ll][Ll][Ee][Dd])\\s*$`,
            },
          ],
        },
      },
    },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, never awaited
    then: {
      required: ['cancellation_reason'],
      properties: { cancellation_reason: { type: 'string', pattern: NON_BLANK_PATTERN } },
    },
  });

export const SetOrderCommentBody = z.strictObject({
  /** Empty or null clears the comment. */
  comment: z.string().max(2000).nullable(),
  business_id: BusinessIdIgnored,
});

// ─── Operator requests (order simulation, docs/orders.md) ────────────────────────────────

const Quantity = z.number().int().min(1).max(99);
const Amount = z.string().regex(/^\d+(\.\d+)?$/, 'must be a non-negative decimal string such as "45000.00"');

const CartModifierInput = z.strictObject({
  item_id: IntId,
  title: z.string().trim().min(1).max(200),
  quantity: Quantity.default(1),
  unit_price: Amount,
});
const CartLineInput = z.strictObject({
  item_id: IntId,
  partner_item_id: z.string().trim().min(1).max(100),
  title: z.string().trim().min(1).max(200),
  quantity: Quantity,
  unit_price: Amount,
  modifiers: z.array(CartModifierInput).max(50).default([]),
  /** Optional; when present it must equal the computed line total. */
  total: Amount.optional(),
});
const CartInput = z.array(CartLineInput).min(1).max(100);
const ItemCount = z.number().int().min(1).max(20);

export const OperatorCreateOrderBody = z
  .strictObject({
    business_id: IntId,
    brand_id: IntId,
    branch_id: IntId,
    /** Lines of a generated cart (default 2–4 at random); not together with `cart`. */
    items: ItemCount.optional(),
    cart: CartInput.optional(),
    order_type_id: OrderTypeId.optional(),
    provider_id: IntId.optional(),
    customer: z
      .strictObject({ name: z.string().trim().min(1).max(200), phone: z.string().trim().min(1).max(40) })
      .optional(),
    comment: z.string().max(2000).optional(),
  })
  .refine((b) => !(b.items !== undefined && b.cart !== undefined), {
    message: 'give `items` (a generated cart) or `cart`, not both',
  });

export const OperatorReplaceCartBody = z
  .strictObject({ items: ItemCount.optional(), cart: CartInput.optional() })
  .refine((b) => !(b.items !== undefined && b.cart !== undefined), {
    message: 'give `items` (a generated cart) or `cart`, not both',
  });

export const OperatorSetStatusBody = z.strictObject({
  status: StatusRef,
  /** Kept only with CANCELLED; defaults to "cancelled by operator". */
  cancellation_reason: Reason.optional(),
});

// ─── Events (spec §6.2–6.3) ─────────────────────────────────────────────────────────────────

export const ORDER_EVENT_TYPES = [
  'service.order.created.v2',
  'service.order.status.updated',
  'service.order.cart.updated',
] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];
export const OrderEventType = z.enum(ORDER_EVENT_TYPES);

/** The headers of every delivery (lowercase, as Node and the Fetch API give them). */
export const WEBHOOK_HEADERS = {
  signature: 'x-partner-signature',
  eventId: 'x-partner-event-id',
  eventType: 'x-partner-event-type',
  attempt: 'x-partner-delivery-attempt',
} as const;

/** The body of every delivery: one or more orders of one (brand, branch), each the order read. */
export const OrderEventPayload = z.object({
  brand_id: z.number().int(),
  branch_id: z.number().int(),
  orders: z.array(Order).min(1),
});
export type OrderEventPayload = z.infer<typeof OrderEventPayload>;

// Their names in the OpenAPI document (components.schemas), which code generators name types after.
for (const [id, schema] of Object.entries({
  Order,
  CartLine,
  CartModifier,
  Customer,
  StatusHistoryEntry,
  OrderEventPayload,
}))
  named(id, schema);

stateRules(ListOrdersQuery, { from: 'not after to' });
