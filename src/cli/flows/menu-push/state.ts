import { dirname, join } from 'node:path';
import { UsageError } from '../../errors.js';
import { defaultConfigDir, defaultStateDir } from '../../paths.js';
import {
  MenuStateError,
  readStateDoc,
  type StateDoc,
  StateFile,
  type TargetId,
  type TargetState,
} from '../../../menu/state.js';

// Where the CLI keeps push state files (its state dir), the older state file beside menu files,
// and the CLI's reading of a broken state file (exit 2). The state itself is src/menu/state.ts.

export {
  ENTITY_KINDS,
  type EntityKind,
  emptyTarget,
  type RunRecord,
  StateFile,
  statePath,
  type TargetId,
  type TargetState,
  targetId,
  targetKey,
} from '../../../menu/state.js';

/** The name of the state file that older versions kept beside the menu file (shared by a folder). */
export const OLD_STATE_FILE_NAME = '.partner-menu-state.json';

/** StateFile.open, a file that is not a state file being a usage error (exit 2) naming it. */
export function openStateFile(path: string): StateFile {
  try {
    return StateFile.open(path);
  } catch (err) {
    if (err instanceof MenuStateError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * The folder of the state files: beside the profiles when the config dir was moved
 * (`PARTNER_CONFIG_DIR`, or a config dir given to the CLI), else the per-user state dir
 * (`$XDG_STATE_HOME/partner`, default `~/.local/state/partner`).
 */
export function menuStateDir(env: NodeJS.ProcessEnv, configDir: string): string {
  const moved = Boolean(env.PARTNER_CONFIG_DIR) || configDir !== defaultConfigDir(env);
  return join(moved ? configDir : defaultStateDir(env), 'menu-push');
}

/**
 * The old state beside the menu file (keyed by base URL, business and brand, shared by every menu
 * file of the folder) for this target: taken only when its last push was of this very file,
 * since ids of another file's keys would be wrong here.
 */
export function oldStateFor(t: TargetId): { path: string; state?: TargetState } | undefined {
  const path = join(dirname(t.file), OLD_STATE_FILE_NAME);
  let doc: StateDoc | undefined;
  try {
    doc = readStateDoc(path);
  } catch {
    return { path };
  }
  if (!doc) return undefined;
  const old = doc.targets[`${t.base_url} business ${t.business_id} brand ${t.brand_id}`];
  return old?.last_push?.file === t.file ? { path, state: old } : { path };
}
