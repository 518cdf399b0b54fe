import { IDEMPOTENCY_TTL_MS, type StoredResponse } from '../domain/idempotency.js';
import type { Db } from '../store/db.js';
import { sql } from './prepared.js';

interface Row {
  fingerprint: string;
  status: number;
  is_error: number;
  payload: string;
  created_at: number;
}

/** Stored responses per (credential, Idempotency-Key), kept 24 h. */
export class IdempotencyStore {
  constructor(private readonly db: Db) {}

  get(credentialKey: string, key: string): StoredResponse | undefined {
    const r = sql(
      this.db,
      'SELECT fingerprint, status, is_error, payload, created_at FROM idempotency_keys WHERE credential_key = ? AND idem_key = ?',
    ).get(credentialKey, key) as Row | undefined;
    return (
      r && {
        fingerprint: r.fingerprint,
        status: r.status,
        isError: r.is_error === 1,
        payload: r.payload,
        createdAt: r.created_at,
      }
    );
  }

  put(credentialKey: string, key: string, s: StoredResponse): void {
    sql(
      this.db,
      'INSERT OR REPLACE INTO idempotency_keys (credential_key, idem_key, fingerprint, status, is_error, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(credentialKey, key, s.fingerprint, s.status, s.isError ? 1 : 0, s.payload, s.createdAt);
  }

  purge(now: number): number {
    return sql(this.db, 'DELETE FROM idempotency_keys WHERE created_at <= ?').run(now - IDEMPOTENCY_TTL_MS)
      .changes;
  }
}
