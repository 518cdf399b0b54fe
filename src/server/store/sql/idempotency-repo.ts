// Stored Idempotency-Key answers; each backend's claims read them too (ANSWER, answerOf).
import { IDEMPOTENCY_TTL_MS, type StoredResponse } from '../../domain/idempotency.js';
import { ordersTextOf } from '../../domain/events.js';
import { q, type Sql } from './query.js';

export interface AnswerRow {
  fingerprint: string;
  status: number;
  is_error: boolean | number;
  /** Null when the answer is kept as a reference to its event (event_seq). */
  payload: string | null;
  created_ms: number;
  event_seq: number | null;
  /** The referred event's payload and id, when the answer is kept as a reference. */
  event_payload: string | null;
  event_id: string | null;
}

// An answer kept by reference reads its bytes back from the event it names, in the same
// statement: on a shared store, whichever instance answers, the replay is the bytes of the
// shared event row (outbox rows are never deleted, and outlive the 24 h an answer is kept).
export const ANSWER = q(`SELECT k.fingerprint, k.status, k.is_error, k.payload, k.created_ms, k.event_seq,
    e.payload AS event_payload, e.id AS event_id
  FROM idempotency_keys k LEFT JOIN outbox_events e ON e.seq = k.event_seq
  WHERE k.credential_key = ? AND k.idem_key = ?`);

export function answerOf(r: AnswerRow | undefined): StoredResponse | undefined {
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
    isError: Boolean(r.is_error),
    payload,
    createdAt: r.created_ms,
    ...(r.event_id === null ? {} : { event: r.event_id }),
  };
}

const A = {
  // Replaces only an answer past the window. A fresh one means another execution of the same key
  // committed first (on a shared store, its claim lapsed while it ran): this unit must not commit
  // a second execution, so it fails whole. A concurrent one waits on the key's index entry until
  // the other commits, then lands here too. By reference (event_seq, no payload) only when the
  // bytes really are the named event's one order as this very unit wrote it (Sql.unitEvents):
  // a replay can never differ from the first answer.
  put: q(
    (
      d,
    ) => `INSERT INTO idempotency_keys AS k (credential_key, idem_key, fingerprint, status, is_error, payload, created_ms, event_seq)
     VALUES (?, ?, ?, ?, CAST(? AS BOOLEAN), ${d.jsonParam}, ?, ?)
     ON CONFLICT (credential_key, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
       is_error = excluded.is_error, payload = excluded.payload, created_ms = excluded.created_ms,
       event_seq = excluded.event_seq
     WHERE k.created_ms <= ?`,
    { quiet: true },
  ),
  purge: q('DELETE FROM idempotency_keys WHERE created_ms <= ?'),
};

export class SqlIdempotencyAnswers {
  constructor(private readonly db: Sql) {}

  /**
   * The answer stored for the key. On PostgreSQL's one-statement path (Sql.optimistic) nothing
   * is looked at: the unit that looks once more before running its request (app.ts) ends with
   * the key's `put`, which goes out in the same statement as every write of the request and
   * refuses to overwrite a fresh answer, so an answer stored meanwhile makes nothing of it
   * commit, and the unit runs again on the full path, where this look is real.
   */
  async get(credentialKey: string, key: string): Promise<StoredResponse | undefined> {
    if (this.db.optimistic) return undefined;
    return answerOf(await this.db.get<AnswerRow>(ANSWER, [credentialKey, key]));
  }

  /** Call inside the unit of work that made the change, so both commit or neither does. */
  async put(credentialKey: string, key: string, s: StoredResponse): Promise<void> {
    const ev = s.event === undefined ? undefined : this.db.unitEvents?.get(s.event);
    const byRef = ev?.payload.endsWith(`"orders":[${s.payload}]}`) === true;
    const stored = await this.db.run(A.put, [
      credentialKey,
      key,
      s.fingerprint,
      s.status,
      s.isError ? 1 : 0,
      byRef ? null : s.payload,
      s.createdAt,
      byRef ? ev.seq : null,
      s.createdAt - IDEMPOTENCY_TTL_MS,
    ]);
    if (stored === 0)
      throw new Error(`Idempotency-Key ${JSON.stringify(key)} was answered by another execution meanwhile`);
    await this.db.releaseClaim?.(credentialKey, key);
  }

  /** Drops answers older than the window; returns how many. */
  async purge(now: number): Promise<number> {
    const dropped = await this.db.run(A.purge, [now - IDEMPOTENCY_TTL_MS]);
    await this.db.purgeLapsedClaims?.(now);
    return dropped;
  }
}
