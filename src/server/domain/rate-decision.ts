import type { RateDecision } from './rate-limit.js';

/**
 * The figures of a take from a token bucket (rate-limit.ts), given the tokens it left and whether
 * it was allowed: a shared store computes the bucket itself (store/postgres/rate-limits-repo.ts)
 * and answers with what `take` gives a single process.
 */
export function decisionOf(tokens: number, allowed: boolean, limit: number): RateDecision {
  const perMs = limit / 60_000;
  return {
    allowed,
    limit,
    remaining: Math.max(0, Math.floor(tokens)),
    reset: Math.ceil((limit - tokens) / perMs / 1000),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)),
  };
}
