import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { IDEMPOTENCY_TTL_MS, isFresh, type StoredResponse } from '../../domain/idempotency.js';
import type { Begun, IdempotencyAnswers, IdempotencyClaims } from '../idempotency-repo.js';
import { ordersTextOf, seqOfEventId } from '../outbox-repo.js';
import type { PgTx } from './tx.js';

interface Row {
  fingerprint: string;
  status: number;
  is_error: boolean;
  /** Null when the answer is kept as a reference to its event (event_seq). */
  payload: string | null;
  created_ms: number;
  event_seq: number | null;
  /** The referred event's payload and id, when the answer is kept as a reference. */
  event_payload: string | null;
  event_id: string | null;
}

// An answer kept by reference reads its bytes back from the event it names, in the same
// statement: whichever instance answers, the replay is the bytes of the shared event row
// (outbox rows are never deleted, and outlive the 24 h an answer is kept).
const SELECT = `SELECT k.fingerprint, k.status, k.is_error, k.payload, k.created_ms, k.event_seq,
    e.payload AS event_payload, e.id AS event_id
  FROM idempotency_keys k LEFT JOIN outbox_events e ON e.seq = k.event_seq
  WHERE k.credential_key = $1 AND k.idem_key = $2`;

function answerOf(r: Row | undefined): StoredResponse | undefined {
  if (!r) return undefined;
  let payload = r.payload;
  if (r.event_seq !== null) {
    // Cannot fail while outbox rows are kept; if it did, the key is treated as unused rather
    // than replaying a wrong answer.
    payload = r.event_payload === null ? null : (ordersTextOf(r.event_payload) ?? null);
  }
  if (payload === null) return undefined;
  return {
    fingerprint: r.fingerprint,
    status: r.status,
    isError: r.is_error,
    payload,
    createdAt: r.created_ms,
    ...(r.event_id === null ? {} : { event: r.event_id }),
  };
}

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
    // By reference (event_seq, no payload) only when the bytes really are the named event's one
    // order, as eventPayload wrote it: checked here, in the unit that wrote the event and in the
    // same statement, so a replay can never differ from the first answer.
    const seq = s.event === undefined ? undefined : seqOfEventId(s.event);
    const stored = await this.tx.exec(
      `WITH ev AS (
         SELECT seq FROM outbox_events
         WHERE seq = $9 AND id = $10 AND right(payload::text, length($6::text) + 12) = '"orders":[' || $6::text || ']}'
       )
       INSERT INTO idempotency_keys AS k (credential_key, idem_key, fingerprint, status, is_error, payload, created_ms, event_seq)
       SELECT $1, $2, $3, $4, $5, CASE WHEN ev.seq IS NULL THEN $6::text::json END, $7, ev.seq
       FROM (SELECT 1) AS one LEFT JOIN ev ON true
       ON CONFLICT (credential_key, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
         is_error = excluded.is_error, payload = excluded.payload, created_ms = excluded.created_ms,
         event_seq = excluded.event_seq
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
        seq ?? null,
        s.event ?? null,
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
