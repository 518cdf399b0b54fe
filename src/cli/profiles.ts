import { chmodSync, mkdirSync } from 'node:fs';
import Conf from 'conf';
import {
  type ConfigData,
  listProfiles,
  type Profile,
  profileFrom,
  readConfigFile,
  type StoredProfile,
} from './profile-file.js';
import { CONFIG_FILE_NAME, configFilePath, defaultConfigDir } from './paths.js';

export type { Profile } from './profile-file.js';

export interface ProfileStore {
  list(): Profile[];
  get(name: string): Profile | undefined;
  /** Adds or replaces the profile; the first profile saved becomes the default. */
  save(p: Profile, opts?: { makeDefault?: boolean }): void;
  remove(name: string): boolean;
  /** Makes `name` the default; throws if it does not exist. */
  use(name: string): void;
  defaultName(): string | undefined;
  /** The config file. */
  path: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isValidProfileName(name: string): boolean {
  return NAME.test(name);
}

/**
 * The profile store: one JSON file (`config.json`, mode 0600) in `PARTNER_CONFIG_DIR` or the
 * per-user config folder. Writes go through conf (atomic rename, file mode); reads parse the
 * file afresh each time so two processes never act on a stale copy.
 */
export function openProfiles(opts: { configDir?: string; env?: NodeJS.ProcessEnv } = {}): ProfileStore {
  const dir = opts.configDir ?? defaultConfigDir(opts.env ?? process.env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const conf = new Conf<ConfigData>({
    cwd: dir,
    configName: CONFIG_FILE_NAME.replace(/\.json$/, ''),
    configFileMode: 0o600,
    projectName: 'partner',
    projectSuffix: '',
    // A hand-broken file must not be silently wiped: it holds secrets the user may need.
    clearInvalidConfig: false,
    accessPropertiesByDotNotation: false,
  });
  const path = configFilePath(dir);
  const read = (): ConfigData => readConfigFile(dir);
  const write = (data: ConfigData): void => {
    conf.store = data;
    // conf creates the file with the mode, but an existing file keeps whatever mode it had.
    chmodSync(path, 0o600);
  };

  return {
    path,
    list: () => listProfiles(read()),
    get: (name) => profileFrom(name, read().profiles?.[name]),
    defaultName() {
      const data = read();
      return data.default && data.profiles?.[data.default] ? data.default : undefined;
    },
    save(p, o = {}) {
      if (!isValidProfileName(p.name))
        throw new Error(`invalid profile name "${p.name}" (letters, digits, . _ -)`);
      const data = read();
      const { name, ...rest } = p;
      const stored: StoredProfile = Object.fromEntries(
        Object.entries(rest).filter(([, v]) => v !== undefined && v !== null && v !== ''),
      ) as unknown as StoredProfile;
      const profiles = { ...(data.profiles ?? {}), [name]: stored };
      const makeDefault = o.makeDefault || !data.default || !data.profiles?.[data.default];
      write({ ...data, profiles, ...(makeDefault ? { default: name } : {}) });
    },
    remove(name) {
      const data = read();
      if (!data.profiles?.[name]) return false;
      const { [name]: _gone, ...profiles } = data.profiles;
      const next: ConfigData = { ...data, profiles };
      if (next.default === name) delete next.default;
      write(next);
      return true;
    },
    use(name) {
      const data = read();
      if (!data.profiles?.[name]) throw new Error(`no profile named "${name}"`);
      write({ ...data, default: name });
    },
  };
}
