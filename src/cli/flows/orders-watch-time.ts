import type { Io } from '../io.js';

// Waiting in the long-running flows (`orders watch`, `demo`): every wait is bounded, can be cut
// short (stop request, key press, deadline), and clears its timer so a finished command never
// keeps the process alive. Timers are real (setTimeout): Io.clock.sleep cannot be cancelled.

/** A stop request: SIGINT/SIGTERM (or Io.untilStopped when injected), or `stop()` from the flow itself. */
interface Stopper {
  readonly stopped: boolean;
  readonly reason: string | undefined;
  /** Resolves with the reason once a stop was requested. */
  readonly promise: Promise<string>;
  stop(reason: string): void;
  /** Removes the signal handlers this stopper installed. */
  dispose(): void;
}

export function stopper(io: Io): Stopper {
  let resolve!: (r: string) => void;
  const promise = new Promise<string>((r) => {
    resolve = r;
  });
  let reason: string | undefined;
  const stop = (r: string) => {
    if (reason !== undefined) return;
    reason = r;
    resolve(r);
  };
  let dispose = () => {};
  if (io.untilStopped) {
    io.untilStopped().then(stop, () => stop('stop'));
  } else {
    const on = (sig: string) => stop(sig);
    process.once('SIGINT', on);
    process.once('SIGTERM', on);
    dispose = () => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    };
  }
  return {
    get stopped() {
      return reason !== undefined;
    },
    get reason() {
      return reason;
    },
    promise,
    stop,
    dispose: () => dispose(),
  };
}

/** A re-armable wake-up: `fire()` resolves whoever is waiting on `next()`. */
export class Wake {
  private resolve: (() => void) | undefined;
  private pending = false;

  /** Resolves at the next `fire()` (at once when one happened since the last wait). */
  next(): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((r) => {
      this.resolve = r;
    });
  }

  fire(): void {
    if (this.resolve) {
      const r = this.resolve;
      this.resolve = undefined;
      r();
    } else this.pending = true;
  }
}

/**
 * Sleeps `ms` (at most), ending early when any of `wakers` settles. Resolves `true` when the full
 * time passed, `false` when woken. The timer is always cleared.
 */
export async function sleepOrWake(ms: number, wakers: Promise<unknown>[] = []): Promise<boolean> {
  if (ms <= 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timed = new Promise<boolean>((r) => {
    timer = setTimeout(() => r(true), ms);
  });
  try {
    return await Promise.race([timed, ...wakers.map((w) => w.then(() => false))]);
  } finally {
    clearTimeout(timer);
  }
}
