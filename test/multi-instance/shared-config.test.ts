import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, ensureBuilt, killAll, runCli, startInstance, stopInstance, tempDir } from './instances.js';

// Shared configuration through the built binary on SQLite (the PostgreSQL side is in
// cluster.test.ts): the seal key and operator token come from the environment or a 0600 file,
// never from the command line; the data dir then holds neither; a key that does not open what
// the database holds is refused before the server takes a request; and no secret is printed.

const KEY = Buffer.alloc(32, 1).toString('base64');
const OTHER_KEY = Buffer.alloc(32, 2).toString('base64');
const TOKEN = 'op_shared_0123456789abcdefghij';

beforeAll(ensureBuilt);
afterAll(killAll);

function secretFile(text: string, mode = 0o600): string {
  const f = join(tempDir('partner-secret-'), 'secret');
  writeFileSync(f, text, { mode });
  chmodSync(f, mode);
  return f;
}

describe('partner local start: shared configuration', () => {
  it('takes the seal key and operator token from the environment and keeps neither in the data dir', async () => {
    const env = baseEnv({ PARTNER_SEAL_KEY: KEY, PARTNER_OPERATOR_TOKEN: TOKEN });
    const a = await startInstance([], env);
    try {
      expect(existsSync(join(a.data, 'secret.key'))).toBe(false);
      const local = JSON.parse(readFileSync(join(a.data, 'local.json'), 'utf8'));
      expect(local).toEqual({ base_url: a.url, operator_token: TOKEN });
      expect(statSync(join(a.data, 'local.json')).mode & 0o777).toBe(0o600);

      // The operator CLI against it by URL and token from the environment (as against a cluster).
      const opEnv = baseEnv({ PARTNER_OPERATOR_URL: a.url, PARTNER_OPERATOR_TOKEN: TOKEN });
      const biz = await runCli(['operator', 'businesses', 'create', '--title', 'Shared', '--json'], opEnv);
      expect(biz.stderr).toBe('');
      expect(biz.code).toBe(0);
      const id = JSON.parse(biz.stdout).id as number;
      const secret = await runCli(
        ['operator', 'webhooks', 'secret', '--business', String(id), '--json'],
        opEnv,
      );
      expect(secret.code).toBe(0);
      const whsec = JSON.parse(secret.stdout).webhook_secret_key as string;
      expect(whsec).toMatch(/^whsec_/);
      // A wrong token is refused like any other.
      const wrong = await runCli(['operator', 'businesses', 'list'], {
        ...opEnv,
        PARTNER_OPERATOR_TOKEN: `${TOKEN}x`,
      });
      expect(wrong.code).toBe(3);

      await stopInstance(a);
      for (const text of [a.stdout(), a.stderr()]) {
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain(KEY);
      }

      // Another key than the one the stored secrets were sealed with: refused, naming the setting.
      const refused = await runCli(['local', 'start', '--port', '0', '--data', a.data], {
        ...env,
        PARTNER_SEAL_KEY: OTHER_KEY,
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        'error: the seal key given does not open the webhook signing secrets stored in this database: give every instance the key they were sealed with\n',
      );
      expect(existsSync(join(a.data, 'server.lock'))).toBe(false);

      // The same key from a 0600 file (--seal-key-file beats the environment): the same secret.
      const again = await startInstance(
        ['--seal-key-file', secretFile(`${KEY}\n`)],
        { ...env, PARTNER_SEAL_KEY: OTHER_KEY },
        a.data,
      );
      const same = await runCli(['operator', 'webhooks', 'secret', '--business', String(id), '--json'], {
        ...opEnv,
        PARTNER_OPERATOR_URL: again.url,
      });
      expect(JSON.parse(same.stdout).webhook_secret_key).toBe(whsec);
      await stopInstance(again);
    } finally {
      await stopInstance(a);
    }
  });

  it('refuses a secret file others can read and a malformed key, naming the flag or variable, and starts nothing', async () => {
    const open = secretFile(KEY, 0o644);
    const data = tempDir('partner-data-');
    const r1 = await runCli(
      ['local', 'start', '--port', '0', '--data', data, '--seal-key-file', open],
      baseEnv(),
    );
    expect(r1.code).toBe(2);
    expect(r1.stderr).toBe(
      `error: --seal-key-file ${open}: readable by others (mode 0644); run chmod 600 ${open}\n`,
    );
    const r2 = await runCli(
      ['local', 'start', '--port', '0', '--data', data],
      baseEnv({ PARTNER_SEAL_KEY: 'not-a-key' }),
    );
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/^error: PARTNER_SEAL_KEY must hold 32 random bytes in base64/);
    expect(r2.stderr).not.toContain('not-a-key');
    const r3 = await runCli(
      ['local', 'start', '--port', '0', '--data', data],
      baseEnv({ PARTNER_OPERATOR_TOKEN_FILE: secretFile('short') }),
    );
    expect(r3.code).toBe(2);
    expect(r3.stderr).toMatch(/^error: PARTNER_OPERATOR_TOKEN_FILE must be 24–512 characters/);
    for (const f of ['local.json', 'secret.key', 'server.lock', 'partner.db'])
      expect(existsSync(join(data, f))).toBe(false);
  });

  it('with nothing given keeps today’s behaviour: a key and a token generated into the data dir', async () => {
    const a = await startInstance([], baseEnv());
    await stopInstance(a);
    expect(statSync(join(a.data, 'secret.key')).mode & 0o777).toBe(0o600);
    const token = JSON.parse(readFileSync(join(a.data, 'local.json'), 'utf8')).operator_token as string;
    const b = await startInstance([], baseEnv(), a.data);
    await stopInstance(b);
    expect(JSON.parse(readFileSync(join(b.data, 'local.json'), 'utf8')).operator_token).toBe(token);
  });
});
