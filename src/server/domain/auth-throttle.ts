import { type Bucket, take } from './rate-limit.js';

// Failure budgets for Basic auth: each failed verification spends a token of the key's bucket and
// of the client address's; while either is empty, requests are refused before any hashing.
// Token buckets as for the request rate (rate-limit.ts): capacity = the budget per minute.

export interface AuthThrottleLimits {
  /** Failed verifications per credential key per minute (burst = the same number). */
  failuresPerKeyPerMinute: number;
  /** Failed verifications per client address per minute, whatever keys they name. */
  failuresPerAddressPerMinute: number;
  /** Secret hashes (scrypt) running at once; more wait in a queue. */
  maxConcurrentHashes: number;
  /** Verifications waiting for a hashing slot; beyond this, 429 at once. */
  maxQueuedHashes: number;
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottleLimits = Object.freeze({
  failuresPerKeyPerMinute: 10,
  failuresPerAddressPerMinute: 30,
  maxConcurrentHashes: 2,
  maxQueuedHashes: 64,
});

/** Seconds until one more failure is allowed, or 0 when the budget has a token left. */
export function retryAfter(bucket: Bucket | undefined, perMinute: number, now: number): number {
  const { decision } = take(bucket, perMinute, now);
  return decision.allowed ? 0 : decision.retryAfter;
}

/** The bucket after one more failure. */
export function spend(bucket: Bucket | undefined, perMinute: number, now: number): Bucket {
  return take(bucket, perMinute, now).bucket;
}
