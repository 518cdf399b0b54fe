import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../../errors.js';

// The push state file (docs/menu-push.md): per target (base URL, business, brand) the ids the
// file's keys were given, plus the record of an unfinished push. It is a cache: ids are checked
// against the business tree on every push, and whatever it lacks is found again by SKU or title.
// Written atomically (temp file + rename) after every step that changes it.

export const STATE_FILE_NAME = '.partner-menu-state.json';

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

export interface TargetState {
  base_url: string;
  business_id: number;
  brand_id: number;
  ids: Record<EntityKind, Record<string, number>>;
  /** Per item/modifier key: hash of the fields last written (for entries the tree does not show). */
  written?: Record<string, string>;
  /** Present while a push has started writing and not yet published. */
  run?: RunRecord;
  last_push?: { at: string; file: string; version: number | null };
}

interface StateDoc {
  version: 1;
  targets: Record<string, TargetState>;
}

export function defaultStatePath(menuPath: string): string {
  return join(dirname(menuPath), STATE_FILE_NAME);
}

export function targetKey(baseUrl: string, businessId: number, brandId: number): string {
  return `${baseUrl} business ${businessId} brand ${brandId}`;
}

export function emptyTarget(baseUrl: string, businessId: number, brandId: number): TargetState {
  return {
    base_url: baseUrl,
    business_id: businessId,
    brand_id: brandId,
    ids: { sections: {}, categories: {}, items: {}, modifier_groups: {} },
  };
}

export class StateFile {
  private doc: StateDoc;

  private constructor(
    readonly path: string,
    doc: StateDoc,
  ) {
    this.doc = doc;
  }

  static open(path: string): StateFile {
    let text: string | undefined;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text === undefined) return new StateFile(path, { version: 1, targets: {} });
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      doc = undefined;
    }
    const d = doc as Partial<StateDoc> | undefined;
    if (d?.version !== 1 || typeof d.targets !== 'object' || d.targets === null) {
      throw new UsageError(
        `${path} is not a partner menu state file; move it away or delete it (ids are found again by SKU and title)`,
      );
    }
    return new StateFile(path, d as StateDoc);
  }

  /** The state of one target (a copy-free live object: mutate, then save()). */
  target(baseUrl: string, businessId: number, brandId: number): TargetState {
    const k = targetKey(baseUrl, businessId, brandId);
    let t = this.doc.targets[k];
    if (!t) {
      t = emptyTarget(baseUrl, businessId, brandId);
      this.doc.targets[k] = t;
    }
    for (const kind of ENTITY_KINDS) t.ids[kind] ??= {};
    return t;
  }

  /** Atomic: a crash leaves the old file or the new one, never half of one. */
  save(): void {
    const tmp = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.tmp`);
    try {
      writeFileSync(tmp, `${JSON.stringify(this.doc, null, 2)}\n`);
      renameSync(tmp, this.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }
}
