import { DEFAULT_STATE, type ItemState } from '../../domain/menus.js';
import type { ActivityFilter, ActivityRow, ActivitySummary, NewActivity, EntityType } from '../stock-repo.js';
import { ownsBranch } from './brands-repo.js';
import { iso, json, q, type Sql } from './query.js';

interface StateRow {
  item_id: number;
  available: boolean | number;
  stock: number | null;
  snoozed_until_ms: number | null;
}

const toState = (r: StateRow): ItemState => ({
  available: Boolean(r.available),
  stock: r.stock,
  snoozedUntil: r.snoozed_until_ms,
});

const isDefault = (s: ItemState) =>
  s.available === DEFAULT_STATE.available &&
  s.stock === DEFAULT_STATE.stock &&
  s.snoozedUntil === DEFAULT_STATE.snoozedUntil;

// business, the time range, branch or null (twice), brand or null (twice).
const FILTER =
  'business_id = ? AND at_ms BETWEEN ? AND ? AND (CAST(? AS BIGINT) IS NULL OR branch_id = ?) AND (CAST(? AS BIGINT) IS NULL OR brand_id = ?)';
const GROUP_BY = 'GROUP BY branch_id, entity_type, entity_id';
const STATE = 'SELECT s.item_id, s.available, s.stock, s.snoozed_until_ms FROM menu_item_state s';

const S = {
  // State rows have no business column: they are reached through a branch of this business.
  states: q(`${STATE} JOIN branches b ON b.id = s.branch_id AND b.business_id = ? WHERE s.branch_id = ?`),
  state: q(
    `${STATE} JOIN branches b ON b.id = s.branch_id AND b.business_id = ? WHERE s.branch_id = ? AND s.item_id = ?`,
  ),
  clear: q('DELETE FROM menu_item_state WHERE branch_id = ? AND item_id = ?'),
  set: q(
    `INSERT INTO menu_item_state (branch_id, item_id, available, stock, snoozed_until_ms, updated_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (branch_id, item_id) DO UPDATE SET available = excluded.available, stock = excluded.stock,
       snoozed_until_ms = excluded.snoozed_until_ms, updated_at = excluded.updated_at`,
  ),
  bump: q(
    `INSERT INTO menu_branch_state (branch_id, version) SELECT id, 1 FROM branches WHERE id = ? AND business_id = ?
     ON CONFLICT (branch_id) DO UPDATE SET version = menu_branch_state.version + 1`,
  ),
  withState: q(
    `SELECT DISTINCT s.branch_id FROM menu_item_state s JOIN branches b ON b.id = s.branch_id AND b.business_id = ?
     WHERE s.item_id = ? ORDER BY s.branch_id`,
  ),
  record: q(
    `INSERT INTO menu_oos_activity (business_id, brand_id, branch_id, entity_type, entity_id, partner_item_id, title, action, before, after, until, went_out, came_back, actor, at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  activityCount: q(`SELECT count(*) FROM menu_oos_activity WHERE ${FILTER} AND entity_type = ?`),
  activity: q(
    `SELECT id, at_ms, branch_id, brand_id, entity_type, entity_id, partner_item_id, title, action, before, after, until, actor
     FROM menu_oos_activity WHERE ${FILTER} AND entity_type = ? ORDER BY at_ms DESC, id DESC LIMIT ? OFFSET ?`,
  ),
  summaryCount: q(`SELECT count(*) FROM (SELECT 1 FROM menu_oos_activity WHERE ${FILTER} ${GROUP_BY}) g`),
  // Per (branch, entity): the counts, and title, action and time of the latest change (the row
  // with the greatest id).
  summaries: q(
    `WITH g AS (
       SELECT count(*) AS changes, CAST(sum(CAST(went_out AS INTEGER)) AS INTEGER) AS went_out,
              CAST(sum(CAST(came_back AS INTEGER)) AS INTEGER) AS came_back, max(id) AS last_id
       FROM menu_oos_activity WHERE ${FILTER} ${GROUP_BY}
     )
     SELECT a.branch_id, a.brand_id, a.entity_type, a.entity_id, a.partner_item_id, a.title, a.action AS last_action,
            a.at_ms AS last_at_ms, g.changes, g.went_out, g.came_back
     FROM g JOIN menu_oos_activity a ON a.id = g.last_id
     ORDER BY g.last_id DESC LIMIT ? OFFSET ?`,
  ),
};

type StoredActivity = Omit<ActivityRow, 'before' | 'after'> & { before: unknown; after: unknown };

export class SqlStock {
  constructor(
    private readonly db: Sql,
    private readonly businessId: number,
  ) {}

  /** Every item of the branch whose state left the default. */
  async states(branchId: number): Promise<Map<number, ItemState>> {
    const rows = await this.db.all<StateRow>(S.states, [this.businessId, branchId]);
    return new Map(rows.map((r) => [r.item_id, toState(r)]));
  }

  async state(branchId: number, itemId: number): Promise<ItemState> {
    if (this.db.writing) await this.db.lockBranchStates?.(branchId);
    const r = await this.db.get<StateRow>(S.state, [this.businessId, branchId, itemId]);
    return r ? toState(r) : { ...DEFAULT_STATE };
  }

  /** Back to the default state deletes the row. */
  async setState(branchId: number, itemId: number, s: ItemState, now: number): Promise<void> {
    if (!(await ownsBranch(this.db, this.businessId, branchId))) return;
    if (isDefault(s)) {
      await this.db.run(S.clear, [branchId, itemId]);
      return;
    }
    await this.db.run(S.set, [branchId, itemId, s.available ? 1 : 0, s.stock, s.snoozedUntil, iso(now)]);
  }

  /** Marks the branch's state changed (GET /menus caches its rendering per version). */
  async bumpBranch(branchId: number): Promise<void> {
    await this.db.run(S.bump, [branchId, this.businessId]);
  }

  /** Branches holding a state row for the item. */
  branchesWithState(itemId: number): Promise<number[]> {
    return this.db.column(S.withState, [this.businessId, itemId]);
  }

  async record(a: NewActivity): Promise<void> {
    await this.db.run(S.record, [
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
    ]);
  }

  private args(f: ActivityFilter): unknown[] {
    const branch = f.branchId ?? null;
    const brand = f.brandId ?? null;
    return [this.businessId, f.fromMs, f.toMs, branch, branch, brand, brand];
  }

  /** Newest first. */
  async activity(
    entity: EntityType,
    f: ActivityFilter,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: ActivityRow[] }> {
    const args = [...this.args(f), entity];
    const total = (await this.db.value<number>(S.activityCount, args)) ?? 0;
    const stored = await this.db.all<StoredActivity>(S.activity, [...args, limit, offset]);
    const rows = stored.map(
      (r): ActivityRow => ({
        ...r,
        before: json<Record<string, unknown>>(r.before),
        after: json<Record<string, unknown>>(r.after),
      }),
    );
    return { total, rows };
  }

  /** One row per (branch, entity), newest change first. */
  async summaries(
    f: ActivityFilter,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: ActivitySummary[] }> {
    const args = this.args(f);
    const total = (await this.db.value<number>(S.summaryCount, args)) ?? 0;
    const rows = await this.db.all<ActivitySummary>(S.summaries, [...args, limit, offset]);
    return { total, rows };
  }
}
