import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './errors.js';
import { type Profile, profileSecrets, readConfigFile, storageOf } from './profile-file.js';
import { defaultDataDir } from './paths.js';

// Where a command sends its requests and with which credential.

export interface PartnerTarget {
  baseUrl: string;
  key: string;
  secret: string;
  /** Where each part came from, for `profiles show` and error messages. */
  source: 'flags' | 'env' | `profile ${string}`;
  /** Where the secret was read: the environment, the profile's file, or the OS keyring. */
  secretFrom: 'env' | 'file' | 'keyring';
  profile?: Profile;
}

interface PartnerTargetInput {
  configDir: string;
  env: NodeJS.ProcessEnv;
  /** --profile */
  profile?: string | undefined;
  /** --base-url */
  baseUrl?: string | undefined;
}

/**
 * Precedence, per setting, is flag > environment > profile:
 * - `--profile X` uses X's key, secret and base URL, even when PARTNER_KEY/SECRET/BASE_URL are set
 *   (a flag typed now beats an environment set long ago);
 * - otherwise PARTNER_KEY + PARTNER_SECRET (both, or neither) beat the profile named by
 *   PARTNER_PROFILE or the default profile, and PARTNER_BASE_URL beats the profile's URL;
 * - `--base-url` beats everything for the URL.
 */
export function resolvePartnerTarget(input: PartnerTargetInput): PartnerTarget {
  const { env } = input;
  const data = readConfigFile(input.configDir);
  const profiles = data.profiles ?? {};
  const named = input.profile ?? env.PARTNER_PROFILE;
  if (named !== undefined && named !== '' && !profiles[named]) {
    const how = input.profile !== undefined ? '--profile' : 'PARTNER_PROFILE';
    const known = Object.keys(profiles);
    throw new UsageError(
      `${how}: no profile named "${named}"${known.length ? ` (known: ${known.sort().join(', ')})` : ''}; add one with \`partner profiles add\``,
    );
  }
  const name = named || (data.default && profiles[data.default] ? data.default : undefined);
  const stored = name ? profiles[name] : undefined;
  const profile: Profile | undefined = stored && name ? { ...stored, name } : undefined;

  const envKey = env.PARTNER_KEY || undefined;
  const envSecret = env.PARTNER_SECRET || undefined;
  const useEnvCred = input.profile === undefined && (envKey !== undefined || envSecret !== undefined);
  if (useEnvCred && (envKey === undefined || envSecret === undefined)) {
    throw new UsageError(
      `${envKey ? 'PARTNER_KEY is set but PARTNER_SECRET is not' : 'PARTNER_SECRET is set but PARTNER_KEY is not'}`,
    );
  }
  const key = useEnvCred ? envKey : profile?.key;
  // A keyring profile's secret is read (and the keyring binding loaded) only here, when used.
  const secret = useEnvCred
    ? envSecret
    : profile && key
      ? profileSecrets(input.configDir, env, profile).secret
      : undefined;
  const baseUrl =
    input.baseUrl ??
    (input.profile === undefined ? env.PARTNER_BASE_URL || undefined : undefined) ??
    profile?.base_url;
  if (!key || !secret) {
    throw new UsageError(
      'no credential: add a profile with `partner profiles add NAME --key K --secret S --base-url URL`, or set PARTNER_KEY and PARTNER_SECRET',
    );
  }
  if (!baseUrl) {
    throw new UsageError(
      `no base URL: pass --base-url or set PARTNER_BASE_URL${profile ? ` (profile ${profile.name} has none)` : ''}`,
    );
  }
  return {
    baseUrl,
    key,
    secret,
    source: useEnvCred ? 'env' : `profile ${profile?.name ?? ''}`,
    secretFrom: useEnvCred ? 'env' : storageOf(profile ?? {}),
    ...(profile ? { profile } : {}),
  };
}

/** No `local.json` where the operator commands looked: no local server runs on that data dir. */
export class NoLocalServerError extends UsageError {
  constructor(readonly file: string) {
    super(
      `no local server found (${file} is missing): run \`partner local start\`, or pass --data DIR, or --server URL --token T`,
    );
  }
}

export interface OperatorTarget {
  baseUrl: string;
  token: string;
}

/**
 * Where operator commands go, per setting flag > environment: `--server URL` (else
 * PARTNER_OPERATOR_URL) with `--token T` (else PARTNER_OPERATOR_TOKEN), e.g. a load balancer in
 * front of N instances; else `--data DIR` or the default data dir's `local.json` written by
 * `partner local start`. A token alone in the environment (the servers' own setting) does not
 * turn away from `local.json`; `--data` given beats the environment.
 */
export function resolveOperatorTarget(input: {
  env: NodeJS.ProcessEnv;
  server?: string | undefined;
  token?: string | undefined;
  dataDir?: string | undefined;
}): OperatorTarget {
  const fromEnv = input.dataDir === undefined;
  const server = input.server || (fromEnv ? input.env.PARTNER_OPERATOR_URL || undefined : undefined);
  const token =
    input.token || (server !== undefined ? input.env.PARTNER_OPERATOR_TOKEN || undefined : undefined);
  if (server && token) return { baseUrl: server, token };
  if (server || input.token)
    throw new UsageError(
      '--server and --token go together (or PARTNER_OPERATOR_URL and PARTNER_OPERATOR_TOKEN)',
    );
  const dir = input.dataDir ?? defaultDataDir(input.env);
  const file = join(dir, 'local.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new NoLocalServerError(file);
  }
  try {
    const j = JSON.parse(text) as { base_url?: unknown; operator_token?: unknown };
    if (typeof j.base_url === 'string' && typeof j.operator_token === 'string')
      return { baseUrl: j.base_url, token: j.operator_token };
  } catch {
    // fall through
  }
  throw new UsageError(
    `${file} is not a local.json written by \`partner local start\` (needs base_url and operator_token)`,
  );
}
