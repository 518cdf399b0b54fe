import { q } from '../sql/query.js';
import { type Db, prepared } from './db.js';

const S = {
  begin: q('BEGIN IMMEDIATE'),
  savepoint: q('SAVEPOINT unit'),
  rollbackTo: q('ROLLBACK TO unit'),
  release: q('RELEASE unit'),
  commit: q('COMMIT'),
};

export class UnitOfWorkError extends Error {
  override name = 'UnitOfWorkError';
}

type UnitMode = 'read' | 'write';

/** One unit's identity: repositories check it before touching the connection. */
export class Unit {
  state: 'running' | 'done' | 'dead' = 'running';
  /** Whether it ran a statement that writes. */
  wrote = false;
  /** Whether it wrote something the commit hooks are for (not only Query.quiet statements). */
  wakes = false;
  /** Whether no unit before it in its group had written anything (see Tx.readsCommittedOnly). */
  readsCommittedOnly = true;
  constructor(readonly mode: UnitMode) {}

  /** Throws unless this unit is the one running now (and, for a write, a write unit). */
  check(write: boolean): void {
    if (this.state !== 'running') {
      throw new UnitOfWorkError(
        this.state === 'dead'
          ? 'this unit of work was ended because it awaited something other than the store'
          : 'this unit of work has ended: its store can no longer be used',
      );
    }
    if (write && this.mode === 'read') throw new UnitOfWorkError('a read unit cannot write');
  }
}

interface Job {
  mode: UnitMode;
  fn: (unit: Unit) => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

interface Outcome {
  job: Job;
  ok: boolean;
  value: unknown;
}

export interface UnitQueueOptions {
  /** Told about a unit ended for awaiting something other than the store (a bug). */
  onStuck?: (err: UnitOfWorkError) => void;
}

/**
 * The unit of work on SQLite's one connection, with group commit.
 *
 * Units run one at a time, in the order they were asked for. A write unit runs in a SAVEPOINT of
 * its own inside the group transaction (opened by the first write unit of an event-loop turn);
 * a unit that throws rolls back to its savepoint only. The group COMMITs once per turn, when the
 * queue is idle (a setImmediate after the first unit started), and only then are the outcomes of
 * the units that ran in it released: "a 2xx means committed" holds while one WAL append covers
 * every write of the turn.
 *
 * better-sqlite3 is synchronous, so a unit that awaits nothing but the store finishes within the
 * microtasks of the turn that started it, and the queue costs a few promise hops. A unit still
 * running when the turn ends has awaited something else (a timer, the network, a hash): that is a
 * bug. It fails loudly: its writes are rolled back, it is rejected with a UnitOfWorkError, its
 * store refuses any further use, and the queue goes on without it.
 */
export class UnitQueue {
  private readonly queue: Job[] = [];
  private running: { job: Job; unit: Unit } | undefined;
  private groupOpen = false;
  /** Whether a unit that wrote something was released into the open group. */
  private groupWrote = false;
  /** Whether a unit of the open group wrote something the commit hooks are for (Unit.wakes). */
  private groupWakes = false;
  /** Outcomes of the units that ran in the open group: released after its COMMIT. */
  private held: Outcome[] = [];
  private flushScheduled = false;
  private readonly committed = new Set<() => void>();
  private readonly rolledBack = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly opts: UnitQueueOptions = {},
  ) {}

  run<T>(mode: UnitMode, fn: (unit: Unit) => Promise<T> | T): Promise<T> {
    if (this.closed) return Promise.reject(new UnitOfWorkError('the store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ mode, fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) this.next();
    });
  }

  /** `fn` runs after every successful COMMIT of a group that wrote something (the dispatcher's wake-up). */
  onCommit(fn: () => void): () => void {
    this.committed.add(fn);
    return () => this.committed.delete(fn);
  }

  /** `fn` runs when a group COMMIT failed and everything in it was rolled back. */
  onRollback(fn: () => void): () => void {
    this.rolledBack.add(fn);
    return () => this.rolledBack.delete(fn);
  }

  private next(): void {
    const job = this.queue.shift();
    if (!job) return;
    const unit = new Unit(job.mode);
    // A unit whose savepoint was rolled back left nothing; one released with writes did.
    unit.readsCommittedOnly = !this.groupWrote;
    this.running = { job, unit };
    this.scheduleFlush();
    let result: unknown;
    try {
      if (job.mode === 'write') {
        if (!this.groupOpen) {
          prepared(this.db, S.begin).run();
          this.groupOpen = true;
        }
        prepared(this.db, S.savepoint).run();
      }
      result = job.fn(unit);
    } catch (err) {
      this.finish(job, unit, false, err);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (v) => this.finish(job, unit, true, v),
        (e) => this.finish(job, unit, false, e),
      );
    } else this.finish(job, unit, true, result);
  }

  private finish(job: Job, unit: Unit, ok: boolean, value: unknown): void {
    if (unit.state === 'dead') return; // already ended and rejected by flush()
    unit.state = 'done';
    this.end(job, unit, ok, value);
    this.next();
  }

  /** A unit's end: its savepoint rolled back unless it succeeded, its outcome held for the group. */
  private end(job: Job, unit: Unit, ok: boolean, value: unknown): void {
    this.running = undefined;
    if (unit.mode === 'write' && this.groupOpen) {
      try {
        if (!ok) prepared(this.db, S.rollbackTo).run();
        prepared(this.db, S.release).run();
      } catch (err) {
        // A savepoint that cannot be released: the whole group is suspect.
        if (ok) {
          ok = false;
          value = err;
        }
        this.abortGroup(err);
      }
    }
    if (ok && unit.wrote && this.groupOpen) this.groupWrote = true;
    if (ok && unit.wakes && this.groupOpen) this.groupWakes = true;
    if (this.groupOpen) this.held.push({ job, ok, value });
    else if (ok) job.resolve(value);
    else job.reject(value);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /** Ends the turn: a unit still running is stuck (ended), then the group COMMITs. */
  flush(): void {
    const r = this.running;
    if (r) {
      const err = new UnitOfWorkError(
        `a ${r.unit.mode} unit of work was still running at the end of its event-loop turn: it awaited something other than the store; ${r.unit.mode === 'write' ? 'its writes were rolled back' : 'it was ended'}`,
      );
      r.unit.state = 'dead';
      this.end(r.job, r.unit, false, err);
      this.opts.onStuck?.(err);
    }
    if (this.groupOpen) {
      const held = this.held;
      const wrote = this.groupWakes;
      this.held = [];
      this.groupOpen = false;
      this.groupWrote = false;
      this.groupWakes = false;
      let error: unknown;
      try {
        prepared(this.db, S.commit).run();
      } catch (err) {
        error = err;
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      }
      for (const o of held) {
        if (error !== undefined) o.job.reject(error);
        else if (o.ok) o.job.resolve(o.value);
        else o.job.reject(o.value);
      }
      if (error !== undefined) for (const fn of this.rolledBack) fn();
      else if (wrote) for (const fn of this.committed) fn();
    }
    if (!this.running) this.next();
  }

  /** Rolls the whole group back after an error the savepoints cannot contain. */
  private abortGroup(err: unknown): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    this.groupOpen = false;
    this.groupWrote = false;
    this.groupWakes = false;
    const held = this.held;
    this.held = [];
    for (const o of held) o.job.reject(err);
    for (const fn of this.rolledBack) fn();
  }

  /** Commits what is pending and refuses new units; units already queued still run. */
  async close(): Promise<void> {
    while (this.running || this.queue.length > 0) await new Promise((r) => setImmediate(r));
    this.flush();
    this.closed = true;
  }
}
