import type { RateDecision } from '../domain/rate-limit.js';

/**
 * Per-credential request budgets (token buckets, domain/rate-limit.ts). Used outside any unit of
 * work, on every authenticated request. A single-process store keeps the buckets in memory; a
 * shared store keeps them where every instance spends from the same budget.
 */
export interface RateLimits {
  /** The decision at once where the budget is at hand (in memory): no promise for a request to wait on. */
  take(credentialKey: string, limit: number, now: number): RateDecision | Promise<RateDecision>;
  /** Forgets the credential's bucket (its limit changed): the next request starts full. */
  reset(credentialKey: string): Promise<void>;
}
