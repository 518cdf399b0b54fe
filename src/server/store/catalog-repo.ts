// Price groups (price tiers) of one business.

export interface PriceGroupRow {
  id: number;
  business_id: number;
  title: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface PriceGroupFields {
  title: string;
  description: string;
}

export interface PriceGroupsRepo {
  /** By id. */
  list(): Promise<PriceGroupRow[]>;
  /** `forUpdate`: as `BrandsRepo.get`. */
  get(id: number, forUpdate?: boolean): Promise<PriceGroupRow | undefined>;
  ids(): Promise<number[]>;
  create(g: PriceGroupFields, now: number): Promise<PriceGroupRow>;
  update(id: number, g: PriceGroupFields, now: number): Promise<void>;
  delete(id: number): Promise<void>;
}
