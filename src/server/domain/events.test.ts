import { describe, expect, it } from 'vitest';
import { eventIdFor, eventPayload, ordersTextOf, seqOfEventId } from './events.js';

describe('event ids and payloads', () => {
  it('an id names its seq, is never repeated, and a foreign id names none', () => {
    const ids = Array.from({ length: 600 }, (_, i) => eventIdFor(i + 1)); // past one random pool
    expect(new Set(ids).size).toBe(600);
    expect(ids.map(seqOfEventId)).toEqual(ids.map((_, i) => i + 1));
    expect(seqOfEventId(`${ids[0]}x`)).toBeUndefined();
    expect(seqOfEventId('evt_1_short')).toBeUndefined();
  });

  it('the orders of a one-order payload are that order’s bytes exactly', () => {
    const order = '{"id":7,"note":"a ]} inside"}';
    const payload = eventPayload(1, 2, [order]);
    expect(JSON.parse(payload)).toEqual({ brand_id: 1, branch_id: 2, orders: [JSON.parse(order)] });
    expect(ordersTextOf(payload)).toBe(order);
    expect(ordersTextOf('{"brand_id":1}')).toBeUndefined();
  });
});
