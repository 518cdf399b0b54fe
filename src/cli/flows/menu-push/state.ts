import { readdirSync } from 'node:fs';
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
  targetKey,
} from '../../../menu/state.js';

// Where the CLI keeps push state files (its state dir), the older state file beside menu files,
// and the CLI's reading of a broken state file (exit 2). The state itself is src/menu/state.ts.

export {
  emptyTarget,
  type RunRecord,
  StateFile,
  statePath,
  type TargetState,
  targetId,
} from '../../../menu/state.js';

/** The name of the state file that older versions kept beside the menu file (shared by a folder). */
const OLD_STATE_FILE_NAME = '.partner-menu-state.json';

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

/** A push of the same brand, recorded in some state file, that wrote and did not publish. */
export interface Unfinished {
  path: string;
  target: TargetState;
}

/** True when a sync/publish to `by` (null: every branch) reaches every branch of `of`. */
function branchesCover(by: readonly number[] | null, of: readonly number[] | null): boolean {
  if (by === null) return true;
  if (of === null) return false;
  return of.every((b) => by.includes(b));
}

/**
 * The unfinished pushes of the same server, business and brand as `t` — under another branch set
 * or from another menu file — whose branches a push to `t`'s branches covers: that push's sync
 * and publish finish them. Read from every state file of `dir` (the CLI keeps one per target)
 * and from `extra` (a `--state FILE`, which may hold several targets). Unreadable files are
 * skipped: they are reported when their own target is pushed.
 */
export function unfinishedCovered(dir: string, t: TargetId, extra?: string): Unfinished[] {
  const paths = new Set<string>();
  try {
    for (const name of readdirSync(dir)) if (name.endsWith('.json')) paths.add(join(dir, name));
  } catch {
    // No state dir yet: nothing unfinished.
  }
  if (extra) paths.add(extra);
  const own = targetKey(t);
  const found: Unfinished[] = [];
  for (const path of paths) {
    let doc: StateDoc | undefined;
    try {
      doc = readStateDoc(path);
    } catch {
      continue;
    }
    for (const [key, other] of Object.entries(doc?.targets ?? {})) {
      if (key === own || !other.run) continue;
      if (
        other.base_url !== t.base_url ||
        other.business_id !== t.business_id ||
        other.brand_id !== t.brand_id
      )
        continue;
      if (branchesCover(t.branch_ids, other.branch_ids ?? null)) found.push({ path, target: other });
    }
  }
  return found;
}

/** After this push published: the covered unfinished pushes are finished (their ids are kept). */
export function markFinished(done: readonly Unfinished[], open: StateFile): void {
  const files = new Map<string, StateFile>([[open.path, open]]);
  for (const u of done) {
    let f = files.get(u.path);
    if (!f) {
      try {
        f = StateFile.open(u.path);
      } catch {
        continue;
      }
      files.set(u.path, f);
    }
    delete f.target(u.target).run;
  }
  for (const f of files.values()) f.save();
}
