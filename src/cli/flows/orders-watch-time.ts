import type { Io } from '../io.js';

// Waiting in the long-running flows (`orders watch`, `demo`): every wait is bounded, can be cut
// short (stop request, key press, deadline), and clears its timer so a finished command never
// keeps the process alive. Timers are real (setTimeout): Io.clock.sleep cannot be cancelled.

/** A stop request: SIGINT/SIGTERM (or Io.untilStopped when injected), or `stop()` from the flow itself. */
export interface Stopper {
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

/** Runs `fn` but gives up after `ms` with `message` (the promise itself is left to settle). */
export async function withTimeout<T>(ms: number, message: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `2s`, `500ms`, `1m30s`, `1h`, `1d` → milliseconds; a bare number means seconds. Undefined if unreadable. */
export function parseDurationMs(text: string): number | undefined {
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * UNIT[m[2]!]!;
    end = re.lastIndex;
  }
  return end === s.length && end > 0 ? Math.round(total) : undefined;
}

/** `1500` → `1.5 s`, `90000` → `1 min 30 s`. */
export function humanMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) {
    const s = ms / 1000;
    return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  }
  const min = Math.floor(ms / 60_000);
  const sec = Math.round((ms % 60_000) / 1000);
  return sec ? `${min} min ${sec} s` : `${min} min`;
}
