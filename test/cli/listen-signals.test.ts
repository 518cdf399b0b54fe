import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithProfile } from '../helpers/profile.js';
import type { TestServer } from '../helpers/server.js';
import { tempDir } from './run-cli.js';

// `partner listen --local` through the binary, stopped by each signal a person's terminal sends:
// Ctrl-C (SIGINT), `kill` (SIGTERM) and the terminal window closed (SIGHUP). Each time the
// registration it made on the local server is removed before it exits.

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

describe('partner listen --local stops on a signal and removes its registration', { timeout: 60_000 }, () => {
  for (const signal of ['SIGHUP', 'SIGTERM', 'SIGINT'] as const) {
    it(signal, async () => {
      const child = spawn(process.execPath, [bin, 'listen', '--local', '--port', '0'], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: tempDir('partner-home-'),
          PARTNER_CONFIG_DIR: configDir,
          PARTNER_DATA_DIR: s.dataDir,
          PARTNER_KEYRING: 'off',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
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
      expect(await registered()).toContain(url);
      child.kill(signal);
      const end = await exited;
      expect({ ...end, stderr }).toMatchObject({ code: 0, signal: null });
      expect(await registered()).not.toContain(url);
    });
  }
});
