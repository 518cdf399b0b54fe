import { describe, expect, it } from 'vitest';
import { type Bucket, decisionOf, take } from './rate-limit.js';

function drain(limit: number, n: number, now: number, bucket?: Bucket) {
  let b = bucket;
  const out = [];
  for (let i = 0; i < n; i++) {
    const r = take(b, limit, now);
    b = r.bucket;
    out.push(r.decision);
  }
  return { bucket: b!, decisions: out };
}

describe('token bucket', () => {
  it('allows a full bucket of requests at once, then refuses', () => {
    const { decisions } = drain(60, 61, 0);
    expect(decisions.slice(0, 60).every((d) => d.allowed)).toBe(true);
    expect(decisions[59]!.remaining).toBe(0);
    expect(decisions[60]!.allowed).toBe(false);
    expect(decisions[60]!.retryAfter).toBe(1);
  });

  it('refills at limit/60 per second', () => {
    const { bucket } = drain(60, 60, 0);
    expect(take(bucket, 60, 500).decision.allowed).toBe(false);
    expect(take(bucket, 60, 1_000).decision.allowed).toBe(true);
    const later = take(bucket, 60, 30_000).decision;
    expect(later.remaining).toBe(29);
  });

  it('reports seconds until full and Retry-After for slow limits', () => {
    const { bucket } = drain(6, 6, 0); // one token every 10 s
    const refused = take(bucket, 6, 0).decision;
    expect(refused.retryAfter).toBe(10);
    expect(refused.reset).toBe(60);
    expect(refused.limit).toBe(6);
  });

  it('never exceeds capacity after a long idle', () => {
    const { bucket } = drain(10, 1, 0);
    expect(take(bucket, 10, 10 * 60_000).decision.remaining).toBe(9);
  });

  // What a shared store answers from the tokens its statement left (postgres/rate-limits-repo.ts).
  it('tells a refused request when a whole token is back, at least a second from now', () => {
    expect(decisionOf(0.5, false, 60)).toEqual({
      allowed: false,
      limit: 60,
      remaining: 0,
      reset: 60,
      retryAfter: 1,
    });
    expect(decisionOf(0, false, 6)).toEqual({
      allowed: false,
      limit: 6,
      remaining: 0,
      reset: 60,
      retryAfter: 10,
    });
    expect(decisionOf(5.2, true, 6)).toEqual({
      allowed: true,
      limit: 6,
      remaining: 5,
      reset: 8,
      retryAfter: 0,
    });
  });
});
