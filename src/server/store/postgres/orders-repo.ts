import type { AnyOrdersRepo, OrderFilter, OrderPage, OrderRow, OrdersRepo } from '../orders-repo.js';
import type { PgTx } from './tx.js';

const COLUMNS = 'id, business_id, brand_id, branch_id, status, created_ms, updated_ms, record';

export class PgOrders implements OrdersRepo {
  constructor(
    private readonly tx: PgTx,
    private readonly businessId: number,
  ) {}

  get(id: number): Promise<OrderRow | undefined> {
    // In a write unit the order is read to be changed: the row lock makes transitions of one
    // order take turns across every instance (the second waits, then reads the first's result),
    // so no change is built on a record another unit is rewriting.
    return this.tx.row(
      `SELECT ${COLUMNS} FROM orders WHERE id = $1 AND business_id = $2${this.tx.mode === 'write' ? ' FOR UPDATE' : ''}`,
      [id, this.businessId],
    );
  }

  async list(f: OrderFilter, limit: number, offset: number): Promise<OrderPage> {
    const args: unknown[] = [this.businessId, f.fromMs, f.toMs];
    let where = 'business_id = $1 AND created_ms >= $2 AND created_ms <= $3';
    if (f.branchId !== undefined) {
      args.push(f.branchId);
      where += ` AND branch_id = $${args.length}`;
    }
    if (f.brandId !== undefined) {
      args.push(f.brandId);
      where += ` AND brand_id = $${args.length}`;
    }
    if (f.statuses?.length) {
      args.push(f.statuses);
      where += ` AND status = ANY($${args.length}::int[])`;
    }
    const total = await this.tx.row<{ n: number }>(`SELECT count(*) AS n FROM orders WHERE ${where}`, args);
    const records = await this.tx.rows<{ record: string }>(
      `SELECT record FROM orders WHERE ${where} ORDER BY created_ms DESC, id DESC LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
      [...args, limit, offset],
    );
    return { total: total?.n ?? 0, records: records.map((r) => r.record) };
  }

  async nextId(): Promise<number> {
    // From the identity's sequence: never handed out twice, whatever commits or rolls back.
    const r = await this.tx.change<{ id: number }>(
      "SELECT nextval(pg_get_serial_sequence('orders', 'id')) AS id",
    );
    return r[0]!.id;
  }

  async insert(o: Omit<OrderRow, 'business_id'>): Promise<void> {
    await this.tx.exec(
      'INSERT INTO orders (id, business_id, brand_id, branch_id, status, created_ms, updated_ms, record) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [o.id, this.businessId, o.brand_id, o.branch_id, o.status, o.created_ms, o.updated_ms, o.record],
    );
  }

  async save(id: number, o: { status: number; updated_ms: number; record: string }): Promise<void> {
    await this.tx.exec(
      'UPDATE orders SET status = $1, updated_ms = $2, record = $3 WHERE id = $4 AND business_id = $5',
      [o.status, o.updated_ms, o.record, id, this.businessId],
    );
  }
}

export class PgAnyOrders implements AnyOrdersRepo {
  constructor(private readonly tx: PgTx) {}

  get(id: number): Promise<OrderRow | undefined> {
    return this.tx.row(`SELECT ${COLUMNS} FROM orders WHERE id = $1`, [id]);
  }
}
