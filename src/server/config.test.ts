import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, readSharedConfig, requireSharedSecrets } from './config.js';

const dir = mkdtempSync(join(tmpdir(), 'partner-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = Buffer.alloc(32, 7).toString('base64');
const TOKEN = 'op_0123456789abcdef0123456789';

function secretFile(name: string, text: string, mode = 0o600): string {
  const f = join(dir, name);
  writeFileSync(f, text, { mode });
  chmodSync(f, mode);
  return f;
}

const fails = (f: () => unknown): ConfigError => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('did not throw');
};

describe('shared configuration', () => {
  it('is empty when nothing is given (SQLite then keeps its own in the data dir)', () => {
    expect(readSharedConfig({})).toEqual({});
  });

  it('reads the seal key and operator token from the environment, values or files', () => {
    expect(readSharedConfig({ PARTNER_SEAL_KEY: KEY, PARTNER_OPERATOR_TOKEN: TOKEN })).toEqual({
      sealKey: Buffer.alloc(32, 7),
      operatorToken: TOKEN,
    });
    const key = secretFile('seal.key', `${KEY}\n`);
    const token = secretFile('token', `${TOKEN}\n`);
    expect(readSharedConfig({ PARTNER_SEAL_KEY_FILE: key, PARTNER_OPERATOR_TOKEN_FILE: token })).toEqual({
      sealKey: Buffer.alloc(32, 7),
      operatorToken: TOKEN,
    });
  });

  it('lets a flag beat the environment', () => {
    const other = Buffer.alloc(32, 9).toString('base64');
    const key = secretFile('flag.key', other);
    const c = readSharedConfig({ PARTNER_SEAL_KEY: KEY }, { sealKeyFile: key });
    expect(c.sealKey).toEqual(Buffer.alloc(32, 9));
  });

  it('refuses a bad key or token with the name of its variable, never its value', () => {
    const bad = fails(() => readSharedConfig({ PARTNER_SEAL_KEY: 'c2VjcmV0LWJ1dC1zaG9ydA==' }));
    expect(bad.message).toMatch(/^PARTNER_SEAL_KEY must hold 32 random bytes in base64/);
    expect(bad.message).not.toContain('c2VjcmV0');
    const short = fails(() => readSharedConfig({ PARTNER_OPERATOR_TOKEN: 'op_short' }));
    expect(short.message).toMatch(/^PARTNER_OPERATOR_TOKEN must be 24–512 characters/);
    expect(short.message).not.toContain('op_short');
    const keyFile = secretFile('both.key', `${KEY}\n`);
    expect(readSharedConfig({ PARTNER_SEAL_KEY: KEY, PARTNER_SEAL_KEY_FILE: keyFile }).sealKey).toEqual(
      Buffer.alloc(32, 7),
    );
    const other = Buffer.alloc(32, 8).toString('base64');
    const both = fails(() => readSharedConfig({ PARTNER_SEAL_KEY: other, PARTNER_SEAL_KEY_FILE: keyFile }));
    expect(both.message).toBe(
      'PARTNER_SEAL_KEY and PARTNER_SEAL_KEY_FILE are both set and differ: set one of them',
    );
    expect(both.message).not.toContain(other);
    expect(fails(() => readSharedConfig({ PARTNER_RETRY_SCHEDULE: '1s,soon' })).message).toBe(
      'PARTNER_RETRY_SCHEDULE: "soon" is not a duration such as 500ms, 10s, 5m or 2h',
    );
    expect(readSharedConfig({ PARTNER_RETRY_SCHEDULE: '1s,2m' }).retrySchedule).toEqual([1000, 120_000]);
    // The one duration grammar (docs/cli.md, Durations): a bare number is seconds, `d` is days.
    expect(readSharedConfig({ PARTNER_RETRY_SCHEDULE: '10, 1m30s,1d' }).retrySchedule).toEqual([
      10_000, 90_000, 86_400_000,
    ]);
  });

  it('refuses a secret file others can read, or one that is missing, naming the flag and the file', () => {
    const open = secretFile('open.key', KEY, 0o644);
    expect(fails(() => readSharedConfig({}, { sealKeyFile: open })).message).toBe(
      `--seal-key-file ${open}: readable by others (mode 0644); run chmod 600 ${open}`,
    );
    const missing = join(dir, 'nope');
    expect(fails(() => readSharedConfig({ PARTNER_OPERATOR_TOKEN_FILE: missing })).message).toBe(
      `PARTNER_OPERATOR_TOKEN_FILE ${missing}: no such file`,
    );
    expect(fails(() => readSharedConfig({}, { operatorTokenFile: dir })).message).toBe(
      `--operator-token-file ${dir}: not a regular file`,
    );
  });

  it('on PostgreSQL requires both, naming what is missing', () => {
    expect(() => requireSharedSecrets({ sealKey: Buffer.alloc(32), operatorToken: TOKEN })).not.toThrow();
    const none = fails(() => requireSharedSecrets({}));
    expect(none.message).toContain('PARTNER_SEAL_KEY, PARTNER_SEAL_KEY_FILE or --seal-key-file');
    expect(none.message).toContain(
      'PARTNER_OPERATOR_TOKEN, PARTNER_OPERATOR_TOKEN_FILE or --operator-token-file',
    );
    const one = fails(() => requireSharedSecrets({ sealKey: Buffer.alloc(32) }));
    expect(one.message).not.toContain('seal key');
  });
});

describe('PARTNER_DELIVERY_POLL', () => {
  it('is one duration from 100ms to 1h; anything else names the variable', () => {
    expect(readSharedConfig({ PARTNER_DELIVERY_POLL: '2s' }).deliveryPollMs).toBe(2_000);
    expect(readSharedConfig({ PARTNER_DELIVERY_POLL: '10m' }).deliveryPollMs).toBe(600_000);
    expect(readSharedConfig({}).deliveryPollMs).toBeUndefined();
    expect(readSharedConfig({ PARTNER_DELIVERY_POLL: '3' }).deliveryPollMs).toBe(3_000); // bare: seconds
    for (const bad of ['1s,2s', '50ms', '2h', 'soon'])
      expect(fails(() => readSharedConfig({ PARTNER_DELIVERY_POLL: bad })).message).toMatch(
        /^PARTNER_DELIVERY_POLL/,
      );
  });
});
