import type { OrderFilter, OrderPage, OrderRow } from '../orders-repo.js';
import { type Dialect, Lockable, q, QueryCache, type Sql } from './query.js';

const COLUMNS = 'id, business_id, brand_id, branch_id, status, created_ms, updated_ms, record';

const O = {
  // In a write unit the order is read to be changed: on a shared store the row lock makes
  // transitions of one order take turns across every instance (the second waits, then reads the
  // first's result), so no change is built on a record another unit is rewriting.
  get: new Lockable(`SELECT ${COLUMNS} FROM orders WHERE id = ? AND business_id = ?`, 'lockRow'),
  getAny: q(`SELECT ${COLUMNS} FROM orders WHERE id = ?`),
  nextId: q((d) => `SELECT ${d.nextId('orders', 'id')} AS id`),
  // Orders' own writes wake no one (Query.quiet): their events do, when someone receives them.
  insert: q(
    'INSERT INTO orders (id, business_id, brand_id, branch_id, status, created_ms, updated_ms, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    { quiet: true },
  ),
  save: q('UPDATE orders SET status = ?, updated_ms = ?, record = ? WHERE id = ? AND business_id = ?', {
    quiet: true,
  }),
  // The write of a row read in this unit names the version it read (updated_ms rises with every
  // change): under a row lock it always matches; on PostgreSQL's one-statement path, which takes
  // no lock (Sql.optimistic), a change committed meanwhile makes it miss and the unit run again.
  saveRead: q(
    'UPDATE orders SET status = ?, updated_ms = ?, record = ? WHERE id = ? AND business_id = ? AND updated_ms = ?',
    { quiet: true },
  ),
};

// The filter's shape ('b' branch, 'r' brand, 's' statuses) names its statements.
const where = (d: Dialect, shape: string) =>
  'business_id = ? AND created_ms >= ? AND created_ms <= ?' +
  (shape.includes('b') ? ' AND branch_id = ?' : '') +
  (shape.includes('r') ? ' AND brand_id = ?' : '') +
  (shape.includes('s') ? ` AND status ${d.inList('int')}` : '');
// The count apart from the page: a window count would read every matching record, where the
// page stops at its limit along the index.
const PAGE = new QueryCache(
  (d, shape) =>
    `SELECT record FROM orders WHERE ${where(d, shape)} ORDER BY created_ms DESC, id DESC LIMIT ? OFFSET ?`,
);
const COUNT = new QueryCache((d, shape) => `SELECT count(*) FROM orders WHERE ${where(d, shape)}`);

export class SqlOrders {
  constructor(
    private readonly db: Sql,
    private readonly businessId: number,
  ) {}

  /** The version (updated_ms) of each order this unit read, for its write (O.saveRead). */
  private readonly read = new Map<number, number>();

  async get(id: number): Promise<OrderRow | undefined> {
    const r = await this.db.get<OrderRow>(O.get.in(this.db, !this.db.optimistic), [id, this.businessId]);
    if (r && this.db.writing) this.read.set(r.id, Number(r.updated_ms));
    return r;
  }

  async list(f: OrderFilter, limit: number, offset: number): Promise<OrderPage> {
    let shape = '';
    const args: unknown[] = [this.businessId, f.fromMs, f.toMs];
    if (f.branchId !== undefined) {
      shape += 'b';
      args.push(f.branchId);
    }
    if (f.brandId !== undefined) {
      shape += 'r';
      args.push(f.brandId);
    }
    if (f.statuses?.length) {
      shape += 's';
      args.push(this.db.list(f.statuses));
    }
    const total = (await this.db.value<number>(COUNT.get(shape), args)) ?? 0;
    const records = await this.db.column<string>(PAGE.get(shape), [...args, limit, offset]);
    return { total, records };
  }

  /**
   * The id the next order will take: minted inside the write unit that inserts it (the record
   * names its own id), never one used before.
   */
  async nextId(): Promise<number> {
    // In the write unit that inserts it: SQLite's write lock, or PostgreSQL's sequence (never
    // handed out twice, whatever commits or rolls back). Orders are never deleted.
    // A read (it changes no table): on PostgreSQL's one-statement path it goes out at once.
    const [r] = await this.db.all<{ id: number }>(O.nextId);
    return r!.id;
  }

  async insert(o: Omit<OrderRow, 'business_id'>): Promise<void> {
    await this.db.run(O.insert, [
      o.id,
      this.businessId,
      o.brand_id,
      o.branch_id,
      o.status,
      o.created_ms,
      o.updated_ms,
      o.record,
    ]);
  }

  async save(id: number, o: { status: number; updated_ms: number; record: string }): Promise<void> {
    const version = this.read.get(id);
    const args = [o.status, o.updated_ms, o.record, id, this.businessId];
    if (version === undefined) await this.db.run(O.save, args);
    else {
      this.read.set(id, o.updated_ms);
      await this.db.run(O.saveRead, [...args, version]);
    }
  }
}

export class SqlAnyOrders {
  constructor(private readonly db: Sql) {}

  get(id: number): Promise<OrderRow | undefined> {
    return this.db.get(O.getAny, [id]);
  }
}
