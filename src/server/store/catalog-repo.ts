// Price groups (price tiers) of one business.

export interface PriceGroupRow {
  id: number;
  business_id: number;
  title: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export type PriceGroupFields = Pick<PriceGroupRow, 'title' | 'description'>;
