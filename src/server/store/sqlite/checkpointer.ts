import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';

/**
 * WAL checkpoints on a connection of their own, in a worker thread.
 *
 * A checkpoint copies the WAL into the database file and syncs both. Run by the server's own
 * connection (SQLite's autocheckpoint does it inside the COMMIT that crosses the limit), it stopped
 * the event loop for every request of the process: ~150 ms per 10,000 pages on this machine, of
 * which ~30–50 ms is CPU and the rest waiting for the disk. Here the server's connection never
 * checkpoints (`wal_autocheckpoint = 0`): after a group commit that wrote, the queue asks, and once
 * the WAL file has passed the limit the worker runs a PASSIVE checkpoint, which never blocks the
 * writer or a reader; the server's connection then copies the few frames written meanwhile. Durability is the same: a commit is in the WAL before it is answered, and the
 * checkpoint syncs as the server's connection would (the same `synchronous`).
 *
 * The worker starts on the first checkpoint needed (a server that only reads never pays for its
 * ~15 MB). If it cannot run, the connection checkpoints itself again, as SQLite does by default.
 */
export interface CheckpointResult {
  /** Frames in the WAL, and how many of them are now in the database file (SQLite's own figures). */
  log: number;
  checkpointed: number;
  /** The worker thread that ran it; 0 for the server connection's own copy of the tail. */
  threadId: number;
}

interface CheckpointerOptions {
  /** Checkpoint once the WAL file is this large (bytes): ~10,000 pages, SQLite's default × 10. */
  limitBytes?: number;
  /** `synchronous` of the server's connection, for the worker's (its syncs are the checkpoint's). */
  synchronous: 'NORMAL' | 'FULL';
  /** Told when the worker failed and the connection went back to checkpointing itself. */
  onError?: (err: Error) => void;
}

/** The server connection's own autocheckpoint, used again if the worker fails. */
const FALLBACK_PAGES = 10_000;

// CommonJS, evaluated in the worker: one connection, one PASSIVE checkpoint per message.
const WORKER = `
const { parentPort, workerData, threadId } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = ' + workerData.synchronous);
parentPort.on('message', () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed, threadId });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
});
`;

export class Checkpointer {
  private worker: Worker | undefined;
  private failed = false;
  private inFlight: Promise<void> | undefined;
  private settle: (() => void) | undefined;
  /** The worker has copied the WAL: the frames written meanwhile are left (afterCommit). */
  private tail = false;
  private readonly limitBytes: number;
  /** The last checkpoint's result (tests, diagnostics). */
  last: CheckpointResult | undefined;

  constructor(
    private readonly db: Db,
    private readonly opts: CheckpointerOptions,
  ) {
    this.limitBytes = opts.limitBytes ?? FALLBACK_PAGES * 4096;
    db.pragma('wal_autocheckpoint = 0');
    // The WAL file starts over after a complete checkpoint and keeps its size: cut back below the
    // limit, its size passing the limit again means that many new frames, not one.
    db.pragma(`journal_size_limit = ${Math.floor(this.limitBytes * 0.4)}`);
  }

  /** Whether the worker has been started. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** After a commit that wrote: a checkpoint once the WAL has passed the limit (one at a time). */
  afterCommit(): void {
    if (this.inFlight || this.failed) return;
    if (this.tail) {
      // The WAL starts over only at a write that finds every frame in the file, and under load
      // frames were added while the worker copied. Between groups (no transaction is open here)
      // this connection copies those few itself: ~1 ms of CPU, ~3 ms in all.
      this.tail = false;
      try {
        const [r] = this.db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
        this.last = { log: r!.log, checkpointed: r!.checkpointed, threadId: 0 };
      } catch (err) {
        this.fail(err as Error);
      }
      return;
    }
    let size: number;
    try {
      size = statSync(`${this.db.name}-wal`).size;
    } catch {
      return; // no WAL file: nothing to copy
    }
    if (size >= this.limitBytes) void this.checkpoint();
  }

  /** Runs one checkpoint in the worker, or joins the one under way (resolves when it is done). */
  checkpoint(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const w = this.start();
    if (!w) return Promise.resolve();
    this.inFlight = new Promise<void>((resolve) => {
      this.settle = resolve;
    });
    w.postMessage(0);
    return this.inFlight;
  }

  private start(): Worker | undefined {
    if (this.failed) return undefined;
    if (this.worker) return this.worker;
    let w: Worker;
    try {
      w = new Worker(WORKER, {
        eval: true,
        workerData: {
          driver: createRequire(import.meta.url).resolve('better-sqlite3'),
          file: this.db.name,
          synchronous: this.opts.synchronous,
        },
        // One connection and a loop: a small heap is plenty.
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
      });
    } catch (err) {
      this.fail(err as Error);
      return undefined;
    }
    w.on('message', (m: CheckpointResult | { error: string }) => {
      if ('error' in m) this.fail(new Error(`WAL checkpoint failed: ${m.error}`));
      else {
        this.last = m;
        this.tail = true;
      }
      this.done();
    });
    // An error thrown in the worker arrives cloned, its message sometimes lost: say what it was.
    w.on('error', (err: unknown) =>
      this.fail(new Error(`the WAL checkpoint worker failed: ${(err as Error)?.message ?? String(err)}`)),
    );
    w.on('exit', (code) => {
      if (this.worker === w) this.fail(new Error(`the WAL checkpoint worker exited (${code})`));
    });
    // The server (its listening socket) keeps the process alive, not this.
    w.unref();
    this.worker = w;
    return w;
  }

  private done(): void {
    const settle = this.settle;
    this.settle = undefined;
    this.inFlight = undefined;
    settle?.();
  }

  private fail(err: Error): void {
    if (!this.failed) {
      this.failed = true;
      const w = this.worker;
      this.worker = undefined;
      void w?.terminate();
      if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${FALLBACK_PAGES}`);
      this.opts.onError?.(err);
    }
    this.done();
  }

  /** Waits for a checkpoint under way and stops the worker (closing the connection checkpoints). */
  async close(): Promise<void> {
    await this.inFlight;
    const w = this.worker;
    this.worker = undefined;
    this.failed = true; // no checkpoint after this; closing the connection makes the last one
    await w?.terminate();
  }
}
