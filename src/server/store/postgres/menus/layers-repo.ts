// Store layers, snapshots, publish versions and the publish log on PostgreSQL:
// store/sqlite/menus/layers-repo.ts one to one, plus the lock that keeps a brand's sync and
// publish serialisable when several instances share the database.
import type { MenuDef } from '../../../domain/menus.js';
import type {
  MenuLayers,
  NewSnapshot,
  PublicationRow,
  PublishLogEntry,
  Snapshot,
  SnapshotHead,
} from '../../menus/layers-repo.js';
import { iso, json, num } from '../schema/catalog.js';
import type { PgTx } from '../tx.js';

const at = (ms: number) => new Date(ms).toISOString();

/** The advisory-lock class of "a brand's menu layers" ('menu' in ASCII); the brand id is the object. */
const LAYERS_LOCK = 0x6d656e75;

interface StoredPublication {
  id: string;
  brand_id: string;
  branch_id: string;
  version: number;
  provider_id: number;
  status: 'shipped';
  items: number;
  published_at: string;
}

export class PgMenuLayers implements MenuLayers {
  /**
   * Brands whose layers this unit has locked (a transaction-scoped lock is taken once). A
   * savepoint rolled back releases the locks taken inside it; this relies on nothing reading a
   * layer again after a failed `attempt()` in the same unit (the request's handler is the whole
   * attempt, and what follows it only stores the answer).
   */
  private readonly locked = new Set<number>();

  constructor(
    private readonly tx: PgTx,
    private readonly businessId: number,
  ) {}

  /**
   * Sync, publish, store-level edits and enable toggles all read a store layer, change it (or
   * build snapshots and the next version from it) and write back: under READ COMMITTED two
   * instances doing that for one brand at once would each work from what the other has not
   * committed yet (a publish shipping a layer a concurrent sync has just replaced, under a newer
   * version). So the first layer read of a unit takes a transaction-scoped advisory lock on the
   * brand, which makes those units run one after the other, as SQLite's single writer does.
   * Advisory rather than `SELECT … FOR UPDATE` on the layer rows: the first sync of a branch
   * has no row to lock yet, and one lock per brand cannot deadlock two publishes that name the
   * brand's branches in different orders. The lock is its own statement, so the read after it
   * sees whatever the unit that held it committed.
   */
  private async lockBrand(brandId: number): Promise<void> {
    if (this.locked.has(brandId)) return;
    await this.tx.exec('SELECT pg_advisory_xact_lock($1::int, ($2::bigint % 2147483648)::int)', [
      LAYERS_LOCK,
      brandId,
    ]);
    this.locked.add(brandId);
  }

  async storeLayer(brandId: number, branchId: number): Promise<MenuDef | null> {
    await this.lockBrand(brandId);
    const r = await this.tx.row<{ tree: unknown }>(
      'SELECT tree FROM menu_stores WHERE brand_id = $1 AND branch_id = $2 AND business_id = $3',
      [brandId, branchId, this.businessId],
    );
    return r === undefined ? null : json<MenuDef>(r.tree);
  }

  async saveStoreLayer(
    brandId: number,
    branchId: number,
    menu: MenuDef,
    now: number,
    synced: boolean,
  ): Promise<void> {
    await this.lockBrand(brandId);
    await this.tx.exec(
      `INSERT INTO menu_stores (brand_id, branch_id, business_id, tree, synced_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (brand_id, branch_id) DO UPDATE SET tree = excluded.tree, updated_at = excluded.updated_at,
         synced_at = CASE WHEN $6::boolean THEN excluded.synced_at ELSE menu_stores.synced_at END
       WHERE menu_stores.business_id = excluded.business_id`,
      [brandId, branchId, this.businessId, JSON.stringify(menu), at(now), synced],
    );
  }

  async snapshotHead(brandId: number, branchId: number): Promise<SnapshotHead | undefined> {
    return this.tx.row<SnapshotHead>(
      `SELECT s.revision, COALESCE(v.version, 0) AS "stateVersion" FROM menu_snapshots s
         JOIN branches b ON b.id = s.branch_id AND b.deleted_at IS NULL
         JOIN branch_brands bb ON bb.branch_id = s.branch_id AND bb.brand_id = s.brand_id
         LEFT JOIN menu_branch_state v ON v.branch_id = s.branch_id
       WHERE s.brand_id = $1 AND s.branch_id = $2 AND s.business_id = $3`,
      [brandId, branchId, this.businessId],
    );
  }

  async snapshotTemplate(brandId: number, branchId: number): Promise<string | undefined> {
    const r = await this.tx.row<{ template: string }>(
      'SELECT template FROM menu_snapshots WHERE brand_id = $1 AND branch_id = $2 AND business_id = $3',
      [brandId, branchId, this.businessId],
    );
    return r?.template;
  }

  async snapshot(brandId: number, branchId: number): Promise<Snapshot | undefined> {
    const r = await this.tx.row<{ source: unknown; version: number; published_at: string }>(
      `SELECT source, version, ${iso('published_at')} FROM menu_snapshots
       WHERE brand_id = $1 AND branch_id = $2 AND business_id = $3`,
      [brandId, branchId, this.businessId],
    );
    return r && { version: r.version, published_at: r.published_at, source: json<MenuDef>(r.source) };
  }

  async writeSnapshot(brandId: number, branchId: number, s: NewSnapshot): Promise<void> {
    await this.tx.exec(
      `INSERT INTO menu_snapshots (brand_id, branch_id, business_id, version, published_at, revision, source, template)
       VALUES ($1, $2, $3, $4, $5, 1, $6, $7)
       ON CONFLICT (brand_id, branch_id) DO UPDATE SET version = excluded.version, published_at = excluded.published_at,
         revision = menu_snapshots.revision + 1, source = excluded.source, template = excluded.template
       WHERE menu_snapshots.business_id = excluded.business_id`,
      [brandId, branchId, this.businessId, s.version, s.published_at, JSON.stringify(s.source), s.template],
    );
  }

  async nextVersion(brandId: number): Promise<number> {
    // The brand is this business's (the caller checked): the version row has no business column.
    const [r] = await this.tx.change<{ version: number }>(
      `INSERT INTO menu_brand_versions (brand_id, version) SELECT id, 1 FROM brands WHERE id = $1 AND business_id = $2
       ON CONFLICT (brand_id) DO UPDATE SET version = menu_brand_versions.version + 1 RETURNING version`,
      [brandId, this.businessId],
    );
    return r?.version as number;
  }

  async logPublish(e: PublishLogEntry): Promise<void> {
    await this.tx.exec(
      `INSERT INTO menu_publish_log (business_id, brand_id, branch_id, version, provider_id, status, items, published_at)
       VALUES ($1, $2, $3, $4, $5, 'shipped', $6, $7)`,
      [this.businessId, e.brand_id, e.branch_id, e.version, e.provider_id, e.items, e.published_at],
    );
  }

  async publications(
    f: { brandId?: number | undefined; branchId?: number | undefined },
    limit: number,
    offset: number,
  ): Promise<{ total: number; results: PublicationRow[] }> {
    const where =
      'business_id = $1 AND ($2::bigint IS NULL OR brand_id = $2) AND ($3::bigint IS NULL OR branch_id = $3)';
    const args = [this.businessId, f.brandId ?? null, f.branchId ?? null];
    const total = num(
      (await this.tx.row<{ n: string }>(`SELECT count(*) AS n FROM menu_publish_log WHERE ${where}`, args))!
        .n,
    );
    const stored = await this.tx.rows<StoredPublication>(
      `SELECT id, brand_id, branch_id, version, provider_id, status, items, ${iso('published_at')}
       FROM menu_publish_log WHERE ${where} ORDER BY id DESC LIMIT $4 OFFSET $5`,
      [...args, limit, offset],
    );
    const results = stored.map(
      (r): PublicationRow => ({
        id: num(r.id),
        brand_id: num(r.brand_id),
        branch_id: num(r.branch_id),
        version: r.version,
        provider_id: r.provider_id,
        status: r.status,
        items: r.items,
        published_at: r.published_at,
      }),
    );
    return { total, results };
  }
}
