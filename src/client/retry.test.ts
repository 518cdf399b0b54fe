import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY, parseRetryAfter, retryDelay } from './retry.js';

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3', 0)).toBe(3000);
    expect(parseRetryAfter('0.5', 0)).toBe(500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:07 GMT', now)).toBe(7000);
  });
  it('is undefined when absent or unreadable', () => {
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });
});

describe('retryDelay', () => {
  it('retries only 429 and 502', () => {
    expect(retryDelay(1, 500, undefined, DEFAULT_RETRY)).toBeUndefined();
    expect(retryDelay(1, 503, undefined, DEFAULT_RETRY)).toBeUndefined();
    expect(retryDelay(1, 404, undefined, DEFAULT_RETRY)).toBeUndefined();
    expect(retryDelay(1, 502, undefined, DEFAULT_RETRY)).toBeGreaterThan(0);
    expect(retryDelay(1, 429, 2000, DEFAULT_RETRY)).toBe(2000);
  });
  it('honours Retry-After but not beyond the bound', () => {
    expect(retryDelay(1, 429, DEFAULT_RETRY.maxRetryAfterMs + 1, DEFAULT_RETRY)).toBeUndefined();
  });
  it('stops after maxRetries', () => {
    expect(retryDelay(DEFAULT_RETRY.maxRetries, 502, undefined, DEFAULT_RETRY)).toBeDefined();
    expect(retryDelay(DEFAULT_RETRY.maxRetries + 1, 502, undefined, DEFAULT_RETRY)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('grows exponentially within [ceiling/2, ceiling] and is capped', () => {
    const p = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(1, p, () => 0)).toBe(50);
    expect(backoffDelay(1, p, () => 1)).toBe(100);
    expect(backoffDelay(3, p, () => 1)).toBe(400);
    expect(backoffDelay(10, p, () => 1)).toBe(1000);
    expect(backoffDelay(10, p, () => 0)).toBe(500);
  });
});
