// Orders. The wire record (status history included) is stored whole and rewritten on every
// change, so reads are a plain concatenation; the columns beside it serve tenancy, filters and
// ordering.

export interface OrderRow {
  id: number;
  business_id: number;
  brand_id: number;
  branch_id: number;
  /** Status id (contract/order-statuses.ts). */
  status: number;
  created_ms: number;
  updated_ms: number;
  /** The order read as JSON (docs/orders.md). */
  record: string;
}

export interface OrderFilter {
  /** `created_at` bounds, both inclusive (ms since the epoch). */
  fromMs: number;
  toMs: number;
  branchId?: number | undefined;
  brandId?: number | undefined;
  statuses?: readonly number[] | undefined;
}

export interface OrderPage {
  total: number;
  /** Newest first (created_at, then id, descending). */
  records: string[];
}

/** One business's orders (TenantTx.orders). */
export interface OrdersRepo {
  get(id: number): Promise<OrderRow | undefined>;
  list(f: OrderFilter, limit: number, offset: number): Promise<OrderPage>;
  /**
   * The id the next order will take: minted inside the write unit that inserts it (the record
   * names its own id), never one used before.
   */
  nextId(): Promise<number>;
  insert(o: Omit<OrderRow, 'business_id'>): Promise<void>;
  save(id: number, o: { status: number; updated_ms: number; record: string }): Promise<void>;
}

/** Any business's orders (Tx.orders): the operator's view. */
export interface AnyOrdersRepo {
  get(id: number): Promise<OrderRow | undefined>;
}
