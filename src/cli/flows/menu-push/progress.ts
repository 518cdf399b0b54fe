import type { IoClock, OutStream } from '../../io.js';
import type { StepEvent } from '../../../menu/run.js';

// Progress of a push on stderr. On a terminal: one redrawn line (plain ANSI, no dependency:
// a bar, done/total, rate and ETA over the recent steps, the current step). Elsewhere: one line
// per finished step, so logs of CI runs show how far a push got.

export interface Progress {
  event(e: StepEvent): void;
  /** Erases the bar (before printing anything else). */
  end(): void;
}

function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

function what(e: StepEvent): string {
  const tail = e.id !== undefined ? ` → ${e.id}` : '';
  return `${e.step.text}${tail}${e.replayed ? ' (replayed)' : ''}`;
}

export function lineProgress(out: OutStream): Progress {
  return {
    event(e) {
      const n = String(e.total).length;
      const at = `[${String(e.done).padStart(n)}/${e.total}]`;
      if (e.kind === 'done') out.write(`${at} ${what(e)}\n`);
      else if (e.kind === 'skipped')
        out.write(`${at} skipped: ${e.step.text} (no branch carries the brand)\n`);
      else if (e.kind === 'retry')
        out.write(`${at} retrying in ${e.waitMs} ms: ${e.step.text}: ${e.error?.message ?? 'failed'}\n`);
    },
    end() {},
  };
}

export function barProgress(
  out: OutStream & { columns?: number },
  c: IoClock,
  color: boolean,
  /**
   * The least time the rate limit makes the whole push take (from the plan's read): the rate of
   * the first steps, sent from a full bucket, says nothing of the pacing to come.
   */
  pacedMs = 0,
): Progress {
  const started = c.now();
  const recent: number[] = [];
  let last = 0;
  let current = '';
  let done = 0;
  let total = 0;
  let drawn = false;
  const dim = (s: string) => (color ? `\u001b[2m${s}\u001b[22m` : s);
  const draw = (force: boolean, every = 80) => {
    const now = c.now();
    if (!force && now - last < every) return;
    last = now;
    const width = 24;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    // Rate over the last steps: after the burst the rate limit sets the pace, and the ETA follows it.
    const windowStart = recent.length > 1 ? recent[0]! : started;
    const span = now - windowStart;
    const rate = span > 0 ? ((recent.length > 1 ? recent.length - 1 : done) / span) * 1000 : 0;
    const byRate = rate > 0 ? ((total - done) / rate) * 1000 : undefined;
    const byPacing = done < total ? started + pacedMs - now : 0;
    const left = byRate === undefined ? (byPacing > 0 ? byPacing : undefined) : Math.max(byRate, byPacing);
    const eta = left === undefined ? '–:––' : clock(left);
    const head = `${bar} ${done}/${total} · ${rate > 0 ? rate.toFixed(1) : '–'}/s · ETA ${eta}`;
    const cols = out.columns || 80;
    const room = cols - head.length - 4;
    const tail =
      room > 8 ? ` ${dim(current.length > room ? `${current.slice(0, room - 1)}…` : current)}` : '';
    out.write(`\r\u001b[2K${head}${tail}`);
    drawn = true;
  };
  return {
    event(e) {
      total = e.total;
      if (e.kind === 'start') current = e.step.text;
      if (e.kind === 'retry') current = `retrying: ${e.step.text} (${e.error?.message ?? 'failed'})`;
      if (e.kind === 'done' || e.kind === 'skipped') {
        done = e.done;
        recent.push(c.now());
        if (recent.length > 30) recent.shift();
      }
      // A step starting redraws only when the bar has been still for a while (a paced wait).
      draw(e.done === e.total, e.kind === 'start' ? 250 : 80);
    },
    end() {
      if (drawn) out.write('\r\u001b[2K');
      drawn = false;
    },
  };
}
