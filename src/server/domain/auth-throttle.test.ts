import { describe, expect, it } from 'vitest';
import type { Bucket } from './rate-limit.js';
import { retryAfter, spend } from './auth-throttle.js';

describe('failure budget', () => {
  it('allows the budget, then asks to wait until one token is back', () => {
    let b: Bucket | undefined;
    for (let i = 0; i < 10; i++) {
      expect(retryAfter(b, 10, 0)).toBe(0);
      b = spend(b, 10, 0);
    }
    // 10 a minute: one token every 6 s.
    expect(retryAfter(b, 10, 0)).toBe(6);
    expect(retryAfter(b, 10, 5_999)).toBe(1);
    expect(retryAfter(b, 10, 6_000)).toBe(0);
  });

  it('checking spends nothing', () => {
    const b = spend(undefined, 2, 0);
    for (let i = 0; i < 5; i++) expect(retryAfter(b, 2, 0)).toBe(0);
    expect(retryAfter(spend(b, 2, 0), 2, 0)).toBeGreaterThan(0);
  });
});
