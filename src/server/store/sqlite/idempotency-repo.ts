import { isFresh } from '../../domain/idempotency.js';
import type { Begun, IdempotencyClaims } from '../idempotency-repo.js';
import { ANSWER, type AnswerRow, answerOf } from '../sql/idempotency-repo.js';
import { type Db, prepared } from './db.js';

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
    const answer = answerOf(prepared(this.db, ANSWER).get(credentialKey, key) as AnswerRow | undefined);
    if (answer && isFresh(answer, now)) return { kind: 'stored', answer };
    this.held.add(slot);
    // Look and claim were one synchronous step: no answer can have been stored in between.
    return { kind: 'claimed', recheck: false };
  }

  async release(credentialKey: string, key: string): Promise<void> {
    this.held.delete(`${credentialKey}\n${key}`);
  }
}
