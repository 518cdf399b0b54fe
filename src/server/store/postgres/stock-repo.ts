// Item state, snooze and stock per branch, and the OOS history, on PostgreSQL:
// store/sqlite/stock-repo.ts one to one.
import { DEFAULT_STATE, type ItemState } from '../../domain/menus.js';
import type {
  ActivityFilter,
  ActivityRow,
  ActivitySummary,
  EntityType,
  NewActivity,
  OosAction,
  StockRepo,
} from '../stock-repo.js';
import { iso, json, num, numOrNull } from './schema/catalog.js';
import type { PgTx } from './tx.js';

const at = (ms: number) => new Date(ms).toISOString();

interface StateRow {
  item_id: string;
  available: boolean;
  stock: number | null;
  snoozed_until_ms: string | null;
}

const toState = (r: StateRow): ItemState => ({
  available: r.available,
  stock: r.stock,
  snoozedUntil: numOrNull(r.snoozed_until_ms),
});

const isDefault = (s: ItemState) =>
  s.available === DEFAULT_STATE.available &&
  s.stock === DEFAULT_STATE.stock &&
  s.snoozedUntil === DEFAULT_STATE.snoozedUntil;

// $1 business, $2..$3 the time range, $4 branch or null, $5 brand or null.
const FILTER =
  'business_id = $1 AND at_ms BETWEEN $2 AND $3 AND ($4::bigint IS NULL OR branch_id = $4) AND ($5::bigint IS NULL OR brand_id = $5)';

interface StoredActivity {
  id: string;
  at_ms: string;
  branch_id: string | null;
  brand_id: string;
  entity_type: EntityType;
  entity_id: string;
  partner_item_id: string | null;
  title: string;
  action: OosAction;
  before: unknown;
  after: unknown;
  until: string | null;
  actor: string;
}

interface StoredSummary {
  branch_id: string | null;
  brand_id: string;
  entity_type: EntityType;
  entity_id: string;
  partner_item_id: string | null;
  title: string;
  last_action: OosAction;
  last_at_ms: string;
  changes: number;
  went_out: number;
  came_back: number;
}

/** The advisory-lock class of "a branch's item states" ('stat' in ASCII); the branch id is the object. */
const STATE_LOCK = 0x73746174;

export class PgStock implements StockRepo {
  /** Branches whose item states this unit has locked (see PgMenuLayers on savepoints). */
  private readonly locked = new Set<number>();

  constructor(
    private readonly tx: PgTx,
    private readonly businessId: number,
  ) {}

  // State rows have no business column: they are reached through a branch of this business.
  async states(branchId: number): Promise<Map<number, ItemState>> {
    const rows = await this.tx.rows<StateRow>(
      `SELECT s.item_id, s.available, s.stock, s.snoozed_until_ms FROM menu_item_state s
       JOIN branches b ON b.id = s.branch_id AND b.business_id = $1 WHERE s.branch_id = $2`,
      [this.businessId, branchId],
    );
    return new Map(rows.map((r) => [num(r.item_id), toState(r)]));
  }

  /**
   * In a write unit, the state read here is changed and written back (with an OOS history row
   * saying what it was before): two instances changing one branch's items at once would each
   * start from what the other had not committed yet, losing a change and counting a "went out"
   * twice. So a write unit's first state read takes a transaction-scoped advisory lock on the
   * branch (its own statement, so the read after it sees what the holder committed), making
   * those changes run one after the other, as SQLite's single writer does.
   */
  async state(branchId: number, itemId: number): Promise<ItemState> {
    if (this.tx.mode === 'write' && !this.locked.has(branchId)) {
      await this.tx.exec('SELECT pg_advisory_xact_lock($1::int, ($2::bigint % 2147483648)::int)', [
        STATE_LOCK,
        branchId,
      ]);
      this.locked.add(branchId);
    }
    const r = await this.tx.row<StateRow>(
      `SELECT s.item_id, s.available, s.stock, s.snoozed_until_ms FROM menu_item_state s
       JOIN branches b ON b.id = s.branch_id AND b.business_id = $1 WHERE s.branch_id = $2 AND s.item_id = $3`,
      [this.businessId, branchId, itemId],
    );
    return r ? toState(r) : { ...DEFAULT_STATE };
  }

  async setState(branchId: number, itemId: number, s: ItemState, now: number): Promise<void> {
    if (!(await this.ownsBranch(branchId))) return;
    if (isDefault(s)) {
      await this.tx.exec('DELETE FROM menu_item_state WHERE branch_id = $1 AND item_id = $2', [
        branchId,
        itemId,
      ]);
      return;
    }
    await this.tx.exec(
      `INSERT INTO menu_item_state (branch_id, item_id, available, stock, snoozed_until_ms, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (branch_id, item_id) DO UPDATE SET available = excluded.available, stock = excluded.stock,
         snoozed_until_ms = excluded.snoozed_until_ms, updated_at = excluded.updated_at`,
      [branchId, itemId, s.available, s.stock, s.snoozedUntil, at(now)],
    );
  }

  async bumpBranch(branchId: number): Promise<void> {
    await this.tx.exec(
      `INSERT INTO menu_branch_state (branch_id, version) SELECT id, 1 FROM branches WHERE id = $1 AND business_id = $2
       ON CONFLICT (branch_id) DO UPDATE SET version = menu_branch_state.version + 1`,
      [branchId, this.businessId],
    );
  }

  async branchesWithState(itemId: number): Promise<number[]> {
    const rows = await this.tx.rows<{ branch_id: string }>(
      `SELECT DISTINCT s.branch_id FROM menu_item_state s JOIN branches b ON b.id = s.branch_id AND b.business_id = $1
       WHERE s.item_id = $2 ORDER BY s.branch_id`,
      [this.businessId, itemId],
    );
    return rows.map((r) => num(r.branch_id));
  }

  async record(a: NewActivity): Promise<void> {
    await this.tx.exec(
      `INSERT INTO menu_oos_activity (business_id, brand_id, branch_id, entity_type, entity_id, partner_item_id, title, action, before, after, until, went_out, came_back, actor, at_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
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
        a.went_out,
        a.came_back,
        a.actor,
        a.at_ms,
      ],
    );
  }

  private args(f: ActivityFilter) {
    return [this.businessId, f.fromMs, f.toMs, f.branchId ?? null, f.brandId ?? null];
  }

  async activity(
    entity: EntityType,
    f: ActivityFilter,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: ActivityRow[] }> {
    const where = `${FILTER} AND entity_type = $6`;
    const args = [...this.args(f), entity];
    const total = num(
      (await this.tx.row<{ n: string }>(`SELECT count(*) AS n FROM menu_oos_activity WHERE ${where}`, args))!
        .n,
    );
    const stored = await this.tx.rows<StoredActivity>(
      `SELECT id, at_ms, branch_id, brand_id, entity_type, entity_id, partner_item_id, title, action, before, after,
              ${iso('until')}, actor
       FROM menu_oos_activity WHERE ${where} ORDER BY at_ms DESC, id DESC LIMIT $7 OFFSET $8`,
      [...args, limit, offset],
    );
    const rows = stored.map(
      (r): ActivityRow => ({
        id: num(r.id),
        at_ms: num(r.at_ms),
        branch_id: numOrNull(r.branch_id),
        brand_id: num(r.brand_id),
        entity_type: r.entity_type,
        entity_id: num(r.entity_id),
        partner_item_id: r.partner_item_id,
        title: r.title,
        action: r.action,
        before: json<Record<string, unknown>>(r.before),
        after: json<Record<string, unknown>>(r.after),
        until: r.until,
        actor: r.actor,
      }),
    );
    return { total, rows };
  }

  async summaries(
    f: ActivityFilter,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: ActivitySummary[] }> {
    const args = this.args(f);
    const groupBy = 'GROUP BY branch_id, entity_type, entity_id';
    const total = num(
      (await this.tx.row<{ n: string }>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM menu_oos_activity WHERE ${FILTER} ${groupBy}) g`,
        args,
      ))!.n,
    );
    // Per (branch, entity): the counts, and title, action and time of the latest change (the
    // row with the greatest id, which is what SQLite's bare columns beside max(id) give).
    const stored = await this.tx.rows<StoredSummary>(
      `WITH g AS (
         SELECT count(*)::int AS changes, sum(went_out::int)::int AS went_out, sum(came_back::int)::int AS came_back,
                max(id) AS last_id
         FROM menu_oos_activity WHERE ${FILTER} ${groupBy}
       )
       SELECT a.branch_id, a.brand_id, a.entity_type, a.entity_id, a.partner_item_id, a.title, a.action AS last_action,
              a.at_ms AS last_at_ms, g.changes, g.went_out, g.came_back
       FROM g JOIN menu_oos_activity a ON a.id = g.last_id
       ORDER BY g.last_id DESC LIMIT $6 OFFSET $7`,
      [...args, limit, offset],
    );
    const rows = stored.map(
      (r): ActivitySummary => ({
        branch_id: numOrNull(r.branch_id),
        brand_id: num(r.brand_id),
        entity_type: r.entity_type,
        entity_id: num(r.entity_id),
        partner_item_id: r.partner_item_id,
        title: r.title,
        last_action: r.last_action,
        last_at_ms: num(r.last_at_ms),
        changes: r.changes,
        went_out: r.went_out,
        came_back: r.came_back,
      }),
    );
    return { total, rows };
  }

  private async ownsBranch(branchId: number): Promise<boolean> {
    return (
      (await this.tx.row('SELECT 1 FROM branches WHERE id = $1 AND business_id = $2', [
        branchId,
        this.businessId,
      ])) !== undefined
    );
  }
}
