import { chmodSync, mkdirSync } from 'node:fs';
import Conf from 'conf';
import {
  type ConfigData,
  listProfiles,
  type Profile,
  profileFrom,
  profileSecrets,
  readConfigFile,
  type StoredProfile,
  storageOf,
} from './profile-file.js';
import { CONFIG_FILE_NAME, configFilePath, defaultConfigDir } from './paths.js';
import {
  type Keyring,
  KeyringError,
  keyringAccount,
  keyringCall,
  openKeyring,
  type ProfileSecrets,
  requireKeyring,
  type SecretStorage,
} from './secret-store.js';
export type { SecretStorage } from './secret-store.js';

interface SaveOptions {
  makeDefault?: boolean;
  /**
   * Where the secrets go. Default: where the profile being replaced kept them, else the file.
   * Commands that take `--storage` decide `auto` themselves (see `defaultStorage`).
   */
  storage?: SecretStorage;
}

export interface SaveResult {
  storage: SecretStorage;
  /** The keyring used, when the secrets went there. */
  keyring?: string;
  /** Things a person should know (an old keyring entry that could not be deleted). */
  warnings: string[];
}

interface ProfileStore {
  list(): Profile[];
  /** The profile as stored: a keyring profile comes without its secrets (see `secrets`). */
  get(name: string): Profile | undefined;
  /** The secrets of a profile, from the file or the OS keyring. */
  secrets(name: string): ProfileSecrets;
  /**
   * Adds or replaces the profile; the first profile saved becomes the default. Secrets not given
   * (`secret`/`webhook_secret` undefined) keep their current value, wherever it is. Secrets are
   * never in both places: moving to the file deletes the keyring entry, moving to the keyring
   * drops them from the file.
   */
  save(p: Profile, opts?: SaveOptions): SaveResult;
  /** Moves a profile's secrets; `changed` is false when they were there already. */
  move(name: string, to: SecretStorage): SaveResult & { changed: boolean };
  /**
   * Removes the profile and its keyring entry. When the keyring cannot be reached, the profile is
   * still removed if `onKeyringError` is given (it is told what was left behind), else nothing is.
   */
  remove(name: string, opts?: { onKeyringError?: (message: string) => void }): boolean;
  /** Makes `name` the default; throws if it does not exist. */
  use(name: string): void;
  defaultName(): string | undefined;
  /** The config file. */
  path: string;
  /** The folder of the config file. */
  dir: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isValidProfileName(name: string): boolean {
  return NAME.test(name);
}

/** What `--storage` means when not given: the keyring where one can be reached, else the file. */
export function defaultStorage(env: NodeJS.ProcessEnv): { storage: SecretStorage; reason?: string } {
  const k = openKeyring(env);
  return k.available ? { storage: 'keyring' } : { storage: 'file', reason: k.reason };
}

/**
 * The profile store: one JSON file (`config.json`, mode 0600) in `PARTNER_CONFIG_DIR` or the
 * per-user config folder, and for profiles that say so, one OS keyring entry each holding the
 * secrets. Writes go through conf (atomic rename, file mode); reads parse the file afresh each
 * time so two processes never act on a stale copy.
 */
export function openProfiles(opts: { configDir?: string; env?: NodeJS.ProcessEnv } = {}): ProfileStore {
  const env = opts.env ?? process.env;
  const dir = opts.configDir ?? defaultConfigDir(env);
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
  const accountOf = (p: Pick<Profile, 'name' | 'keyring_account'>) =>
    p.keyring_account ?? keyringAccount(dir, p.name);
  const keyringFor = (doing: string): Keyring =>
    requireKeyring(env, (why) => `${doing}: no OS keyring can be reached here (${why})`);

  const store: ProfileStore = {
    path,
    dir,
    list: () => listProfiles(read()),
    get: (name) => profileFrom(name, read().profiles?.[name]),
    secrets(name) {
      const p = store.get(name);
      if (!p) throw new Error(`no profile named "${name}"`);
      return profileSecrets(dir, env, p);
    },
    defaultName() {
      const data = read();
      return data.default && data.profiles?.[data.default] ? data.default : undefined;
    },
    save(p, o = {}) {
      if (!isValidProfileName(p.name))
        throw new Error(`invalid profile name "${p.name}" (letters, digits, . _ -)`);
      const data = read();
      const old = profileFrom(p.name, data.profiles?.[p.name]);
      const storage = o.storage ?? (old ? storageOf(old) : 'file');
      const warnings: string[] = [];
      // Secrets not given keep their value: read them from wherever the old profile kept them.
      const keepsEntry =
        old !== undefined &&
        storageOf(old) === 'keyring' &&
        storage === 'keyring' &&
        p.secret === undefined &&
        p.webhook_secret === undefined;
      let secrets: ProfileSecrets = { secret: p.secret, webhook_secret: p.webhook_secret };
      if (old && !keepsEntry && (secrets.secret === undefined || secrets.webhook_secret === undefined)) {
        const kept = profileSecrets(dir, env, old);
        secrets = {
          secret: secrets.secret ?? kept.secret,
          webhook_secret: secrets.webhook_secret ?? kept.webhook_secret,
        };
      }
      const {
        name,
        secret: _s,
        webhook_secret: _w,
        storage: _storage,
        keyring_account: _account,
        ...meta
      } = p;
      let keyringName: string | undefined;
      let stored: Record<string, unknown>;
      if (keepsEntry) {
        // Only the profile's other fields change (e.g. a default brand): the entry stays as it is.
        stored = { ...meta, storage: 'keyring', keyring_account: accountOf(old!) };
      } else if (storage === 'keyring') {
        const keyring = keyringFor(`saving profile "${name}" to the OS keyring`);
        const account = accountOf({ name, keyring_account: old?.keyring_account });
        // The keyring first: a crash before the file is written leaves the old profile working.
        keyringCall(`writing the secret of profile "${name}" to the ${keyring.name}`, () => {
          keyring.write(account, secrets);
          const back = keyring.read(account);
          if (back?.secret !== secrets.secret || back?.webhook_secret !== secrets.webhook_secret)
            throw new KeyringError('the entry read back differs from what was written');
        });
        keyringName = keyring.name;
        stored = { ...meta, storage: 'keyring', keyring_account: account };
      } else {
        stored = { ...meta, secret: secrets.secret, webhook_secret: secrets.webhook_secret };
      }
      const clean = Object.fromEntries(
        Object.entries(stored).filter(([, v]) => v !== undefined && v !== null && v !== ''),
      ) as unknown as StoredProfile;
      const profiles = { ...(data.profiles ?? {}), [name]: clean };
      const makeDefault = o.makeDefault || !data.default || !data.profiles?.[data.default];
      write({ ...data, profiles, ...(makeDefault ? { default: name } : {}) });
      // Then the old keyring entry, now that the file holds the secrets.
      if (old && storageOf(old) === 'keyring' && storage === 'file') {
        const problem = deleteEntry(old);
        if (problem) warnings.push(problem);
      }
      return { storage, ...(keyringName ? { keyring: keyringName } : {}), warnings };
    },
    move(name, to) {
      const p = store.get(name);
      if (!p) throw new Error(`no profile named "${name}"`);
      const from = storageOf(p);
      if (from === to) return { storage: to, changed: false, warnings: [] };
      const secrets = profileSecrets(dir, env, p);
      const result = store.save({ ...p, ...secrets }, { storage: to });
      return { ...result, changed: true };
    },
    remove(name, o = {}) {
      const data = read();
      const old = profileFrom(name, data.profiles?.[name]);
      if (!old || !data.profiles) return false;
      if (storageOf(old) === 'keyring') {
        const problem = deleteEntry(old);
        if (problem) {
          if (!o.onKeyringError) throw new KeyringError(problem);
          o.onKeyringError(problem);
        }
      }
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

  /** Deletes a profile's keyring entry; a sentence saying what was left behind when it cannot. */
  function deleteEntry(p: Profile): string | undefined {
    const account = accountOf(p);
    const k = openKeyring(env);
    const left = `the keyring entry "${account}" (service "partner") of profile "${p.name}" could not be deleted`;
    if (!k.available) return `${left}: no OS keyring can be reached here (${k.reason}); delete it there`;
    try {
      k.keyring.remove(account);
      return undefined;
    } catch (err) {
      return `${left}: ${(err as Error).message}`;
    }
  }

  return store;
}
