// Token bucket per credential: capacity = limit per minute, refilled at limit/60 tokens a second.

export interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again (`RateLimit-Reset`). */
  reset: number;
  /** Seconds until one token is available (`Retry-After`), 0 when allowed. */
  retryAfter: number;
}

export function take(
  bucket: Bucket | undefined,
  limit: number,
  now: number,
): { bucket: Bucket; decision: RateDecision } {
  const perMs = limit / 60_000;
  const elapsed = bucket ? Math.max(0, now - bucket.updatedAt) : 0;
  const start = bucket ? Math.min(limit, bucket.tokens + elapsed * perMs) : limit;
  const allowed = start >= 1;
  const tokens = allowed ? start - 1 : start;
  return { bucket: { tokens, updatedAt: now }, decision: decisionOf(tokens, allowed, limit) };
}

/**
 * The figures of a take, given the tokens it left and whether it was allowed: a shared store
 * computes the bucket itself (store/postgres/rate-limits-repo.ts) and answers with these too.
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
