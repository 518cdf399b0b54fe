// The store layers (the definition synced into one brand × branch) and the published snapshots
// built from them, with the per-brand publish version and the publish log.
import type { MenuDef } from '../../domain/menus.js';

export interface SnapshotHead {
  /** Changes on every rewrite of the snapshot: caches of its parsed template key on it. */
  revision: number;
  /** Changes on every item-state change at the branch: caches of a rendering key on it. */
  stateVersion: number;
}

export interface Snapshot {
  version: number;
  published_at: string;
  /** The store layer it was built from (enable toggles patch it and rebuild). */
  source: MenuDef;
}

export interface NewSnapshot extends Snapshot {
  /** The serialised tree with placeholders for live item state (domain/menus.ts). */
  template: string;
}

export interface PublishLogEntry {
  brand_id: number;
  branch_id: number;
  version: number;
  provider_id: number;
  items: number;
  published_at: string;
}

export interface PublicationRow extends PublishLogEntry {
  id: number;
  status: 'shipped';
}
