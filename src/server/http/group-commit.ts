import type { Db } from '../store/db.js';

/**
 * Group commit: the partner writes handled in one turn of the event loop share one SQLite
 * transaction, each in a savepoint of its own, and their answers are sent only after the shared
 * COMMIT. One WAL append then covers many requests (pages they share — the order table's leaf,
 * the outbox's, the idempotency table's — are written once), while "a 2xx means it is stored"
 * still holds. A request that fails rolls back to its savepoint and leaves the others alone.
 */
export class GroupCommit {
  private open = false;
  private waiting: { ok: () => void; failed: (err: unknown) => void }[] = [];
  private readonly committed = new Set<() => void>();

  constructor(private readonly db: Db) {}

  /** Runs `fn` in its own savepoint inside this turn's transaction (opened on first use). */
  run<T>(fn: () => T): T {
    if (!this.open) {
      this.db.exec('BEGIN IMMEDIATE');
      this.open = true;
      setImmediate(() => this.flush());
    }
    // better-sqlite3 nests a transaction function inside an open transaction as a savepoint.
    return this.db.transaction(fn)();
  }

  /** Calls `ok` once what was written so far is committed (at once when nothing is open). */
  whenCommitted(ok: () => void, failed: (err: unknown) => void): void {
    if (this.open) this.waiting.push({ ok, failed });
    else ok();
  }

  get pending(): boolean {
    return this.open;
  }

  /** Registers `fn` to run after every commit (the webhook dispatcher's wake-up). */
  onCommit(fn: () => void): () => void {
    this.committed.add(fn);
    return () => this.committed.delete(fn);
  }

  flush(): void {
    if (!this.open) return;
    const waiting = this.waiting;
    this.waiting = [];
    this.open = false;
    let error: unknown;
    try {
      this.db.exec('COMMIT');
    } catch (err) {
      error = err;
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    }
    for (const w of waiting) {
      if (error === undefined) w.ok();
      else w.failed(error);
    }
    if (error === undefined) for (const fn of this.committed) fn();
  }
}
