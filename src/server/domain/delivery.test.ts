import { describe, expect, it } from 'vitest';
import { batchEvents, eventStatus, isDelivered, receiversOf, retryDelay } from './delivery.js';

const ev = (seq: number, type: string, at: number, brand = 1, branch = 2) => ({
  seq,
  id: `evt_${seq}`,
  type,
  business_id: 1,
  brand_id: brand,
  branch_id: branch,
  at,
});
const hook = (
  id: number,
  over: Partial<{
    brand_id: number | null;
    branch_id: number | null;
    event: string;
    url: string;
    business_id: number;
  }> = {},
) => ({
  id,
  business_id: 1,
  brand_id: null,
  branch_id: null,
  event: 'all',
  url: `http://127.0.0.1/${id}`,
  ...over,
});

describe('receiversOf', () => {
  it('matches business, brand, branch and type, with null and all as wildcards', () => {
    const e = ev(1, 'service.order.status.updated', 0);
    const hooks = [
      hook(1),
      hook(2, { brand_id: 1, branch_id: 2, event: 'service.order.status.updated' }),
      hook(3, { brand_id: 9 }),
      hook(4, { branch_id: 9 }),
      hook(5, { event: 'service.order.created.v2' }),
      hook(6, { business_id: 2 }),
    ];
    expect(receiversOf(hooks, e).map((h) => h.id)).toEqual([1, 2]);
  });
  it('sends once per URL', () => {
    const e = ev(1, 'service.order.status.updated', 0);
    expect(receiversOf([hook(1, { url: 'u' }), hook(2, { url: 'u', brand_id: 1 })], e)).toHaveLength(1);
  });
});

describe('retryDelay', () => {
  const schedule = [10_000, 60_000, 300_000];
  it('follows the schedule with ±10 % jitter, then gives up', () => {
    expect(retryDelay(schedule, 1, () => 0.5)).toBe(10_000);
    expect(retryDelay(schedule, 2, () => 0)).toBe(54_000);
    expect(retryDelay(schedule, 3, () => 1)).toBe(330_000);
    expect(retryDelay(schedule, 4, () => 0.5)).toBeUndefined();
    expect(retryDelay([], 1)).toBeUndefined();
  });
});

it('only 2xx is delivered', () => {
  expect([200, 204, 299].every(isDelivered)).toBe(true);
  expect([undefined, 199, 301, 302, 400, 500].some(isDelivered)).toBe(false);
});

describe('batchEvents', () => {
  it('batches new orders of one store within the window; keeps everything else alone', () => {
    const C = 'service.order.created.v2';
    const S = 'service.order.status.updated';
    const groups = batchEvents([
      ev(1, C, 0),
      ev(2, C, 100),
      ev(3, S, 120),
      ev(4, C, 200, 1, 3),
      ev(5, C, 240),
      ev(6, C, 400),
    ]);
    expect(groups.map((g) => g.map((e) => e.seq))).toEqual([[1, 2, 5], [3], [4], [6]]);
  });
});

it('summarises an event from its deliveries', () => {
  expect(eventStatus([])).toBe('delivered');
  expect(eventStatus(['delivered', 'pending'])).toBe('pending');
  expect(eventStatus(['delivered', 'failed'])).toBe('failed');
});
