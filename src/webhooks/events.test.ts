import { describe, expect, it } from 'vitest';
import { type EventType, type PartnerEvent, signDelivery, verifyEvent, WebhookError } from './events.js';
import { sign } from './signature.js';

// verifyEvent over the exact bytes: every way a delivery can be refused, with the answer to send,
// and the headers in the shapes receivers have them (Node, Fetch, a plain object).

const SECRET = 'whsec_unit_test_secret';

const order = {
  id: 1042,
  status: 1,
  placed_at: '2024-05-01T10:00:00Z',
  currency: 'IDR',
  total: '45000.00',
  cart: [
    {
      item_id: 7,
      partner_item_id: 'SKU-CB',
      title: 'Cheeseburger',
      quantity: 1,
      unit_price: '45000.00',
      total: '45000.00',
      modifiers: [],
    },
  ],
  customer: { name: 'Ana', phone: '+628123' },
  branch_id: 3,
  brand_id: 2,
  updated_at: '2024-05-01T10:00:00Z',
  order_type_id: 1,
  provider_id: 1,
  comment: null,
  cancellation_reason: null,
  created_at: '2024-05-01T10:00:00Z',
  status_history: [{ status: 1, at: '2024-05-01T10:00:00Z', by: 'system' }],
  // A field a newer server might add: kept, not stripped.
  loyalty_points: 12,
} as const;
const payload = { brand_id: 2, branch_id: 3, orders: [order] } as never;

const delivery = (type: EventType = 'service.order.created.v2') =>
  signDelivery(SECRET, { type, id: 'evt_1', attempt: 2, payload });

const refusal = (fn: () => unknown): WebhookError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookError) return err;
    throw err;
  }
  throw new Error('expected a WebhookError');
};

describe('verifyEvent', () => {
  it('an already-parsed body (express.json() ran first) is a WebhookError saying to pass the raw bytes', () => {
    const { body, headers } = delivery();
    for (const parsed of [JSON.parse(body), [], null, 42]) {
      const err = refusal(() => verifyEvent(parsed as never, headers, SECRET));
      expect(err.code).toBe('body_not_raw');
      expect(err.status).toBe(500);
      expect(err.message).toMatch(/raw body bytes.*express\.raw/);
    }
    // Even unsigned: the mistake is the receiver's, and it is named first.
    expect(refusal(() => verifyEvent({} as never, {}, SECRET)).code).toBe('body_not_raw');
  });

  it('turns a signed delivery into a typed event, from a Buffer or a string, any header shape', () => {
    const { body, headers } = delivery('service.order.status.updated');
    const event: PartnerEvent = verifyEvent(Buffer.from(body), headers, SECRET);
    expect(event).toMatchObject({
      id: 'evt_1',
      type: 'service.order.status.updated',
      attempt: 2,
      brand_id: 2,
    });
    expect(event.orders[0]).toMatchObject({ id: 1042, loyalty_points: 12 });
    expect(verifyEvent(body, new Headers(headers), SECRET).id).toBe('evt_1');
    const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyEvent(body, shouted, SECRET).type).toBe('service.order.status.updated');
    // Node gives repeated headers as arrays.
    expect(verifyEvent(body, { ...headers, 'x-partner-event-id': ['evt_1', 'evt_2'] }, SECRET).id).toBe(
      'evt_1',
    );
  });

  it('accepts any of several secrets (rotation), and only those', () => {
    const { body, headers } = delivery();
    expect(verifyEvent(body, headers, ['whsec_new_one', SECRET]).id).toBe('evt_1');
    expect(refusal(() => verifyEvent(body, headers, ['whsec_new_one', 'whsec_other'])).code).toBe(
      'invalid_signature',
    );
    expect(() => verifyEvent(body, headers, [])).toThrow(TypeError);
  });

  it('refuses what is not signed by the secret: 401', () => {
    const { body, headers } = delivery();
    const wrong = refusal(() => verifyEvent(body, headers, 'whsec_wrong'));
    expect([wrong.code, wrong.status, wrong.message]).toEqual([
      'invalid_signature',
      401,
      'invalid signature',
    ]);
    // One byte changed, or the same JSON re-serialised: the signature no longer matches.
    expect(refusal(() => verifyEvent(body.replace('45000.00', '45000.01'), headers, SECRET)).code).toBe(
      'invalid_signature',
    );
    expect(refusal(() => verifyEvent(JSON.stringify(JSON.parse(body), null, 2), headers, SECRET)).code).toBe(
      'invalid_signature',
    );
    const { 'x-partner-signature': _gone, ...unsigned } = headers;
    expect([refusal(() => verifyEvent(body, unsigned, SECRET))].map((e) => [e.code, e.status])).toEqual([
      ['missing_signature', 401],
    ]);
  });

  it('a signed body that is not an event: 400; a type this version does not know: 200 (acknowledge)', () => {
    const notJson = 'not json';
    const h = { ...delivery().headers, 'x-partner-signature': sign(SECRET, notJson) };
    expect([refusal(() => verifyEvent(notJson, h, SECRET))].map((e) => [e.code, e.status])).toEqual([
      ['invalid_body', 400],
    ]);
    const partial = JSON.stringify({ brand_id: 2, branch_id: 3, orders: [] });
    const bad = refusal(() =>
      verifyEvent(partial, { ...delivery().headers, 'x-partner-signature': sign(SECRET, partial) }, SECRET),
    );
    expect([bad.code, bad.status]).toEqual(['invalid_body', 400]);
    expect(bad.message).toMatch(/^the body is not a service\.order\.created\.v2 event: orders: /);

    const { body, headers } = delivery();
    const future = refusal(() =>
      verifyEvent(body, { ...headers, 'x-partner-event-type': 'service.order.refunded' }, SECRET),
    );
    expect([future.code, future.status]).toEqual(['unknown_event_type', 200]);
    const { 'x-partner-event-id': _id, ...noId } = headers;
    expect(refusal(() => verifyEvent(body, noId, SECRET)).code).toBe('missing_event_id');
  });
});
