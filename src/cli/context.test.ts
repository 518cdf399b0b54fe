import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { makeCtx } from './context.js';
import type { Io } from './io.js';
import { MANIFEST } from './manifest/data.js';

function io(tty: boolean, onErr: (all: string) => void = () => undefined): Io & { err: () => string } {
  let err = '';
  return {
    stdout: { write: () => true },
    stderr: {
      write: (s: string) => {
        err += s;
        onErr(err);
        return true;
      },
    },
    stdin: process.stdin,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    stdinIsTTY: false,
    env: {},
    color: true,
    prompter: {} as Io['prompter'],
    clock: { now: Date.now, sleep: async () => undefined },
    configDir: '/nonexistent',
    cwd: process.cwd(),
    err: () => err,
  };
}

const slow = () => new Promise((r) => setTimeout(() => r('done'), 400));

describe('ctx.spin', () => {
  it('shows a spinner on stderr for a call still running after a moment, on a terminal', async () => {
    // The call ends once the spinner has shown (or the test times out): no race with the
    // spinner's delay and ora's loading on a busy machine.
    let shown!: () => void;
    const spinnerShown = new Promise<void>((r) => {
      shown = r;
    });
    const i = io(true, (all) => {
      if (all.includes('Working…')) shown();
    });
    const ctx = makeCtx(i, MANIFEST, new Command());
    expect(await ctx.spin('Working…', () => spinnerShown.then(() => 'done'))).toBe('done');
    expect(i.err()).toContain('Working…');
  });
  it('shows nothing off a terminal, or for a quick call', async () => {
    const off = io(false);
    await makeCtx(off, MANIFEST, new Command()).spin('Working…', slow);
    expect(off.err()).toBe('');
    const quick = io(true);
    await makeCtx(quick, MANIFEST, new Command()).spin('Working…', async () => 1);
    expect(quick.err()).toBe('');
  });
});
