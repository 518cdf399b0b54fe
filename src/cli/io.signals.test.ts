import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// untilSignal in a real process, beside signal-exit (which prompt and spinner libraries load): its
// handler re-raises a signal when no other listener is left, which used to kill `listen --local`
// by SIGINT before it removed its webhook, whenever signal-exit happened to load after it.
// Inside the project, so the script resolves signal-exit (which the prompt and spinner libraries
// bring) from its node_modules.
const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(join(cache, 'partner-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function script(): Promise<string> {
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    `import { onExit } from 'signal-exit';
import { untilSignal } from ${JSON.stringify(fileURLToPath(new URL('./io.ts', import.meta.url)))};
const stopped = untilSignal();
onExit(() => undefined); // after ours, as when a library loads late
const alive = setInterval(() => undefined, 60_000); // a server or receiver, in a real command
process.stdout.write('ready\\n');
const sig = await stopped;
clearInterval(alive);
await new Promise((r) => setTimeout(r, 50)); // the clean-up (removing a webhook, say)
process.stdout.write('cleaned up after ' + sig + '\\n');
`,
  );
  const out = join(dir, 'entry.mjs');
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

describe('untilSignal', () => {
  it('a signal lets the command clean up and end by itself, even with signal-exit loaded', async () => {
    const file = await script();
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, sig) => resolve({ code, signal: sig })),
      );
      await new Promise<void>((ready) =>
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('ready')) ready();
        }),
      );
      child.kill(signal);
      expect({ ...(await exited), out }).toEqual({
        code: 0,
        signal: null,
        out: `ready\ncleaned up after ${signal}\n`,
      });
    }
  });
});
