import { IDEMPOTENCY_TTL_MS, isFresh, type StoredResponse } from '../../domain/idempotency.js';
import type { Begun, IdempotencyAnswers, IdempotencyClaims } from '../idempotency-repo.js';
import { ordersTextOf, seqOfEventId } from '../outbox-repo.js';
import type { Db } from './db.js';
import { sql } from './statements.js';
import type { SqliteTx } from './tx.js';

interface Row {
  fingerprint: string;
  status: number;
  is_error: number;
  payload: string;
  created_at: number;
  event_seq: number | null;
  /** The referred event's payload, when the answer is kept as a reference. */
  event_payload: string | null;
  event_id: string | null;
}

// An answer kept by reference reads its bytes back from the event it names (outbox rows are
// never deleted, and outlive the 24 h an answer is kept).
const SELECT = `SELECT k.fingerprint, k.status, k.is_error, k.payload, k.created_at, k.event_seq,
    e.payload AS event_payload, e.id AS event_id
  FROM idempotency_keys k LEFT JOIN outbox_events e ON e.seq = k.event_seq
  WHERE k.credential_key = ? AND k.idem_key = ?`;

function answerOf(r: Row | undefined): StoredResponse | undefined {
  if (!r) return undefined;
  let payload = r.payload;
  if (r.event_seq !== null) {
    const order = r.event_payload === null ? undefined : ordersTextOf(r.event_payload);
    // Cannot happen while outbox rows are kept; if it did, the key is treated as unused rather
    // than replaying a wrong answer.
    if (order === undefined) return undefined;
    payload = order;
  }
  return {
    fingerprint: r.fingerprint,
    status: r.status,
    isError: r.is_error === 1,
    payload,
    createdAt: r.created_at,
    ...(r.event_id === null ? {} : { event: r.event_id }),
  };
}

/**
 * One process owns the SQLite file, so its claims live in memory (a restart drops them all).
 * `begin` reads the stored answer straight from the connection, outside the unit queue: the only
 * writer of a key's answer holds its claim until that answer has been committed and sent, so an
 * answer seen for an unclaimed key is a committed one.
 */
export class MemoryClaims implements IdempotencyClaims {
  private readonly held = new Set<string>();

  constructor(private readonly db: Db) {}

  async begin(credentialKey: string, key: string, now: number): Promise<Begun> {
    const slot = `${credentialKey}\n${key}`;
    if (this.held.has(slot)) return { kind: 'in_flight' };
    const answer = answerOf(sql(this.db, SELECT).get(credentialKey, key) as Row | undefined);
    if (answer && isFresh(answer, now)) return { kind: 'stored', answer };
    this.held.add(slot);
    // Look and claim were one synchronous step: no answer can have been stored in between.
    return { kind: 'claimed', recheck: false };
  }

  async release(credentialKey: string, key: string): Promise<void> {
    this.held.delete(`${credentialKey}\n${key}`);
  }
}

export class SqliteIdempotencyAnswers implements IdempotencyAnswers {
  constructor(private readonly tx: SqliteTx) {}

  async get(credentialKey: string, key: string): Promise<StoredResponse | undefined> {
    return answerOf(this.tx.select(SELECT).get(credentialKey, key) as Row | undefined);
  }

  async put(credentialKey: string, key: string, s: StoredResponse): Promise<void> {
    // By reference only when the bytes really are the event's one order: checked here, in the
    // unit that wrote the event, so a replay can never differ from the first answer.
    let seq: number | null = null;
    if (s.event !== undefined) {
      const n = seqOfEventId(s.event);
      const payload =
        n === undefined
          ? undefined
          : (this.tx
              .select('SELECT payload FROM outbox_events WHERE seq = ? AND id = ?')
              .pluck()
              .get(n, s.event) as string | undefined);
      if (n !== undefined && payload !== undefined && ordersTextOf(payload) === s.payload) seq = n;
    }
    this.tx
      .change(
        'INSERT OR REPLACE INTO idempotency_keys (credential_key, idem_key, fingerprint, status, is_error, payload, created_at, event_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        credentialKey,
        key,
        s.fingerprint,
        s.status,
        s.isError ? 1 : 0,
        seq === null ? s.payload : '',
        s.createdAt,
        seq,
      );
  }

  async purge(now: number): Promise<number> {
    return this.tx.change('DELETE FROM idempotency_keys WHERE created_at <= ?').run(now - IDEMPOTENCY_TTL_MS)
      .changes;
  }
}
