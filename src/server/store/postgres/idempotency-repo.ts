import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { IDEMPOTENCY_TTL_MS, isFresh } from '../../domain/idempotency.js';
import type { Begun, IdempotencyClaims } from '../idempotency-repo.js';
import { ANSWER, type AnswerRow, answerOf } from '../sql/idempotency-repo.js';
import type { PgTx } from './tx.js';

/**
 * How long a claim holds without its holder giving it back: a request ends within the request
 * timeout (30 s by default), so an older claim is a dead instance's, and the next request takes it.
 */
const CLAIM_LEASE_MS = 60_000;

export const newHolder = () => randomBytes(9).toString('base64url');

const RELEASE = 'DELETE FROM idempotency_claims WHERE credential_key = $1 AND idem_key = $2 AND holder = $3';
/** Inserts a claim, or takes it over from a holder whose lease ran out before `$5` (now). */
const CLAIM = (values: string) => `
    INSERT INTO idempotency_claims AS c (credential_key, idem_key, holder, lease_until_ms) ${values}
    ON CONFLICT (credential_key, idem_key) DO UPDATE SET holder = excluded.holder, lease_until_ms = excluded.lease_until_ms
    WHERE c.lease_until_ms < $5`;

/**
 * The look for a fresh stored answer and, only when there is none and `when` holds, the take of
 * the claim, as CTEs `a` and `cl` of one statement (`$1`–`$6`: PgClaims.values). PgRateLimits.admit
 * puts them in its own statement.
 */
export const claimCtes = (when: string) => `a AS (${ANSWER.postgres} AND k.created_ms > $6),
  cl AS (${CLAIM(`SELECT $1, $2, $3::text, $4::bigint WHERE NOT EXISTS (SELECT 1 FROM a) AND ${when}`)} RETURNING 1)`;
/** What the claim's CTEs add to a statement's row (with `a.*` for the answer). */
export const CLAIM_TAKEN = '(SELECT count(*) FROM cl)::int AS taken';

const BEGIN = `WITH ${claimCtes('true')}
  SELECT a.*, ${CLAIM_TAKEN} FROM (SELECT 1) AS one LEFT JOIN a ON true`;
const TAKE = CLAIM('VALUES ($1, $2, $3, $4)');

/**
 * Claims as rows every instance sees; `begin` looks for an answer and claims in one statement. An
 * answer committed after its snapshot is caught by the request's unit (`recheck`, or on the
 * one-statement path the answer's own write). Even a claim taken over from a holder still running
 * cannot execute twice: the answer is stored with the change, and `put` refuses to overwrite a
 * fresh one.
 */
export class PgClaims implements IdempotencyClaims {
  /** This instance's claims: release deletes only the claim it took, never a successor's. */
  private readonly mine = new Map<string, string>();

  constructor(private readonly pool: Pool) {}

  async begin(credentialKey: string, key: string, now: number): Promise<Begun> {
    const holder = newHolder();
    const { rows } = await this.pool.query<AnswerRow & { taken: number }>({
      name: 'idem-begin',
      text: BEGIN,
      values: this.values(credentialKey, key, holder, now),
    });
    return this.settle(credentialKey, key, holder, rows[0]!, now);
  }

  /** The values `$1`–`$6` of the claim's CTEs (claimCtes). */
  values(credentialKey: string, key: string, holder: string, now: number): unknown[] {
    return [credentialKey, key, holder, now + CLAIM_LEASE_MS, now, now - IDEMPOTENCY_TTL_MS];
  }

  /** What the claim's CTEs found (`taken` and the answer's columns), as `begin` answers it. */
  async settle(
    credentialKey: string,
    key: string,
    holder: string,
    { taken, ...found }: AnswerRow & { taken: number },
    now: number,
  ): Promise<Begun> {
    if (taken === 1) {
      this.mine.set(`${credentialKey}\n${key}`, holder);
      return { kind: 'claimed', recheck: true };
    }
    const answer = answerOf(found.fingerprint === null ? undefined : found);
    if (answer && isFresh(answer, now)) return { kind: 'stored', answer };
    if (found.fingerprint === null) return { kind: 'in_flight' };
    // A fresh row whose answer cannot be read back (its event gone): the key counts as unused.
    return this.take(credentialKey, key, now);
  }

  private async take(credentialKey: string, key: string, now: number): Promise<Begun> {
    const holder = newHolder();
    const taken = await this.pool.query({
      name: 'idem-claim',
      text: TAKE,
      values: [credentialKey, key, holder, now + CLAIM_LEASE_MS, now],
    });
    if (taken.rowCount === 0) return { kind: 'in_flight' };
    this.mine.set(`${credentialKey}\n${key}`, holder);
    return { kind: 'claimed', recheck: true };
  }

  /**
   * Gives this instance's claim back inside `tx`, the unit that stores the key's answer: both
   * commit together, with no round trip of their own. Any row count: a lapsed claim taken over is
   * the successor's, and stays.
   */
  async releaseIn(tx: PgTx, credentialKey: string, key: string): Promise<void> {
    const slot = `${credentialKey}\n${key}`;
    const holder = this.mine.get(slot);
    if (holder === undefined) return;
    await tx.exec(RELEASE, [credentialKey, key, holder], /* quiet */ true, /* exact */ false);
    tx.afterCommit.push(() => {
      if (this.mine.get(slot) === holder) this.mine.delete(slot);
    });
  }

  async release(credentialKey: string, key: string): Promise<void> {
    const slot = `${credentialKey}\n${key}`;
    const holder = this.mine.get(slot);
    if (holder === undefined) return;
    this.mine.delete(slot);
    // Called without waiting (the answer is already out). If it fails (the database went away,
    // the store closed meanwhile), the claim lapses with its lease: nothing to do but not throw.
    await this.pool
      .query({
        name: 'idem-release',
        text: RELEASE,
        values: [credentialKey, key, holder],
      })
      .catch(() => undefined);
  }
}
