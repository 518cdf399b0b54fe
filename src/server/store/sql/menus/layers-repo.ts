import type { MenuDef } from '../../../domain/menus.js';
import type {
  NewSnapshot,
  PublicationRow,
  PublishLogEntry,
  Snapshot,
  SnapshotHead,
} from '../../menus/layers-repo.js';
import { iso, json, q, type Sql } from '../query.js';

const PUBLISHED =
  'business_id = ? AND (CAST(? AS BIGINT) IS NULL OR brand_id = ?) AND (CAST(? AS BIGINT) IS NULL OR branch_id = ?)';

const L = {
  tree: q('SELECT tree FROM menu_stores WHERE brand_id = ? AND branch_id = ? AND business_id = ?'),
  saveTree: q(
    `INSERT INTO menu_stores (brand_id, branch_id, business_id, tree, synced_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (brand_id, branch_id) DO UPDATE SET tree = excluded.tree, updated_at = excluded.updated_at,
       synced_at = CASE WHEN CAST(? AS BOOLEAN) THEN excluded.synced_at ELSE menu_stores.synced_at END
     WHERE menu_stores.business_id = excluded.business_id`,
  ),
  head: q(
    `SELECT s.revision, COALESCE(v.version, 0) AS "stateVersion" FROM menu_snapshots s
       JOIN branches b ON b.id = s.branch_id AND b.deleted_at IS NULL
       JOIN branch_brands bb ON bb.branch_id = s.branch_id AND bb.brand_id = s.brand_id
       LEFT JOIN menu_branch_state v ON v.branch_id = s.branch_id
     WHERE s.brand_id = ? AND s.branch_id = ? AND s.business_id = ?`,
  ),
  template: q('SELECT template FROM menu_snapshots WHERE brand_id = ? AND branch_id = ? AND business_id = ?'),
  snapshot: q(
    'SELECT source, version, published_at FROM menu_snapshots WHERE brand_id = ? AND branch_id = ? AND business_id = ?',
  ),
  writeSnapshot: q(
    `INSERT INTO menu_snapshots (brand_id, branch_id, business_id, version, published_at, revision, source, template)
     VALUES (?, ?, ?, ?, ?, 1, ?, ?)
     ON CONFLICT (brand_id, branch_id) DO UPDATE SET version = excluded.version, published_at = excluded.published_at,
       revision = menu_snapshots.revision + 1, source = excluded.source, template = excluded.template
     WHERE menu_snapshots.business_id = excluded.business_id`,
  ),
  // The brand is this business's (the caller checked): the version row has no business column.
  nextVersion: q(
    `INSERT INTO menu_brand_versions (brand_id, version) SELECT id, 1 FROM brands WHERE id = ? AND business_id = ?
     ON CONFLICT (brand_id) DO UPDATE SET version = menu_brand_versions.version + 1 RETURNING version`,
  ),
  log: q(
    `INSERT INTO menu_publish_log (business_id, brand_id, branch_id, version, provider_id, status, items, published_at)
     VALUES (?, ?, ?, ?, ?, 'shipped', ?, ?)`,
  ),
  count: q(`SELECT count(*) FROM menu_publish_log WHERE ${PUBLISHED}`),
  page: q(
    `SELECT id, brand_id, branch_id, version, provider_id, status, items, published_at FROM menu_publish_log
     WHERE ${PUBLISHED} ORDER BY id DESC LIMIT ? OFFSET ?`,
  ),
};

type StoredSnapshot = Omit<Snapshot, 'source'> & { source: unknown };

export class SqlMenuLayers {
  constructor(
    private readonly db: Sql,
    private readonly businessId: number,
  ) {}

  async storeLayer(brandId: number, branchId: number): Promise<MenuDef | null> {
    await this.db.lockBrandLayers?.(brandId);
    const t = await this.db.value<unknown>(L.tree, [brandId, branchId, this.businessId]);
    return t === undefined ? null : json<MenuDef>(t);
  }

  /** `synced`: a sync wrote it (its synced_at moves); otherwise a store-level edit. */
  async saveStoreLayer(
    brandId: number,
    branchId: number,
    menu: MenuDef,
    now: number,
    synced: boolean,
  ): Promise<void> {
    await this.db.lockBrandLayers?.(brandId);
    const at = iso(now);
    await this.db.run(L.saveTree, [
      brandId,
      branchId,
      this.businessId,
      JSON.stringify(menu),
      at,
      at,
      synced ? 1 : 0,
    ]);
  }

  /** Present when a snapshot exists for a live branch that still carries the brand. */
  snapshotHead(brandId: number, branchId: number): Promise<SnapshotHead | undefined> {
    return this.db.get(L.head, [brandId, branchId, this.businessId]);
  }

  snapshotTemplate(brandId: number, branchId: number): Promise<string | undefined> {
    return this.db.value(L.template, [brandId, branchId, this.businessId]);
  }

  async snapshot(brandId: number, branchId: number): Promise<Snapshot | undefined> {
    const r = await this.db.get<StoredSnapshot>(L.snapshot, [brandId, branchId, this.businessId]);
    return r && { version: r.version, published_at: r.published_at, source: json<MenuDef>(r.source) };
  }

  async writeSnapshot(brandId: number, branchId: number, s: NewSnapshot): Promise<void> {
    await this.db.run(L.writeSnapshot, [
      brandId,
      branchId,
      this.businessId,
      s.version,
      s.published_at,
      JSON.stringify(s.source),
      s.template,
    ]);
  }

  /** The brand's next publish version (bumped and kept). */
  async nextVersion(brandId: number): Promise<number> {
    const [r] = await this.db.write<{ version: number }>(L.nextVersion, [brandId, this.businessId]);
    return r?.version as number;
  }

  async logPublish(e: PublishLogEntry): Promise<void> {
    await this.db.run(L.log, [
      this.businessId,
      e.brand_id,
      e.branch_id,
      e.version,
      e.provider_id,
      e.items,
      e.published_at,
    ]);
  }

  /** Newest first. */
  async publications(
    f: { brandId?: number | undefined; branchId?: number | undefined },
    limit: number,
    offset: number,
  ): Promise<{ total: number; results: PublicationRow[] }> {
    const brand = f.brandId ?? null;
    const branch = f.branchId ?? null;
    const args = [this.businessId, brand, brand, branch, branch];
    const total = (await this.db.value<number>(L.count, args)) ?? 0;
    const results = await this.db.all<PublicationRow>(L.page, [...args, limit, offset]);
    return { total, results };
  }
}
