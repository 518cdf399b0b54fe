import type { Pool } from 'pg';
import { decisionOf, type RateDecision } from '../../domain/rate-limit.js';
import type { CredentialRow } from '../credentials-repo.js';
import type { RateLimits } from '../rate-limits-repo.js';
import type { Begun } from '../idempotency-repo.js';
import { CREDENTIAL } from '../sql/credentials-repo.js';
import type { AnswerRow } from '../sql/idempotency-repo.js';
import { CLAIM_TAKEN, claimCtes, newHolder, type PgClaims } from './idempotency-repo.js';

// The token bucket of domain/rate-limit.ts, computed by PostgreSQL in one atomic statement on a
// row every instance shares: refill since the last take (capacity `limit`, limit/60 000 tokens a
// ms), then spend one token if there is one. The row lock the UPDATE takes serialises takes of
// one credential across instances, so the budget is exact: no instance spends tokens another
// already spent. `greatest` keeps a clock slightly behind another instance's from refilling twice.
// `limit` is an SQL expression, `now` a placeholder; `rows` yields the credential key and limit.
function takeSql(limit: string, now: string, rows: string): string {
  const refilled = `least(${limit}, b.tokens + greatest(0, ${now} - b.updated_ms) * ${limit} / 60000)`;
  return `
  INSERT INTO rate_buckets AS b (credential_key, tokens, updated_ms, allowed)
  ${rows}
  ON CONFLICT (credential_key) DO UPDATE SET
    allowed = ${refilled} >= 1,
    tokens = ${refilled} - CASE WHEN ${refilled} >= 1 THEN 1 ELSE 0 END,
    updated_ms = greatest(b.updated_ms, ${now})
  RETURNING tokens, allowed`;
}

const TAKE = takeSql(
  '$2::double precision',
  '$3',
  'VALUES ($1, $2::double precision - CASE WHEN $2 >= 1 THEN 1 ELSE 0 END, $3, $2 >= 1)',
);

// The credential's row as committed now (`cr`) and, if it is not revoked, a take from its bucket
// at the row's own limit (`t`): the per-request credential check and rate take in one round trip.
// `$1` is the key; `now` the placeholder of the time.
const admitCtes = (now: string) => `
  WITH cr AS (SELECT ${CREDENTIAL} FROM credentials WHERE key = $1),
  t AS (${takeSql(
    '(SELECT rate_limit FROM cr)::double precision',
    now,
    `SELECT key, rate_limit::double precision - CASE WHEN rate_limit >= 1 THEN 1 ELSE 0 END, ${now}, rate_limit >= 1
       FROM cr WHERE revoked_at IS NULL`,
  )})`;

const ADMIT = `${admitCtes('$2')}
  SELECT cr.*, t.tokens, t.allowed FROM cr LEFT JOIN t ON true`;

// The same with the claim of the request's Idempotency-Key (PgClaims's CTEs, `$1`–`$6`), taken
// only by a request the take allowed: a partner write's admit, rate take and claim in one round trip.
const ADMIT_CLAIM = `${admitCtes('$5')},
  ${claimCtes('EXISTS (SELECT 1 FROM t WHERE t.allowed)')}
  SELECT cr.*, t.tokens, t.allowed, a.*, ${CLAIM_TAKEN} FROM cr LEFT JOIN t ON true LEFT JOIN a ON true`;

/** What `admit` found: the row now, the take (none if revoked or absent), the claim (if taken). */
export interface Admission {
  row: CredentialRow | undefined;
  rate: RateDecision | undefined;
  begun?: Begun;
}

type AdmitRow = CredentialRow & AnswerRow & { tokens: number | null; allowed: boolean | null; taken: number };

export class PgRateLimits implements RateLimits {
  constructor(
    /** The Idempotency-Key claims `admit` may take in its statement. */
    private readonly claims: PgClaims,
    /** The credential check and takes: the pipe (PgPipe), whose commits do not wait for the disk. */
    private readonly pool: Pool,
    /** What an operator's 2xx stands on (the bucket reset after a new limit): a pooled connection. */
    private readonly durable: Pool = pool,
  ) {}

  async take(key: string, limit: number, now: number): Promise<RateDecision> {
    const { rows } = await this.pool.query<{ tokens: number; allowed: boolean }>({
      name: 'rate-take',
      text: TAKE,
      values: [key, limit, now],
    });
    const { tokens, allowed } = rows[0]!;
    return decisionOf(tokens, allowed, limit);
  }

  /**
   * Reads the credential's row and takes from its bucket (and claims `idemKey` when the take
   * allowed the request) in one statement. Only for credentials verified before
   * (SharedCredentialAuth): a guess at a key's secret cannot spend the key's budget.
   */
  async admit(key: string, now: number, idemKey?: string): Promise<Admission> {
    const holder = idemKey === undefined ? undefined : newHolder();
    const { rows } = await this.pool.query<AdmitRow>(
      holder === undefined
        ? { name: 'rate-admit', text: ADMIT, values: [key, now] }
        : {
            name: 'rate-admit-claim',
            text: ADMIT_CLAIM,
            values: this.claims.values(key, idemKey!, holder, now),
          },
    );
    const r = rows[0];
    if (!r) return { row: undefined, rate: undefined };
    // The row carries the take's (and the claim's) columns too; only the credential's are read from `row`.
    if (r.tokens === null || r.allowed === null) return { row: r, rate: undefined };
    const rate = decisionOf(r.tokens, r.allowed, r.rate_limit);
    if (holder === undefined || !r.allowed) return { row: r, rate };
    return { row: r, rate, begun: await this.claims.settle(key, idemKey!, holder, r, now) };
  }

  async reset(key: string): Promise<void> {
    await this.durable.query('DELETE FROM rate_buckets WHERE credential_key = $1', [key]);
  }
}
