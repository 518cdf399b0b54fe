import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithProfile } from '../helpers/profile.js';
import type { TestServer } from '../helpers/server.js';
import { tempDir } from './run-cli.js';

// `partner listen --local` through the binary, stopped by each signal a person's terminal sends:
// Ctrl-C (SIGINT), `kill` (SIGTERM) and the terminal window closed (SIGHUP). Each time the
// registration it made on the local server is removed before it exits. And `partner inspect`,
// stopped the instant it says Ctrl-C stops.

const bin = join(fileURLToPath(new URL('../../', import.meta.url)), 'bin/partner.js');

let s: TestServer;
let configDir: string;
beforeAll(async () => {
  ({ s, configDir } = await startWithProfile());
});
afterAll(async () => {
  await s?.close();
});

const registered = async () =>
  (
    (await s.operator('GET', `/v1/operator/webhooks?business_id=${s.credential.businessId}`)).body.data as {
      id: number;
      url: string;
    }[]
  ).map((w) => w.url);

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** `partner ARGS` (after `nodeArgs`) as a child, on this file's server and config. */
const partner = (nodeArgs: string[], args: string[]) =>
  spawn(process.execPath, [...nodeArgs, bin, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: tempDir('partner-home-'),
      PARTNER_CONFIG_DIR: configDir,
      PARTNER_DATA_DIR: s.dataDir,
      PARTNER_KEYRING: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** Starts `listen --local`; resolves with its URL once it has printed "Listening on". */
async function listen(nodeArgs: string[] = []) {
  const child = partner(nodeArgs, ['listen', '--local', '--port', '0']);
  let stderr = '';
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code, sig) => resolve({ code, signal: sig })),
  );
  // The registration is made before the "Listening on" line: wait for that line (or an exit).
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const m = /Listening on (\S+?)[;\s]/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    void exited.then((e) => reject(new Error(`listen exited (${e.code ?? e.signal}) early: ${stderr}`)));
  });
  return { child, url, exited, stderr: () => stderr };
}

/**
 * A script for node's --require: the process sends itself `signal` from inside the stderr write of
 * `line`; `again`: once more two event-loop turns later, after the first has been dispatched (a
 * signal a process sends itself is waiting in the next turn's poll).
 */
function signalOnLine(line: string, signal: NodeJS.Signals, again = false): string {
  const preload = join(tempDir('partner-preload-'), 'signal-on-line.cjs');
  const kill = `process.kill(process.pid, ${JSON.stringify(signal)})`;
  writeFileSync(
    preload,
    `const write = process.stderr.write;
process.stderr.write = function (chunk, ...rest) {
  const r = write.call(this, chunk, ...rest);
  if (String(chunk).includes(${JSON.stringify(line)})) {
    ${kill};
    ${again ? `setImmediate(() => setImmediate(() => ${kill}));` : ''}
  }
  return r;
};
`,
  );
  return preload;
}

describe('partner listen --local stops on a signal and removes its registration', { timeout: 60_000 }, () => {
  for (const signal of ['SIGHUP', 'SIGTERM', 'SIGINT'] as const) {
    it(signal, async () => {
      const l = await listen();
      expect(await registered()).toContain(l.url);
      l.child.kill(signal);
      expect({ ...(await l.exited), stderr: l.stderr() }).toMatchObject({ code: 0, signal: null });
      expect(await registered()).not.toContain(l.url);
    });
  }

  // The line says Ctrl-C stops, so a Ctrl-C the instant it appears must stop cleanly too. The
  // listener used to be added just after the line was written: a signal in between (a busy machine
  // that paused listen there while the reader saw the line) met no listener but signal-exit's,
  // which re-raised it, and listen died by it with its webhook left registered. Here the signal is
  // sent by listen itself, from inside the write of that line (a --require'd script wraps stderr's
  // write), so it always lands at that instant: the kernel delivers a signal a process sends itself
  // before kill() returns.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} the instant "Listening on" is written`, async () => {
      const l = await listen(['--require', signalOnLine('Listening on', signal)]);
      expect({ ...(await l.exited), stderr: l.stderr() }).toMatchObject({ code: 0, signal: null });
      expect(await registered()).not.toContain(l.url);
    });
  }
  // A closing terminal window can send SIGHUP twice: the kernel's hang-up, then the emulator's own
  // (node-pty does both). The second came as the clean-up had begun and counted as a second signal
  // (forced exit 129, webhook left registered). Here listen sends both itself.
  it('SIGHUP twice (a terminal window closed): still a clean stop', async () => {
    const l = await listen(['--require', signalOnLine('Listening on', 'SIGHUP', true)]);
    expect({ ...(await l.exited), stderr: l.stderr() }).toMatchObject({ code: 0, signal: null });
    expect(await registered()).not.toContain(l.url);
  });
});

// `partner inspect` printed "Ctrl-C stops." before it listened for the signals, as listen did.
describe('partner inspect stops cleanly on a signal the instant "Ctrl-C stops." is written', () => {
  it('SIGINT', async () => {
    const child = partner(['--require', signalOnLine('Ctrl-C stops.', 'SIGINT')], ['inspect', '--port', '0']);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const end = await new Promise<Exit>((resolve) =>
      child.on('exit', (code, sig) => resolve({ code, signal: sig })),
    );
    expect({ ...end, stderr }).toMatchObject({
      code: 0,
      signal: null,
      stderr: expect.stringContaining('Ctrl-C stops.'),
    });
  }, 60_000);
});
