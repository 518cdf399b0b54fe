// The business-level menu definition of one business: sections, categories, items (modifiers
// are items with only_modifier) and modifier groups, each of one brand.
import type { BoolMap, PriceMap, Times } from '../../domain/menus.js';
import type { SqlMenuCatalogue } from '../sql/menus/catalogue-repo.js';

interface Owned {
  id: number;
  business_id: number;
  brand_id: number;
}

export interface SectionFields {
  title: string;
  description: string;
  available_times: Times | null;
  is_enabled: boolean;
  visibilities: BoolMap;
  blackout_dates: string[];
}
export interface CategoryFields {
  title: string;
  description: string;
  is_enabled: boolean;
}
export interface ItemFields {
  title: string;
  partner_item_id: string;
  description: string;
  prices: PriceMap;
  group_prices: PriceMap;
  visibilities: BoolMap;
  enabled: boolean;
  only_modifier: boolean;
}
export interface GroupFields {
  title: string;
  min: number;
  max: number;
}

export type SectionRow = Owned & SectionFields;
export type CategoryRow = Owned & CategoryFields;
export type ItemRow = Owned & ItemFields;
export type GroupRow = Owned & GroupFields;

/** One kind of menu entity, confined to the tenant's business. */
export interface MenuEntities<Row extends Owned, Fields> {
  /** `forUpdate`: as `BrandsRepo.get`. */
  get(id: number, forUpdate?: boolean): Promise<Row | undefined>;
  /** The rows of `ids` in the order given; ids not of this business go to `missing`. */
  getMany(ids: readonly number[]): Promise<{ rows: Row[]; missing: number[] }>;
  /** The brand's rows, by id. */
  ofBrand(brandId: number): Promise<Row[]>;
  create(brandId: number, f: Fields, now: number): Promise<Row>;
  /** Writes every field (the caller merges a patch first). */
  update(id: number, f: Fields, now: number): Promise<void>;
  /** Its links go with it. */
  delete(id: number): Promise<void>;
}

export type MenuCatalogue = SqlMenuCatalogue;
