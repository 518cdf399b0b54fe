import { readFileSync } from 'node:fs';
import { configFilePath } from './paths.js';
import {
  KeyringError,
  keyringAccount,
  keyringCall,
  type ProfileSecrets,
  requireKeyring,
  type SecretStorage,
} from './secret-store.js';

// The read side of the profiles file, without conf. conf (with ajv, atomically, dot-prop …)
// costs tens of milliseconds to load, and every API command reads the active profile before
// its one request; parsing the same JSON file conf writes keeps `partner orders list` fast.
// Writes always go through conf (src/cli/profiles.ts).

export interface Profile {
  name: string;
  base_url: string;
  key: string;
  /** The API secret; absent from the file (and from `get`) when it lives in the OS keyring. */
  secret?: string;
  webhook_secret?: string;
  default_brand_id?: number;
  default_branch_id?: number;
  /** `keyring`: the secrets live in the OS keyring, under `keyring_account`; absent: in this file. */
  storage?: 'keyring';
  keyring_account?: string;
  /**
   * The data dir of the `partner local start` that saved this profile (its real path): only that
   * server refreshes the profile (docs/api.md, local mode).
   */
  local_data_dir?: string;
}

/** What is stored per profile (the name is the key of the map). */
export type StoredProfile = Omit<Profile, 'name'>;

export interface ConfigData {
  default?: string;
  profiles?: Record<string, StoredProfile>;
}

class ConfigFileError extends Error {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

export function readConfigFile(configDir: string): ConfigData {
  const file = configFilePath(configDir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigFileError(`cannot read ${file}: ${(err as Error).message}`, file);
  }
  if (text.trim() === '') return {};
  try {
    const data = JSON.parse(text) as unknown;
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error('not a JSON object');
    return data as ConfigData;
  } catch (err) {
    throw new ConfigFileError(
      `${file} is not valid JSON (${(err as Error).message}); fix or delete it`,
      file,
    );
  }
}

export function profileFrom(name: string, stored: StoredProfile | undefined): Profile | undefined {
  if (!stored || typeof stored !== 'object') return undefined;
  return { ...stored, name };
}

/** Profiles in name order. */
export function listProfiles(data: ConfigData): Profile[] {
  return Object.keys(data.profiles ?? {})
    .sort()
    .map((n) => profileFrom(n, data.profiles?.[n]))
    .filter((p): p is Profile => p !== undefined);
}

/** Where a profile's secrets live. */
export function storageOf(p: Pick<Profile, 'storage'>): SecretStorage {
  return p.storage === 'keyring' ? 'keyring' : 'file';
}

/**
 * The profile's secrets, from the file or from the OS keyring (whose binding loads only here,
 * for a keyring profile). A keyring that cannot be reached, or an entry that is gone, is a
 * KeyringError saying what to do.
 */
export function profileSecrets(configDir: string, env: NodeJS.ProcessEnv, p: Profile): ProfileSecrets {
  if (storageOf(p) === 'file') return { secret: p.secret, webhook_secret: p.webhook_secret };
  const keyring = requireKeyring(
    env,
    (why) =>
      `profile "${p.name}" keeps its secret in the OS keyring, which cannot be reached here (${why}); set PARTNER_KEY and PARTNER_SECRET instead, or run \`partner profiles move ${p.name} --to file\` where the keyring is reachable`,
    { probe: false },
  );
  const account = p.keyring_account ?? keyringAccount(configDir, p.name);
  const found = keyringCall(`reading the secret of profile "${p.name}" from the ${keyring.name}`, () =>
    keyring.read(account),
  );
  if (!found?.secret)
    throw new KeyringError(
      `profile "${p.name}" keeps its secret in the ${keyring.name}, but there is no entry "${account}" of service "partner" there; save it again with \`partner profiles add ${p.name} --key ${p.key} --secret -\``,
    );
  return found;
}

/** The webhook secret of profile `name` (default: the default profile), from the file or the keyring. */
export function profileWebhookSecret(
  configDir: string,
  env: NodeJS.ProcessEnv,
  name: string | undefined,
): string | undefined {
  const data = readConfigFile(configDir);
  const wanted = name ?? data.default;
  const p = wanted ? profileFrom(wanted, data.profiles?.[wanted]) : undefined;
  if (!p) return undefined;
  return storageOf(p) === 'keyring' ? profileSecrets(configDir, env, p).webhook_secret : p.webhook_secret;
}
