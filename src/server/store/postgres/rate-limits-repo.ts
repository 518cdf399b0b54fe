import type { Pool } from 'pg';
import type { RateDecision } from '../../domain/rate-limit.js';
import type { RateLimits } from '../rate-limits-repo.js';

// The token bucket of domain/rate-limit.ts, computed by PostgreSQL in one atomic statement on a
// row every instance shares: refill since the last take (capacity `limit`, limit/60 000 tokens a
// ms), then spend one token if there is one. The row lock the UPDATE takes serialises takes of
// one credential across instances, so the budget is exact: no instance spends tokens another
// already spent. `greatest` keeps a clock slightly behind another instance's from refilling twice.
const TAKE = `
  INSERT INTO rate_buckets AS b (credential_key, tokens, updated_ms, allowed)
  VALUES ($1, $2::double precision - CASE WHEN $2 >= 1 THEN 1 ELSE 0 END, $3, $2 >= 1)
  ON CONFLICT (credential_key) DO UPDATE SET
    allowed = least($2::double precision, b.tokens + greatest(0, $3 - b.updated_ms) * $2::double precision / 60000) >= 1,
    tokens = least($2::double precision, b.tokens + greatest(0, $3 - b.updated_ms) * $2::double precision / 60000)
      - CASE WHEN least($2::double precision, b.tokens + greatest(0, $3 - b.updated_ms) * $2::double precision / 60000) >= 1 THEN 1 ELSE 0 END,
    updated_ms = greatest(b.updated_ms, $3)
  RETURNING tokens, allowed`;

export class PgRateLimits implements RateLimits {
  constructor(private readonly pool: Pool) {}

  async take(key: string, limit: number, now: number): Promise<RateDecision> {
    const { rows } = await this.pool.query<{ tokens: number; allowed: boolean }>({
      name: 'rate-take',
      text: TAKE,
      values: [key, limit, now],
    });
    const { tokens, allowed } = rows[0]!;
    // The same figures domain/rate-limit.ts gives a single process.
    const perMs = limit / 60_000;
    return {
      allowed,
      limit,
      remaining: Math.max(0, Math.floor(tokens)),
      reset: Math.ceil((limit - tokens) / perMs / 1000),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)),
    };
  }

  async reset(key: string): Promise<void> {
    await this.pool.query('DELETE FROM rate_buckets WHERE credential_key = $1', [key]);
  }
}
