import { IDEMPOTENCY_TTL_MS, isFresh, type StoredResponse } from '../../domain/idempotency.js';
import type { Begun, IdempotencyAnswers, IdempotencyClaims } from '../idempotency-repo.js';
import type { Db } from './db.js';
import { sql } from './statements.js';
import type { SqliteTx } from './tx.js';

interface Row {
  fingerprint: string;
  status: number;
  is_error: number;
  payload: string;
  created_at: number;
}

const SELECT =
  'SELECT fingerprint, status, is_error, payload, created_at FROM idempotency_keys WHERE credential_key = ? AND idem_key = ?';

const answerOf = (r: Row | undefined): StoredResponse | undefined =>
  r && {
    fingerprint: r.fingerprint,
    status: r.status,
    isError: r.is_error === 1,
    payload: r.payload,
    createdAt: r.created_at,
  };

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
    this.tx
      .change(
        'INSERT OR REPLACE INTO idempotency_keys (credential_key, idem_key, fingerprint, status, is_error, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(credentialKey, key, s.fingerprint, s.status, s.isError ? 1 : 0, s.payload, s.createdAt);
  }

  async purge(now: number): Promise<number> {
    return this.tx.change('DELETE FROM idempotency_keys WHERE created_at <= ?').run(now - IDEMPOTENCY_TTL_MS)
      .changes;
  }
}
