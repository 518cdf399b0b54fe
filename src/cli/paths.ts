import { homedir } from 'node:os';
import { join } from 'node:path';

// Per-user folders, env-paths style but without the `-nodejs` suffix so the paths are guessable.
// `partner local start` (the server side) and the CLI use the same rules.

type Env = NodeJS.ProcessEnv;

function home(env: Env): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/** Where `local start` keeps its database and `local.json`: `$PARTNER_DATA_DIR` wins. */
export function defaultDataDir(env: Env = process.env): string {
  if (env.PARTNER_DATA_DIR) return env.PARTNER_DATA_DIR;
  if (process.platform === 'win32')
    return join(env.LOCALAPPDATA || join(home(env), 'AppData', 'Local'), 'partner', 'Data');
  return join(env.XDG_DATA_HOME || join(home(env), '.local', 'share'), 'partner');
}

/** Where the profiles file lives: `$PARTNER_CONFIG_DIR` relocates it. */
export function defaultConfigDir(env: Env = process.env): string {
  if (env.PARTNER_CONFIG_DIR) return env.PARTNER_CONFIG_DIR;
  if (process.platform === 'win32')
    return join(env.APPDATA || join(home(env), 'AppData', 'Roaming'), 'partner', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home(env), '.config'), 'partner');
}

export const CONFIG_FILE_NAME = 'config.json';

export function configFilePath(configDir: string): string {
  return join(configDir, CONFIG_FILE_NAME);
}

/** Where the CLI keeps state it can rebuild (menu push ids): `$XDG_STATE_HOME/partner` on Unix. */
export function defaultStateDir(env: Env = process.env): string {
  if (process.platform === 'win32')
    return join(env.LOCALAPPDATA || join(home(env), 'AppData', 'Local'), 'partner', 'State');
  return join(env.XDG_STATE_HOME || join(home(env), '.local', 'state'), 'partner');
}
