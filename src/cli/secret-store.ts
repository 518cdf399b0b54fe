import { createRequire } from 'node:module';
import { resolve } from 'node:path';

// Profile secrets in the OS keyring: the macOS Keychain, the Windows Credential Manager, the
// Secret Service (GNOME Keyring, KWallet) on Linux, through @napi-rs/keyring. The native binding
// is loaded only when a profile keeps its secret there or a command asks for the keyring, so
// commands on file profiles never pay for it (docs/cli.md, "Where secrets live").

/** The keyring's service name of every entry; the account names the profile and its config file. */
const KEYRING_SERVICE = 'partner';

export type SecretStorage = 'keyring' | 'file';

/** What one keyring entry holds (as JSON): the API secret and, when set, the webhook secret. */
export interface ProfileSecrets {
  secret?: string | undefined;
  webhook_secret?: string | undefined;
}

/** The keyring could not be reached, or an entry a profile relies on is missing. Exit 1. */
export class KeyringError extends Error {
  override readonly name = 'KeyringError';
}

export interface Keyring {
  /** What it is, for people: `Secret Service`, `macOS Keychain`, `Windows Credential Manager`. */
  readonly name: string;
  read(account: string): ProfileSecrets | undefined;
  write(account: string, secrets: ProfileSecrets): void;
  /** True when there was an entry to delete. */
  remove(account: string): boolean;
}

type KeyringState = { available: true; keyring: Keyring } | { available: false; reason: string };

/**
 * The account of a profile's entry: its name and the config file's folder, so two config dirs
 * (PARTNER_CONFIG_DIR) with a profile of the same name never share or delete each other's secret.
 */
export function keyringAccount(configDir: string, profile: string): string {
  return `${profile}@${resolve(configDir)}`;
}

interface EntryLike {
  getPassword(): string | null;
  setPassword(password: string): void;
  deleteCredential(): boolean;
}
interface KeyringModule {
  Entry: new (service: string, account: string, options?: unknown) => EntryLike;
}

const OFF = /^(off|0|false|no|none)$/i;

function platformName(): string {
  if (process.platform === 'darwin') return 'macOS Keychain';
  if (process.platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service';
}

/** keyring-rs messages end in a Rust error kind; keep the sentence a person can act on. */
function cleanMessage(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .replace(/\s+/g, ' ')
    .trim();
}

let loaded: KeyringModule | Error | undefined;

function load(): KeyringModule | Error {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)('@napi-rs/keyring') as KeyringModule;
    } catch (err) {
      loaded = err instanceof Error ? err : new Error(String(err));
    }
  }
  return loaded;
}

/**
 * The OS keyring, when one can be reached from here. `PARTNER_KEYRING=off` turns it off. On Linux
 * the Secret Service is reached over the D-Bus session bus, so without `DBUS_SESSION_BUS_ADDRESS`
 * (SSH sessions, containers, CI) there is none, and the binding is not even loaded. Entries are
 * pinned to the Secret Service there: the kernel keyring, the binding's other Linux store, lives
 * only as long as the login session, and a profile's secret must outlive it.
 */
export function openKeyring(env: NodeJS.ProcessEnv, o: { probe?: boolean } = {}): KeyringState {
  const setting = env.PARTNER_KEYRING;
  if (setting && OFF.test(setting.trim()))
    return { available: false, reason: `turned off by PARTNER_KEYRING=${setting}` };
  const linuxLike = process.platform !== 'darwin' && process.platform !== 'win32';
  if (linuxLike && !env.DBUS_SESSION_BUS_ADDRESS)
    return {
      available: false,
      reason: 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service',
    };
  const mod = load();
  if (mod instanceof Error)
    return { available: false, reason: `the keyring binding did not load: ${cleanMessage(mod)}` };
  const options = linuxLike ? { linux: { store: 'secret-service' } } : undefined;
  const entry = (account: string) => new mod.Entry(KEYRING_SERVICE, account, options);
  // Reading an entry that does not exist: an unreachable or refusing store throws here. Skipped
  // when the caller's own first call will tell (reading a profile's secret: one round trip less).
  if (o.probe !== false) {
    try {
      entry('partner keyring probe').getPassword();
    } catch (err) {
      return { available: false, reason: `${platformName()}: ${cleanMessage(err)}` };
    }
  }
  const keyring: Keyring = {
    name: platformName(),
    read(account) {
      const text = entry(account).getPassword();
      if (text === null) return undefined;
      try {
        const v = JSON.parse(text) as ProfileSecrets;
        if (v && typeof v === 'object') return v;
      } catch {
        // Not ours in JSON: an entry typed in by hand holds the API secret itself.
      }
      return { secret: text };
    },
    write(account, secrets) {
      const value: ProfileSecrets = {};
      if (secrets.secret) value.secret = secrets.secret;
      if (secrets.webhook_secret) value.webhook_secret = secrets.webhook_secret;
      entry(account).setPassword(JSON.stringify(value));
    },
    remove(account) {
      return entry(account).deleteCredential();
    },
  };
  return { available: true, keyring };
}

/** The keyring, or a KeyringError whose message `explain` writes from the reason there is none. */
export function requireKeyring(
  env: NodeJS.ProcessEnv,
  explain: (reason: string) => string,
  o: { probe?: boolean } = {},
): Keyring {
  const k = openKeyring(env, o);
  if (!k.available) throw new KeyringError(explain(k.reason));
  return k.keyring;
}

/** Runs a keyring call, turning the binding's failures into a KeyringError saying what was done. */
export function keyringCall<T>(doing: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof KeyringError) throw err;
    throw new KeyringError(`${doing}: ${cleanMessage(err)}`);
  }
}
