import { describe, expect, it } from 'vitest';
import { Pacer, parseRateLimitHeaders } from './pacer.js';

const headers = (h: Record<string, string>) => (name: string) => h[name];

describe('parseRateLimitHeaders', () => {
  it('reads limit, remaining and reset', () => {
    expect(
      parseRateLimitHeaders(
        headers({ 'ratelimit-limit': '600', 'ratelimit-remaining': '599', 'ratelimit-reset': '1' }),
      ),
    ).toEqual({ limit: 600, remaining: 599, reset: 1 });
  });
  it('ignores absent or garbage headers', () => {
    expect(parseRateLimitHeaders(headers({}))).toBeUndefined();
    expect(
      parseRateLimitHeaders(headers({ 'ratelimit-limit': 'x', 'ratelimit-remaining': '1' })),
    ).toBeUndefined();
  });
});

describe('Pacer', () => {
  it('does not wait before it knows the limit', () => {
    expect(new Pacer().take(0)).toBe(0);
  });

  it('lets requests through while the bucket has room', () => {
    const p = new Pacer(1);
    p.observe({ limit: 60, remaining: 10 }, 0);
    for (let i = 0; i < 9; i++) expect(p.take(0)).toBe(0);
    // 10 − 9 = 1 token left, below the reserve of 1 + 1: wait for one token (60/min = 1 per s).
    expect(p.take(0)).toBe(1000);
  });

  it('queues successive waiting requests one refill interval apart', () => {
    const p = new Pacer(0);
    p.observe({ limit: 60, remaining: 0 }, 0);
    expect(p.take(0)).toBe(1000);
    expect(p.take(0)).toBe(2000);
    expect(p.take(500)).toBe(2500);
  });

  it('refills with time', () => {
    const p = new Pacer(0);
    p.observe({ limit: 120, remaining: 0 }, 0); // 2 tokens per second
    expect(p.take(1000)).toBe(0); // 2 tokens by then
    expect(p.take(1000)).toBe(0);
    expect(p.take(1000)).toBe(500);
  });

  it('trusts a slower refill announced by RateLimit-Reset', () => {
    const p = new Pacer(0);
    // 60 tokens missing, full again in 120 s: 0.5 token per second, not 1.
    p.observe({ limit: 60, remaining: 0, reset: 120 }, 0);
    expect(p.take(0)).toBe(2000);
  });

  it('keeps a long sequence under the limit (never more than limit per minute)', () => {
    const p = new Pacer(1);
    const limit = 30;
    p.observe({ limit, remaining: limit - 1 }, 0);
    let now = 0;
    const sent: number[] = [];
    for (let i = 0; i < 100; i++) {
      now += p.take(now);
      sent.push(now);
    }
    // Any 60 s window holds at most `limit` requests beyond the initial burst (bucket semantics).
    for (let i = 0; i < sent.length; i++) {
      const inWindow = sent.filter((t) => t >= sent[i]! && t < sent[i]! + 60_000).length;
      expect(inWindow).toBeLessThanOrEqual(limit * 2);
    }
    // Steady state: one request per refill interval (2 s for 30/min).
    expect(sent.at(-1)! - sent.at(-2)!).toBe(2000);
  });

  it('the retry that waited out Retry-After is not paced again (no second window)', () => {
    const p = new Pacer(1);
    // 3 per minute, empty; the server said Retry-After 20 s (one token by then).
    p.observe({ limit: 3, remaining: 0, reset: 60 }, 0);
    p.exhausted(0, 20_000);
    expect(p.take(20_000, 0)).toBe(0);
    // Without the override the reserve would have held it another 20 s.
    const q = new Pacer(1);
    q.observe({ limit: 3, remaining: 0, reset: 60 }, 0);
    q.exhausted(0, 20_000);
    expect(q.take(20_000)).toBe(20_000);
  });

  it('after a 429 waits out Retry-After before the next token', () => {
    const p = new Pacer(0);
    p.observe({ limit: 60, remaining: 0 }, 0);
    p.exhausted(0, 5000);
    expect(p.take(0)).toBe(5000);
  });
});

it('counts requests still in flight when an answer reports the bucket (concurrent callers)', () => {
  const p = new Pacer(1);
  p.observe({ limit: 60, remaining: 10 }, 0);
  p.settled();
  for (let i = 0; i < 8; i++) expect(p.take(0)).toBe(0);
  // The first of the eight comes back: the server had counted only it (9 left), the other seven
  // are still on their way and will each take a token there.
  p.observe({ limit: 60, remaining: 9 }, 0);
  p.settled();
  expect(p.take(0)).toBe(0);
  expect(p.take(0)).toBeGreaterThan(0);
});
