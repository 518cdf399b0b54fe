import { describe, expect, it } from 'vitest';
import { decisionOf } from './rate-decision.js';
import { type Bucket, take } from './rate-limit.js';

describe('decisionOf', () => {
  it('gives the figures take() gives for the tokens it left, allowed or refused', () => {
    for (const limit of [1, 7, 60, 1_000]) {
      let bucket: Bucket | undefined;
      for (const now of [0, 0, 0, 10, 500, 501, 9_000, 60_000, 60_001, 60_002]) {
        const r = take(bucket, limit, now);
        bucket = r.bucket;
        expect(decisionOf(r.bucket.tokens, r.decision.allowed, limit)).toEqual(r.decision);
      }
    }
  });

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
