import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { IDEMPOTENCY_TTL_MS, isFresh, type StoredResponse } from '../../domain/idempotency.js';
import type { Begun, IdempotencyAnswers, IdempotencyClaims } from '../idempotency-repo.js';
import type { PgTx } from './tx.js';

interface Row {
  fingerprint: string;
  status: number;
  is_error: boolean;
  payload: string;
  created_ms: number;
}

const SELECT =
  'SELECT fingerprint, status, is_error, payload, created_ms FROM idempotency_keys WHERE credential_key = $1 AND idem_key = $2';

const answerOf = (r: Row | undefined): StoredResponse | undefined =>
  r && {
    fingerprint: r.fingerprint,
    status: r.status,
    isError: r.is_error,
    payload: r.payload,
    createdAt: r.created_ms,
  };

/**
 * How long a claim holds without its holder giving it back. A request ends within the server's
 * request timeout (30 s by default), so a live holder has always released its claim by then; a
 * claim older than this belongs to an instance that died, and the next request takes it over.
 */
export const CLAIM_LEASE_MS = 60_000;

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
    const found = await this.pool.query<Row>({
      name: 'idem-answer',
      text: SELECT,
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
        text: 'DELETE FROM idempotency_claims WHERE credential_key = $1 AND idem_key = $2 AND holder = $3',
        values: [credentialKey, key, holder],
      })
      .catch(() => undefined);
  }
}

export class PgIdempotencyAnswers implements IdempotencyAnswers {
  constructor(private readonly tx: PgTx) {}

  async get(credentialKey: string, key: string): Promise<StoredResponse | undefined> {
    return answerOf(await this.tx.row<Row>(SELECT, [credentialKey, key]));
  }

  async put(credentialKey: string, key: string, s: StoredResponse): Promise<void> {
    // Replaces only an answer past the window. A fresh one means another execution of the same
    // key committed first (its claim lapsed while it ran): this unit must not commit a second
    // execution, so it fails whole. A concurrent one waits on the key's index entry until the
    // other commits, then lands here too.
    const stored = await this.tx.exec(
      `INSERT INTO idempotency_keys AS k (credential_key, idem_key, fingerprint, status, is_error, payload, created_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (credential_key, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
         is_error = excluded.is_error, payload = excluded.payload, created_ms = excluded.created_ms
       WHERE k.created_ms <= $8`,
      [
        credentialKey,
        key,
        s.fingerprint,
        s.status,
        s.isError,
        s.payload,
        s.createdAt,
        s.createdAt - IDEMPOTENCY_TTL_MS,
      ],
    );
    if (stored === 0)
      throw new Error(`Idempotency-Key ${JSON.stringify(key)} was answered by another execution meanwhile`);
  }

  async purge(now: number): Promise<number> {
    const dropped = await this.tx.exec('DELETE FROM idempotency_keys WHERE created_ms <= $1', [
      now - IDEMPOTENCY_TTL_MS,
    ]);
    // Claims whose holder died and whose key nobody asked for again.
    await this.tx.exec('DELETE FROM idempotency_claims WHERE lease_until_ms < $1', [now]);
    return dropped;
  }
}
