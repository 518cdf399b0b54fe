import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { localServerHint } from '../../src/cli/output/errors.js';
import { openProfiles } from '../../src/cli/profiles.js';
import { ensureBuilt, partnerBin } from './bin-cli.js';
import { tempDir } from './run-cli.js';

// A server that does not answer, as a person meets it through the binary: `auth login` says it
// could not reach the server (not that the key was refused), and a refused connection to a
// loopback address (the local server, stopped) says how to start it.

/** A loopback port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

let down: string;
beforeAll(async () => {
  ensureBuilt();
  down = `http://127.0.0.1:${await closedPort()}`;
});

describe('a server that does not answer', () => {
  it('auth login says it could not reach the server, exits 7 and saves nothing', async () => {
    const configDir = tempDir();
    const r = await partnerBin(
      ['auth', 'login', '--name', 'x', '--key', 'pk_abc', '--secret', '-', '--base-url', down],
      { configDir, stdin: 'sk_abc' },
    );
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(
      new RegExp(
        `^Nothing was saved: could not reach the server at ${down}, so key pk_abc could not be checked\\.\n`,
      ),
    );
    expect(r.stderr).not.toMatch(/did not accept/);
    expect(r.stderr).toMatch(/error: network: cannot reach/);
    expect(existsSync(join(configDir, 'config.json'))).toBe(false);
  });

  it('a command against a stopped local server hints `partner local start`', async () => {
    const configDir = tempDir();
    openProfiles({ configDir }).save({ name: 'local', base_url: down, key: 'pk_abc', secret: 'sk_abc' });
    const before = readFileSync(join(configDir, 'config.json'), 'utf8');
    const r = await partnerBin(['brands', 'list'], { configDir });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`error: network: cannot reach ${down}`);
    expect(r.stderr).toContain(
      `hint: nothing listens at ${down}: is the local server running? Start it with \`partner local start\``,
    );
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(before);
  });

  it('gives the hint only for a refused connection to a loopback address', () => {
    expect(localServerHint({ code: 'ECONNREFUSED', origin: 'http://[::1]:8787' })).toMatch(/local start/);
    expect(localServerHint({ code: 'ECONNREFUSED', origin: 'http://localhost:8787' })).toMatch(/local start/);
    // A remote API down, or a local one that answers slowly, is not fixed by starting a server here.
    expect(localServerHint({ code: 'ECONNREFUSED', origin: 'https://api.example.com' })).toBeUndefined();
    expect(localServerHint({ code: 'ETIMEDOUT', origin: 'http://127.0.0.1:8787' })).toBeUndefined();
  });
});
