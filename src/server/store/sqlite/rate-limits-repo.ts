import { type Bucket, type RateDecision, take } from '../../domain/rate-limit.js';
import type { RateLimits } from '../rate-limits-repo.js';

/** In-memory token buckets: one process owns the SQLite file and so all of its credentials. */
export class MemoryRateLimits implements RateLimits {
  private readonly buckets = new Map<string, Bucket>();

  take(key: string, limit: number, now: number): RateDecision {
    const { bucket, decision } = take(this.buckets.get(key), limit, now);
    this.buckets.set(key, bucket);
    return decision;
  }

  async reset(key: string): Promise<void> {
    this.buckets.delete(key);
  }
}
