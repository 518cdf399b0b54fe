import { readFileSync } from 'node:fs';
import { configFilePath } from './paths.js';

// The read side of the profiles file, without conf. conf (with ajv, atomically, dot-prop …)
// costs tens of milliseconds to load, and every API command reads the active profile before
// its one request; parsing the same JSON file conf writes keeps `partner orders list` fast.
// Writes always go through conf (src/cli/profiles.ts).

export interface Profile {
  name: string;
  base_url: string;
  key: string;
  secret: string;
  webhook_secret?: string;
  default_brand_id?: number;
  default_branch_id?: number;
}

/** What is stored per profile (the name is the key of the map). */
export type StoredProfile = Omit<Profile, 'name'>;

export interface ConfigData {
  default?: string;
  profiles?: Record<string, StoredProfile>;
}

export class ConfigFileError extends Error {
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
