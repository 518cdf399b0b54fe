import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

// The push state (docs/menu-push.md, docs/library.md): per target — server base URL, business, brand, branch set
// and menu file — the ids the file's keys were given, plus the record of an unfinished push. It
// is a cache: ids are checked against the business tree on every push, and whatever it lacks is
// found again by SKU or title. One file per target in the user's state dir (never beside the menu
// file, never shared by two menu files), mode 0600, written atomically (temp file + rename) after
// every step that changes it. Where the file lives is the caller's choice (the CLI: its state dir).

export type EntityKind = 'sections' | 'categories' | 'items' | 'modifier_groups';
export const ENTITY_KINDS: readonly EntityKind[] = ['sections', 'categories', 'items', 'modifier_groups'];

export interface RunRecord {
  /** Seeds the Idempotency-Keys of this push, so a resumed push replays instead of duplicating. */
  id: string;
  started_at: string;
  /** Authoring steps completed in this run (part of the sync/publish keys). */
  writes: number;
  /**
   * Per step id, how often the server refused it (a 4xx: nothing was applied). Part of the step's
   * key, so a resumed push sends it afresh instead of being replayed the stored refusal.
   */
  refused?: Record<string, number>;
}

/** What a state belongs to. */
export interface TargetId {
  base_url: string;
  business_id: number;
  brand_id: number;
  /** Branches the push syncs and publishes (sorted); null: every branch of the brand. */
  branch_ids: number[] | null;
  /** Absolute path of the menu file. */
  file: string;
}

export interface TargetState extends TargetId {
  ids: Record<EntityKind, Record<string, number>>;
  /** Per item/modifier key: hash of the fields last written (for entries the tree does not show). */
  written?: Record<string, string>;
  /** Present while a push has started writing and not yet published. */
  run?: RunRecord;
  last_push?: { at: string; file: string; version: number | null };
}

export interface StateDoc {
  version: 1;
  targets: Record<string, TargetState>;
}

export function targetId(
  base_url: string,
  business_id: number,
  brand_id: number,
  branch_ids: readonly number[] | undefined,
  file: string,
): TargetId {
  return {
    base_url,
    business_id,
    brand_id,
    branch_ids: branch_ids ? [...branch_ids].sort((a, b) => a - b) : null,
    file,
  };
}

export function targetKey(t: TargetId): string {
  const branches = t.branch_ids ? t.branch_ids.join(',') : 'all';
  return `${t.base_url} business ${t.business_id} brand ${t.brand_id} branches ${branches} file ${t.file}`;
}

export function emptyTarget(
  baseUrl: string,
  businessId: number,
  brandId: number,
  branchIds: readonly number[] | null = null,
  file = '',
): TargetState {
  return {
    ...targetId(baseUrl, businessId, brandId, branchIds ?? undefined, file),
    ids: { sections: {}, categories: {}, items: {}, modifier_groups: {} },
  };
}

/** `<dir>/<menu file name>-<hash of the target>.json`: readable, and one file per target. */
export function statePath(dir: string, t: TargetId): string {
  const name =
    basename(t.file, extname(t.file))
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 40) || 'menu';
  const hash = createHash('sha256').update(targetKey(t)).digest('hex').slice(0, 16);
  return join(dir, `${name}-${hash}.json`);
}

/** A file where a state file was expected that is not one (a typo'd `--state`, a hand-edit gone wrong). */
export class MenuStateError extends Error {
  override readonly name = 'MenuStateError';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/** The state document at `path`; undefined when there is no file. Throws MenuStateError for another file. */
export function readStateDoc(path: string): StateDoc | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  const d = doc as Partial<StateDoc> | undefined;
  if (d?.version !== 1 || typeof d.targets !== 'object' || d.targets === null) {
    throw new MenuStateError(
      path,
      `${path} is not a partner menu state file; move it away or delete it (ids are found again by SKU and title)`,
    );
  }
  return d as StateDoc;
}

export class StateFile {
  private doc: StateDoc;

  private constructor(
    readonly path: string,
    doc: StateDoc,
    /** False until the file exists on disk. */
    readonly existed: boolean,
  ) {
    this.doc = doc;
  }

  static open(path: string): StateFile {
    const doc = readStateDoc(path);
    return new StateFile(path, doc ?? { version: 1, targets: {} }, doc !== undefined);
  }

  /** A state kept in memory only (path ''): a push planned with it cannot resume in another process. */
  static memory(): StateFile {
    return new StateFile('', { version: 1, targets: {} }, false);
  }

  /** The state of one target (a copy-free live object: mutate, then save()). */
  target(id: TargetId): TargetState {
    const k = targetKey(id);
    let t = this.doc.targets[k];
    if (!t) {
      t = { ...id, ids: { sections: {}, categories: {}, items: {}, modifier_groups: {} } };
      this.doc.targets[k] = t;
    }
    for (const kind of ENTITY_KINDS) t.ids[kind] ??= {};
    return t;
  }

  /** Replaces the state of a target (a reset, or one taken over from an old state file). */
  replace(id: TargetId, from?: Omit<TargetState, keyof TargetId>): TargetState {
    delete this.doc.targets[targetKey(id)];
    const t = this.target(id);
    if (from) {
      for (const kind of ENTITY_KINDS) t.ids[kind] = { ...from.ids?.[kind] };
      if (from.written) t.written = { ...from.written };
      if (from.run) t.run = { ...from.run };
      if (from.last_push) t.last_push = { ...from.last_push };
    }
    return t;
  }

  /** Atomic: a crash leaves the old file or the new one, never half of one. Private to the user. */
  save(): void {
    if (this.path === '') return;
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.tmp`);
    try {
      writeFileSync(tmp, `${JSON.stringify(this.doc, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }
}
