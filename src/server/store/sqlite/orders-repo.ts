import type { AnyOrdersRepo, OrderFilter, OrderPage, OrderRow, OrdersRepo } from '../orders-repo.js';
import type { SqliteTx } from './tx.js';

export class SqliteOrders implements OrdersRepo {
  constructor(
    private readonly tx: SqliteTx,
    private readonly businessId: number,
  ) {}

  async get(id: number): Promise<OrderRow | undefined> {
    return this.tx.select('SELECT * FROM orders WHERE id = ? AND business_id = ?').get(id, this.businessId) as
      | OrderRow
      | undefined;
  }

  async list(f: OrderFilter, limit: number, offset: number): Promise<OrderPage> {
    let where = 'business_id = ? AND created_ms >= ? AND created_ms <= ?';
    const args: number[] = [this.businessId, f.fromMs, f.toMs];
    if (f.branchId !== undefined) {
      where += ' AND branch_id = ?';
      args.push(f.branchId);
    }
    if (f.brandId !== undefined) {
      where += ' AND brand_id = ?';
      args.push(f.brandId);
    }
    if (f.statuses?.length) {
      where += ` AND status IN (${f.statuses.map(() => '?').join(', ')})`;
      args.push(...f.statuses);
    }
    const total = this.tx
      .select(`SELECT count(*) FROM orders WHERE ${where}`)
      .pluck()
      .get(...args) as number;
    const records = this.tx
      .select(`SELECT record FROM orders WHERE ${where} ORDER BY created_ms DESC, id DESC LIMIT ? OFFSET ?`)
      .pluck()
      .all(...args, limit, offset) as string[];
    return { total, records };
  }

  async nextId(): Promise<number> {
    // Inside a write unit, which holds SQLite's write lock: nobody else can take this id. Orders
    // are never deleted, so the largest id is the last one ever used.
    this.tx.unit.check(true);
    return this.tx.select('SELECT coalesce(max(id), 0) + 1 FROM orders').pluck().get() as number;
  }

  async insert(o: Omit<OrderRow, 'business_id'>): Promise<void> {
    this.tx
      .change(
        'INSERT INTO orders (id, business_id, brand_id, branch_id, status, created_ms, updated_ms, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(o.id, this.businessId, o.brand_id, o.branch_id, o.status, o.created_ms, o.updated_ms, o.record);
  }

  async save(id: number, o: { status: number; updated_ms: number; record: string }): Promise<void> {
    this.tx
      .change('UPDATE orders SET status = ?, updated_ms = ?, record = ? WHERE id = ? AND business_id = ?')
      .run(o.status, o.updated_ms, o.record, id, this.businessId);
  }
}

export class SqliteAnyOrders implements AnyOrdersRepo {
  constructor(private readonly tx: SqliteTx) {}

  async get(id: number): Promise<OrderRow | undefined> {
    return this.tx.select('SELECT * FROM orders WHERE id = ?').get(id) as OrderRow | undefined;
  }
}
