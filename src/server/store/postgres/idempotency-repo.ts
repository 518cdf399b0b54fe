import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { isFresh } from '../../domain/idempotency.js';
import type { Begun, IdempotencyClaims } from '../idempotency-repo.js';
import { ANSWER, type AnswerRow, answerOf } from '../sql/idempotency-repo.js';
import { q, type Sql } from '../sql/query.js';
import type { PgTx } from './tx.js';

/**
 * How long a claim holds without its holder giving it back. A request ends within the server's
 * request timeout (30 s by default), so a live holder has always released its claim by then; a
 * claim older than this belongs to an instance that died, and the next request takes it over.
 */
export const CLAIM_LEASE_MS = 60_000;

const RELEASE = 'DELETE FROM idempotency_claims WHERE credential_key = $1 AND idem_key = $2 AND holder = $3';

/**
 * Claims as rows every instance sees. `begin` looks for a stored answer, then inserts the claim
 * (`ON CONFLICT DO NOTHING` unless the existing claim's lease has run out). The two are separate
 * statements, so an answer committed in between is caught by the request's unit (`recheck`).
 * Even a claim taken over from a holder that is in fact still running cannot execute twice: its
 * answer is stored with the change, and `put` refuses to overwrite a fresh answer (see below).
 */
export class PgClaims implements IdempotencyClaims {
  /** This instance's claims: release deletes only the claim it took, never a successor's. */
  private readonly mine = new Map<string, string>();

  constructor(private readonly pool: Pool) {}

  async begin(credentialKey: string, key: string, now: number): Promise<Begun> {
    const found = await this.pool.query<AnswerRow>({
      name: 'idem-answer',
      text: ANSWER.postgres,
      values: [credentialKey, key],
    });
    const answer = answerOf(found.rows[0]);
    if (answer && isFresh(answer, now)) return { kind: 'stored', answer };
    const holder = randomBytes(9).toString('base64url');
    const taken = await this.pool.query({
      name: 'idem-claim',
      text: `INSERT INTO idempotency_claims AS c (credential_key, idem_key, holder, lease_until_ms) VALUES ($1, $2, $3, $4)
             ON CONFLICT (credential_key, idem_key) DO UPDATE SET holder = excluded.holder, lease_until_ms = excluded.lease_until_ms
             WHERE c.lease_until_ms < $5`,
      values: [credentialKey, key, holder, now + CLAIM_LEASE_MS, now],
    });
    if (taken.rowCount === 0) return { kind: 'in_flight' };
    this.mine.set(`${credentialKey}\n${key}`, holder);
    return { kind: 'claimed', recheck: true };
  }

  /**
   * Gives this instance's claim on the key back inside `tx`, the unit that stores the key's
   * answer: the answer and the claim's end commit together (no round trip of its own after the
   * answer), and the request's own release afterwards finds nothing left to do. Any row count:
   * a claim that lapsed and was taken over is the successor's, and stays.
   */
  async releaseIn(tx: PgTx, credentialKey: string, key: string): Promise<void> {
    const slot = `${credentialKey}\n${key}`;
    const holder = this.mine.get(slot);
    if (holder === undefined) return;
    await tx.execAny(RELEASE, [credentialKey, key, holder]);
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

const LAPSED = q('DELETE FROM idempotency_claims WHERE lease_until_ms < ?');

/** After the answers' purge: claims whose holder died and whose key nobody asked for again. */
export async function purgeLapsedClaims(db: Sql, now: number): Promise<void> {
  await db.run(LAPSED, [now]);
}
