import { DEFAULT_STATE, type ItemState } from '../../domain/menus.js';
import type {
  ActivityFilter,
  ActivityRow,
  ActivitySummary,
  EntityType,
  NewActivity,
  StockRepo,
} from '../stock-repo.js';
import type { SqliteTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();

interface StateRow {
  item_id: number;
  available: number;
  stock: number | null;
  snoozed_until_ms: number | null;
}

const toState = (r: StateRow): ItemState => ({
  available: r.available === 1,
  stock: r.stock,
  snoozedUntil: r.snoozed_until_ms,
});

const isDefault = (s: ItemState) =>
  s.available === DEFAULT_STATE.available &&
  s.stock === DEFAULT_STATE.stock &&
  s.snoozedUntil === DEFAULT_STATE.snoozedUntil;

const FILTER =
  'business_id = ? AND at_ms BETWEEN ? AND ? AND (? IS NULL OR branch_id = ?) AND (? IS NULL OR brand_id = ?)';

type StoredActivity = Omit<ActivityRow, 'before' | 'after'> & { before: string; after: string };

export class SqliteStock implements StockRepo {
  constructor(
    private readonly tx: SqliteTx,
    private readonly businessId: number,
  ) {}

  // State rows have no business column: they are reached through a branch of this business.
  async states(branchId: number): Promise<Map<number, ItemState>> {
    const rows = this.tx
      .select(
        `SELECT s.item_id, s.available, s.stock, s.snoozed_until_ms FROM menu_item_state s
         JOIN branches b ON b.id = s.branch_id AND b.business_id = ? WHERE s.branch_id = ?`,
      )
      .all(this.businessId, branchId) as StateRow[];
    return new Map(rows.map((r) => [r.item_id, toState(r)]));
  }

  async state(branchId: number, itemId: number): Promise<ItemState> {
    const r = this.tx
      .select(
        `SELECT s.item_id, s.available, s.stock, s.snoozed_until_ms FROM menu_item_state s
         JOIN branches b ON b.id = s.branch_id AND b.business_id = ? WHERE s.branch_id = ? AND s.item_id = ?`,
      )
      .get(this.businessId, branchId, itemId) as StateRow | undefined;
    return r ? toState(r) : { ...DEFAULT_STATE };
  }

  async setState(branchId: number, itemId: number, s: ItemState, now: number): Promise<void> {
    if (!this.ownsBranch(branchId)) return;
    if (isDefault(s)) {
      this.tx.change('DELETE FROM menu_item_state WHERE branch_id = ? AND item_id = ?').run(branchId, itemId);
      return;
    }
    this.tx
      .change(
        `INSERT INTO menu_item_state (branch_id, item_id, available, stock, snoozed_until_ms, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (branch_id, item_id) DO UPDATE SET available = excluded.available, stock = excluded.stock,
           snoozed_until_ms = excluded.snoozed_until_ms, updated_at = excluded.updated_at`,
      )
      .run(branchId, itemId, s.available ? 1 : 0, s.stock, s.snoozedUntil, iso(now));
  }

  async bumpBranch(branchId: number): Promise<void> {
    this.tx
      .change(
        `INSERT INTO menu_branch_state (branch_id, version) SELECT id, 1 FROM branches WHERE id = ? AND business_id = ?
         ON CONFLICT (branch_id) DO UPDATE SET version = version + 1`,
      )
      .run(branchId, this.businessId);
  }

  async branchesWithState(itemId: number): Promise<number[]> {
    return this.tx
      .select(
        `SELECT DISTINCT s.branch_id FROM menu_item_state s JOIN branches b ON b.id = s.branch_id AND b.business_id = ?
         WHERE s.item_id = ?`,
      )
      .pluck()
      .all(this.businessId, itemId) as number[];
  }

  async record(a: NewActivity): Promise<void> {
    this.tx
      .change(
        `INSERT INTO menu_oos_activity (business_id, brand_id, branch_id, entity_type, entity_id, partner_item_id, title, action, before, after, until, went_out, came_back, actor, at_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        this.businessId,
        a.brand_id,
        a.branch_id,
        a.entity_type,
        a.entity_id,
        a.partner_item_id,
        a.title,
        a.action,
        JSON.stringify(a.before),
        JSON.stringify(a.after),
        a.until,
        a.went_out ? 1 : 0,
        a.came_back ? 1 : 0,
        a.actor,
        a.at_ms,
      );
  }

  private args(f: ActivityFilter) {
    const branch = f.branchId ?? null;
    const brand = f.brandId ?? null;
    return [this.businessId, f.fromMs, f.toMs, branch, branch, brand, brand] as const;
  }

  async activity(
    entity: EntityType,
    f: ActivityFilter,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: ActivityRow[] }> {
    const where = `entity_type = ? AND ${FILTER}`;
    const args = [entity, ...this.args(f)];
    const total = this.tx
      .select(`SELECT count(*) FROM menu_oos_activity WHERE ${where}`)
      .pluck()
      .get(...args) as number;
    const rows = (
      this.tx
        .select(
          `SELECT id, at_ms, branch_id, brand_id, entity_type, entity_id, partner_item_id, title, action, before, after, until, actor
           FROM menu_oos_activity WHERE ${where} ORDER BY at_ms DESC, id DESC LIMIT ? OFFSET ?`,
        )
        .all(...args, limit, offset) as StoredActivity[]
    ).map((r) => ({
      ...r,
      before: JSON.parse(r.before) as Record<string, unknown>,
      after: JSON.parse(r.after) as Record<string, unknown>,
    }));
    return { total, rows };
  }

  async summaries(
    f: ActivityFilter,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: ActivitySummary[] }> {
    const args = this.args(f);
    const groupBy = 'GROUP BY branch_id, entity_type, entity_id';
    const total = this.tx
      .select(`SELECT count(*) FROM (SELECT 1 FROM menu_oos_activity WHERE ${FILTER} ${groupBy})`)
      .pluck()
      .get(...args) as number;
    // With a single MAX() aggregate, SQLite takes the bare columns from the row holding the
    // maximum: title, action and time of the latest change.
    const rows = this.tx
      .select(
        `SELECT branch_id, brand_id, entity_type, entity_id, partner_item_id, title, action AS last_action, at_ms AS last_at_ms,
                count(*) AS changes, sum(went_out) AS went_out, sum(came_back) AS came_back, max(id) AS last_id
         FROM menu_oos_activity WHERE ${FILTER} ${groupBy}
         ORDER BY last_id DESC LIMIT ? OFFSET ?`,
      )
      .all(...args, limit, offset) as (ActivitySummary & { last_id: number })[];
    return { total, rows: rows.map(({ last_id: _id, ...r }) => r) };
  }

  private ownsBranch(branchId: number): boolean {
    return (
      this.tx
        .select('SELECT 1 FROM branches WHERE id = ? AND business_id = ?')
        .get(branchId, this.businessId) !== undefined
    );
  }
}
