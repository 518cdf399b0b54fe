// The business-level menu definition of one business: sections, categories, items (modifiers
// are items with only_modifier) and modifier groups, each of one brand.
import type { BoolMap, PriceMap, Times } from '../../domain/menus.js';
import type { SqlMenuCatalogue, SqlMenuEntities } from '../sql/menus/catalogue-repo.js';

export interface Owned {
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
export type MenuEntities<Row extends Owned, Fields> = SqlMenuEntities<Row, Fields>;

export type MenuCatalogue = SqlMenuCatalogue;
