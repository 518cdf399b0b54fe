import { readFileSync, statSync } from 'node:fs';
import { parseDuration } from '../contract/duration.js';

// What every instance of one service must be given alike (docs/deploy.md): the key that seals
// webhook signing secrets and the operator token. It comes from configuration handed to all
// instances (environment, or a file path), never from one process's data dir, so N instances on
// one database agree. Secret values are never taken as flags: a command line is visible to every
// user of the machine (`ps`).

/** A configuration mistake: the message names the variable or flag; it never holds a secret. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

interface SharedConfig {
  /** 32 bytes: AES-256-GCM key of security/sealed.ts. */
  sealKey?: Buffer;
  operatorToken?: string;
  /** Webhook retry delays in ms (PARTNER_RETRY_SCHEDULE), when set. */
  retrySchedule?: number[];
  /** The dispatcher's backstop poll in ms (PARTNER_DELIVERY_POLL), when set. */
  deliveryPollMs?: number;
}

interface SharedConfigFlags {
  /** --seal-key-file */
  sealKeyFile?: string | undefined;
  /** --operator-token-file */
  operatorTokenFile?: string | undefined;
}

/** `10s,1m,5m` → milliseconds; throws a message naming `where` on bad input. */
function parseRetrySchedule(text: string, where = '--retry-schedule'): number[] {
  const parts = text.split(',').map((p) => p.trim());
  return parts.map((p) => {
    const ms = parseDuration(p);
    if (ms === undefined)
      throw new ConfigError(`${where}: "${p}" is not a duration such as 500ms, 10s, 5m or 2h`);
    return ms;
  });
}

/** A seal key: 32 bytes in base64 (`openssl rand -base64 32`). The message never echoes the text. */
function parseSealKey(text: string, where: string): Buffer {
  const t = text.trim();
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(t) ? Buffer.from(t, 'base64') : Buffer.alloc(0);
  if (key.length !== 32)
    throw new ConfigError(
      `${where} must hold 32 random bytes in base64 (44 characters; make one with \`openssl rand -base64 32\`)`,
    );
  return key;
}

/** Operator tokens are compared as given; too short a one is refused rather than guessed. */
function parseOperatorToken(text: string, where: string): string {
  const t = text.trim();
  if (t.length < 24 || t.length > 512 || /\s/.test(t))
    throw new ConfigError(
      `${where} must be 24–512 characters without spaces (make one with \`openssl rand -hex 24\`)`,
    );
  return t;
}

/**
 * Reads a secret file: a regular file that no one but its owner can read (like ssh keys), so a
 * key handed to the service is not left readable by every account on the machine.
 */
function readSecretFile(file: string, where: string): string {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `${where} ${file}: ${code === 'ENOENT' ? 'no such file' : `cannot read it (${code})`}`,
    );
  }
  if (!st.isFile()) throw new ConfigError(`${where} ${file}: not a regular file`);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0)
    throw new ConfigError(
      `${where} ${file}: readable by others (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}); run chmod 600 ${file}`,
    );
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${where} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code})`);
  }
}

/**
 * Per setting, a flag beats the environment: `--seal-key-file` > PARTNER_SEAL_KEY_FILE >
 * PARTNER_SEAL_KEY, and `--operator-token-file` > PARTNER_OPERATOR_TOKEN_FILE >
 * PARTNER_OPERATOR_TOKEN. A value and a file for one setting in the environment must agree.
 */
export function readSharedConfig(env: NodeJS.ProcessEnv, flags: SharedConfigFlags = {}): SharedConfig {
  const out: SharedConfig = {};
  const sealKey = secretSetting(env, flags.sealKeyFile, '--seal-key-file', 'PARTNER_SEAL_KEY');
  if (sealKey) out.sealKey = parseSealKey(sealKey.text, sealKey.where);
  const token = secretSetting(
    env,
    flags.operatorTokenFile,
    '--operator-token-file',
    'PARTNER_OPERATOR_TOKEN',
  );
  if (token) out.operatorToken = parseOperatorToken(token.text, token.where);
  if (env.PARTNER_RETRY_SCHEDULE)
    out.retrySchedule = parseRetrySchedule(env.PARTNER_RETRY_SCHEDULE, 'PARTNER_RETRY_SCHEDULE');
  if (env.PARTNER_DELIVERY_POLL) {
    const ms = parseDuration(env.PARTNER_DELIVERY_POLL.trim());
    if (ms === undefined || ms < 100 || ms > 3_600_000)
      throw new ConfigError('PARTNER_DELIVERY_POLL: one duration from 100ms to 1h, such as 5s');
    out.deliveryPollMs = ms;
  }
  return out;
}

function secretSetting(
  env: NodeJS.ProcessEnv,
  flagFile: string | undefined,
  flag: string,
  variable: string,
): { text: string; where: string } | undefined {
  if (flagFile !== undefined) return { text: readSecretFile(flagFile, flag), where: flag };
  const file = env[`${variable}_FILE`] || undefined;
  const value = env[variable] || undefined;
  if (file) {
    const text = readSecretFile(file, `${variable}_FILE`);
    // Both set is fine when they agree (an operator's shell exporting the token for the CLI
    // beside the servers' environment file); two different values are refused, never guessed.
    if (value && value.trim() !== text.trim())
      throw new ConfigError(`${variable} and ${variable}_FILE are both set and differ: set one of them`);
    return { text, where: `${variable}_FILE` };
  }
  if (value) return { text: value, where: variable };
  return undefined;
}

/**
 * PostgreSQL means N instances may share the database: a seal key or operator token generated
 * into one instance's data dir would differ from the next one's (webhook secrets sealed by one
 * would not open on another; the operator token would work on one instance in N). So there both
 * must be given, and a start without them is refused with the names to set.
 */
export function requireSharedSecrets(c: {
  sealKey?: Buffer | undefined;
  operatorToken?: string | undefined;
}): void {
  const missing: string[] = [];
  if (!c.sealKey) missing.push('the seal key (PARTNER_SEAL_KEY, PARTNER_SEAL_KEY_FILE or --seal-key-file)');
  if (!c.operatorToken)
    missing.push(
      'the operator token (PARTNER_OPERATOR_TOKEN, PARTNER_OPERATOR_TOKEN_FILE or --operator-token-file)',
    );
  if (missing.length)
    throw new ConfigError(
      `on PostgreSQL every instance must be given ${missing.join(' and ')}, the same for all instances (docs/deploy.md)`,
    );
}
