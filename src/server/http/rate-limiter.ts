import { type Bucket, type RateDecision, take } from '../domain/rate-limit.js';

/** In-memory token buckets keyed by credential key (one server process owns its credentials). */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  take(key: string, limit: number, now: number): RateDecision {
    const { bucket, decision } = take(this.buckets.get(key), limit, now);
    this.buckets.set(key, bucket);
    return decision;
  }

  reset(key: string): void {
    this.buckets.delete(key);
  }
}
