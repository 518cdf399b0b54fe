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
