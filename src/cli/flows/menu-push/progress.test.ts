import { describe, expect, it } from 'vitest';
import type { Step } from '../../../menu/plan.js';
import { barProgress } from './progress.js';

// The push's progress line on a terminal, on an injected clock (time is the subject).

function run(pacedMs: number | undefined): string {
  let now = 0;
  const clock = { now: () => now, sleep: async () => undefined };
  let last = '';
  const out = {
    columns: 120,
    write: (s: string) => {
      last = s;
      return true;
    },
  };
  const p = pacedMs === undefined ? barProgress(out, clock, false) : barProgress(out, clock, false, pacedMs);
  const step = { text: 'create item x' } as Step;
  // 10 of 20 steps in the first second: the bucket's burst, before the pacing sets in.
  for (let i = 1; i <= 10; i++) {
    now = i * 100;
    p.event({ step, done: i, total: 20, kind: 'done' });
  }
  return last;
}

describe('menu push progress', () => {
  it('without pacing, the ETA follows the rate of the recent steps', () => {
    expect(run(undefined)).toMatch(/10\/20 · 10\.0\/s · ETA 0:01/);
  });

  it('the ETA includes the pacing the rate limit imposes (45 s from the start)', () => {
    // One second gone of the at least 45 the limit allows the push: 44 s left, not 1.
    expect(run(45_000)).toMatch(/10\/20 · 10\.0\/s · ETA 0:44/);
  });
});
