// Brands and branches of one business (a TenantTx's view: no business parameter anywhere).

export type Visibilities = Record<string, boolean>;

export interface BrandRow {
  id: number;
  business_id: number;
  title: string;
  logo: string;
  banner: string;
  visibilities: Visibilities;
}

export interface BrandFields {
  title: string;
  logo: string;
  banner: string;
}

export interface BrandsRepo {
  /** By id. */
  list(): Promise<BrandRow[]>;
  /**
   * `forUpdate`: the caller will write the row from what it read (a merge); on a shared store the
   * row is locked until the unit ends, so two instances' merges cannot lose one another's change.
   */
  get(id: number, forUpdate?: boolean): Promise<BrandRow | undefined>;
  ids(): Promise<number[]>;
  create(b: BrandFields, now: number): Promise<BrandRow>;
  update(id: number, b: BrandFields, now: number): Promise<void>;
  setVisibilities(id: number, v: Visibilities, now: number): Promise<void>;
}

export interface BranchRow {
  id: number;
  business_id: number;
  /** The writable record as given (extras pass through), defaults applied. */
  fields: Record<string, unknown>;
  visibilities: Visibilities;
  /** The full wire record (JSON), recomposed on every change by services/branches.ts. */
  record: string;
  price_group_id: number | null;
  busy_mode_updated_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/**
 * One page of branch records. A backend may hand out the same (frozen) object for as long as the
 * page is unchanged, so callers may cache what they derive from it by identity.
 */
export interface BranchPage {
  readonly total: number;
  readonly records: readonly string[];
}

export interface NewBranch {
  fields: Record<string, unknown>;
  price_group_id: number | null;
  brand_ids: readonly number[];
}

/** What a branch update writes besides its record (composed by the service). */
export interface BranchUpdate {
  fields: Record<string, unknown>;
  price_group_id: number | null;
  busy_mode_updated_at: string | null;
}

export interface BranchesRepo {
  /** A live (not deleted) branch. `forUpdate`: as `BrandsRepo.get`. */
  get(id: number, forUpdate?: boolean): Promise<BranchRow | undefined>;
  /** A branch, deleted or not. `forUpdate`: as `BrandsRepo.get`. */
  getAny(id: number, forUpdate?: boolean): Promise<BranchRow | undefined>;
  /** Live branches by id. */
  page(limit: number, offset: number): Promise<BranchPage>;
  /** Inserts with an empty record; the caller composes and saves the record next. */
  insert(b: NewBranch, now: number): Promise<number>;
  update(id: number, b: BranchUpdate, now: number): Promise<void>;
  setBrands(id: number, brandIds: readonly number[]): Promise<void>;
  setVisibilities(id: number, v: Visibilities, now: number): Promise<void>;
  /** The brands a branch carries, by id (for its record's brand_ids and brand_titles). */
  brandsOf(id: number): Promise<{ id: number; title: string }[]>;
  saveRecord(id: number, record: string): Promise<void>;
  /** Every branch (deleted ones too) linked to the brand: their records name it. */
  linkedTo(brandId: number): Promise<number[]>;
  /** Live branches carrying the brand, by id. */
  carrying(brandId: number): Promise<number[]>;
  carries(branchId: number, brandId: number): Promise<boolean>;
  /** Live branches on the price group. */
  usingPriceGroup(groupId: number): Promise<number[]>;
}
