import type { MenuDef } from '../../../domain/menus.js';
import type {
  MenuLayers,
  NewSnapshot,
  PublicationRow,
  PublishLogEntry,
  Snapshot,
  SnapshotHead,
} from '../../menus/layers-repo.js';
import type { SqliteTx } from '../tx.js';

const iso = (ms: number) => new Date(ms).toISOString();

export class SqliteMenuLayers implements MenuLayers {
  constructor(
    private readonly tx: SqliteTx,
    private readonly businessId: number,
  ) {}

  async storeLayer(brandId: number, branchId: number): Promise<MenuDef | null> {
    const t = this.tx
      .select('SELECT tree FROM menu_stores WHERE brand_id = ? AND branch_id = ? AND business_id = ?')
      .pluck()
      .get(brandId, branchId, this.businessId) as string | undefined;
    return t === undefined ? null : (JSON.parse(t) as MenuDef);
  }

  async saveStoreLayer(
    brandId: number,
    branchId: number,
    menu: MenuDef,
    now: number,
    synced: boolean,
  ): Promise<void> {
    const at = iso(now);
    this.tx
      .change(
        `INSERT INTO menu_stores (brand_id, branch_id, business_id, tree, synced_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (brand_id, branch_id) DO UPDATE SET tree = excluded.tree, updated_at = excluded.updated_at,
           synced_at = CASE WHEN ? THEN excluded.synced_at ELSE menu_stores.synced_at END
         WHERE menu_stores.business_id = excluded.business_id`,
      )
      .run(brandId, branchId, this.businessId, JSON.stringify(menu), at, at, synced ? 1 : 0);
  }

  async snapshotHead(brandId: number, branchId: number): Promise<SnapshotHead | undefined> {
    return this.tx
      .select(
        `SELECT s.revision, COALESCE(v.version, 0) AS stateVersion FROM menu_snapshots s
           JOIN branches b ON b.id = s.branch_id AND b.deleted_at IS NULL
           JOIN branch_brands bb ON bb.branch_id = s.branch_id AND bb.brand_id = s.brand_id
           LEFT JOIN menu_branch_state v ON v.branch_id = s.branch_id
         WHERE s.brand_id = ? AND s.branch_id = ? AND s.business_id = ?`,
      )
      .get(brandId, branchId, this.businessId) as SnapshotHead | undefined;
  }

  async snapshotTemplate(brandId: number, branchId: number): Promise<string | undefined> {
    return this.tx
      .select('SELECT template FROM menu_snapshots WHERE brand_id = ? AND branch_id = ? AND business_id = ?')
      .pluck()
      .get(brandId, branchId, this.businessId) as string | undefined;
  }

  async snapshot(brandId: number, branchId: number): Promise<Snapshot | undefined> {
    const r = this.tx
      .select(
        'SELECT source, version, published_at FROM menu_snapshots WHERE brand_id = ? AND branch_id = ? AND business_id = ?',
      )
      .get(brandId, branchId, this.businessId) as
      | { source: string; version: number; published_at: string }
      | undefined;
    return r && { version: r.version, published_at: r.published_at, source: JSON.parse(r.source) as MenuDef };
  }

  async writeSnapshot(brandId: number, branchId: number, s: NewSnapshot): Promise<void> {
    this.tx
      .change(
        `INSERT INTO menu_snapshots (brand_id, branch_id, business_id, version, published_at, revision, source, template) VALUES (?, ?, ?, ?, ?, 1, ?, ?)
         ON CONFLICT (brand_id, branch_id) DO UPDATE SET version = excluded.version, published_at = excluded.published_at,
           revision = menu_snapshots.revision + 1, source = excluded.source, template = excluded.template
         WHERE menu_snapshots.business_id = excluded.business_id`,
      )
      .run(
        brandId,
        branchId,
        this.businessId,
        s.version,
        s.published_at,
        JSON.stringify(s.source),
        s.template,
      );
  }

  async nextVersion(brandId: number): Promise<number> {
    // The brand is this business's (the caller checked): the version row has no business column.
    return this.tx
      .change(
        `INSERT INTO menu_brand_versions (brand_id, version) SELECT id, 1 FROM brands WHERE id = ? AND business_id = ?
         ON CONFLICT (brand_id) DO UPDATE SET version = version + 1 RETURNING version`,
      )
      .pluck()
      .get(brandId, this.businessId) as number;
  }

  async logPublish(e: PublishLogEntry): Promise<void> {
    this.tx
      .change(
        "INSERT INTO menu_publish_log (business_id, brand_id, branch_id, version, provider_id, status, items, published_at) VALUES (?, ?, ?, ?, ?, 'shipped', ?, ?)",
      )
      .run(this.businessId, e.brand_id, e.branch_id, e.version, e.provider_id, e.items, e.published_at);
  }

  async publications(
    f: { brandId?: number | undefined; branchId?: number | undefined },
    limit: number,
    offset: number,
  ): Promise<{ total: number; results: PublicationRow[] }> {
    const brand = f.brandId ?? null;
    const branch = f.branchId ?? null;
    const where = 'business_id = ? AND (? IS NULL OR brand_id = ?) AND (? IS NULL OR branch_id = ?)';
    const args = [this.businessId, brand, brand, branch, branch];
    const total = this.tx
      .select(`SELECT count(*) FROM menu_publish_log WHERE ${where}`)
      .pluck()
      .get(...args) as number;
    const results = this.tx
      .select(
        `SELECT id, brand_id, branch_id, version, provider_id, status, items, published_at FROM menu_publish_log WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`,
      )
      .all(...args, limit, offset) as PublicationRow[];
    return { total, results };
  }
}
