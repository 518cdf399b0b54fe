import type { StoredResponse } from '../domain/idempotency.js';

/** What a write request finds when it starts (see IdempotencyClaims.begin). */
export type Begun =
  | { kind: 'stored'; answer: StoredResponse }
  /** `recheck`: an answer may have been stored since the look (a shared store): the unit looks again. */
  | { kind: 'claimed'; recheck: boolean }
  | { kind: 'in_flight' };

/**
 * Claims on (credential, Idempotency-Key): one execution at a time per key. They live outside any
 * unit of work (a claim must be visible before the request's unit starts, and to every instance
 * sharing the store); the stored answer is written inside the unit that made the change
 * (`Tx.idempotency.put`), so "answered" and "done" commit together.
 */
export interface IdempotencyClaims {
  /**
   * A committed answer still within the window → `stored` (a replay or a conflict; replays need no
   * claim). Otherwise the key is claimed for this request → `claimed`, unless another request
   * holds it → `in_flight`. A shared store's claim is a row with a lease from `now`, so a crashed
   * holder's claim lapses.
   */
  begin(credentialKey: string, key: string, now: number): Promise<Begun>;
  /** Gives the claim back once the request has ended, answered or not. */
  release(credentialKey: string, key: string): Promise<void>;
}
