// Brands and branches of one business (a TenantTx's view: no business parameter anywhere).
import type { SqlBrands } from './sql/brands-repo.js';

export type Visibilities = Record<string, boolean>;

export interface BrandRow {
  id: number;
  business_id: number;
  title: string;
  logo: string;
  banner: string;
  visibilities: Visibilities;
}

export type BrandFields = Pick<BrandRow, 'title' | 'logo' | 'banner'>;

export type BrandsRepo = SqlBrands;

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

export type NewBranch = Pick<BranchRow, 'fields' | 'price_group_id'> & { brand_ids: readonly number[] };

/** What a branch update writes besides its record (composed by the service). */
export type BranchUpdate = Pick<BranchRow, 'fields' | 'price_group_id' | 'busy_mode_updated_at'>;
