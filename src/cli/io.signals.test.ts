import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// untilSignal in a real process, beside the libraries that watch signals themselves:
// - signal-exit (prompt and spinner libraries): its handler re-raises a signal when no other
//   listener is left, which used to kill `listen --local` by SIGINT before it removed its webhook,
//   whenever signal-exit happened to load after it;
// - when-exit (atomically's, which writes the profiles file: `local start` loads it): on the first
//   signal it re-raises that signal with process.kill(process.pid, sig), unconditionally. Seen by
//   untilSignal as a second signal, that re-raise forced `local start` out with 143 on a single
//   SIGTERM (the reverted c3b3934) or, when when-exit was loaded after untilSignal, does still.
// Inside the project, so the script resolves these (which the prompt, spinner and file libraries
// bring) from its node_modules.
const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(join(cache, 'partner-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Order = 'signal-exit after' | 'when-exit before' | 'when-exit after';

async function script(order: Order): Promise<string> {
  const entry = join(dir, `${order.replace(/ /g, '-')}.ts`);
  writeFileSync(
    entry,
    `import { onExit } from 'signal-exit';
import { untilSignal } from ${JSON.stringify(fileURLToPath(new URL('./io.ts', import.meta.url)))};
${order === 'when-exit before' ? "await import('when-exit');" : ''}
const stopped = untilSignal();
${order === 'signal-exit after' ? 'onExit(() => undefined); // after ours, as when a library loads late' : ''}
${order === 'when-exit after' ? "await import('when-exit');" : ''}
const alive = setInterval(() => undefined, 60_000); // a server or receiver, in a real command
process.stdout.write('ready\\n');
const sig = await stopped;
clearInterval(alive);
process.stdout.write('stopping\\n');
// The clean-up (removing a webhook, say); a long one when the test asks for it.
await new Promise((r) => setTimeout(r, Number(process.env.CLEANUP_MS ?? 50)));
process.stdout.write('cleaned up after ' + sig + '\\n');
`,
  );
  const out = join(dir, `${order.replace(/ /g, '-')}.mjs`);
  await build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
  });
  return out;
}

/** Runs the script; `seen(text)` resolves once its stdout holds `text`. */
function run(file: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, sig) => resolve({ code, signal: sig })),
  );
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const seen = (text: string) =>
    new Promise<void>((done) => {
      const look = () => {
        if (out.includes(text)) done();
      };
      child.stdout.on('data', look);
      look();
    });
  return { child, exited, seen, out: () => out };
}

describe('untilSignal', () => {
  for (const order of ['signal-exit after', 'when-exit before', 'when-exit after'] as const) {
    it(`a signal lets the command clean up and end by itself (${order} it)`, async () => {
      const file = await script(order);
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
        const r = run(file);
        await r.seen('ready');
        r.child.kill(signal);
        expect({ ...(await r.exited), out: r.out() }).toEqual({
          code: 0,
          signal: null,
          out: `ready\nstopping\ncleaned up after ${signal}\n`,
        });
      }
    });

    it(`a second signal during the clean-up ends the command at once with 128 + its number (${order} it)`, async () => {
      const r = run(await script(order), { CLEANUP_MS: '60000' });
      await r.seen('ready');
      r.child.kill('SIGINT');
      await r.seen('stopping');
      r.child.kill('SIGTERM');
      expect({ ...(await r.exited), out: r.out() }).toEqual({
        code: 143,
        signal: null,
        out: 'ready\nstopping\n',
      });
    });
  }
});
