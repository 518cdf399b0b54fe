import { z } from 'zod';
import { atLeastOneOf, named, stateRules } from '../json-schema.js';
import {
  AvailableTimes,
  BusinessIdIgnored,
  Id,
  IntId,
  IsoDateTime,
  idKey,
  nonBlank,
  PaginationQuery,
  TENANT_QUERY,
  VisibilitiesMap,
} from './common.js';

// Menus (docs/menus.md): authoring bodies (pinned), the three layers, operational stock state and
// the OOS history. Field spellings follow the spec: camelCase for menu fields, snake_case for
// ids and timestamps.

const Title = nonBlank(200);
const Description = z.string().max(2000);
/** A SKU: the partner's own item id, unique per brand. */
export const Sku = nonBlank(100);
const Price = z.string().regex(/^\d+(\.\d+)?$/, 'must be a non-negative decimal string such as "45000.00"');
/** `{provider_id: "decimal"}`; keys must be provider ids that exist. */
const MenuPriceMap = z.record(idKey('provider ids'), Price);
/** `{price_group_id: "decimal"}`; keys must be price groups of the business. */
const GroupPriceMap = z.record(idKey('price group ids'), Price);
/** Days (YYYY-MM-DD, in the branch's time zone) on which a section is not offered. */
export const BlackoutDates = z.array(z.iso.date()).max(366);
const IdList = z.array(IntId).min(1).max(500);
const MinMax = z.number().int().min(0).max(100);

export const SYNC_FIELDS = ['availableTimes', 'isEnabled', 'visibilities', 'blackoutDates'] as const;
const SyncFieldName = z.enum(SYNC_FIELDS);

// ─── Authoring bodies [pinned] ──────────────────────────────────────────────────────────────

export const CreateSectionBody = z.strictObject({
  brand_id: IntId,
  title: Title,
  description: Description.optional(),
  availableTimes: AvailableTimes.optional(),
  isEnabled: z.boolean().optional(),
  visibilities: VisibilitiesMap.optional(),
  blackoutDates: BlackoutDates.optional(),
  business_id: BusinessIdIgnored,
});

/** Any createSection field; with `branch_id` it edits that store's override, else the business definition. */
export const UpdateSectionBody = atLeastOneOf(
  z.strictObject({
    brand_id: IntId.optional(),
    branch_id: IntId.optional(),
    title: Title.optional(),
    description: Description.optional(),
    availableTimes: AvailableTimes.nullable().optional(),
    isEnabled: z.boolean().optional(),
    visibilities: VisibilitiesMap.optional(),
    blackoutDates: BlackoutDates.optional(),
    business_id: BusinessIdIgnored,
  }),
  ['title', 'description', 'availableTimes', 'isEnabled', 'visibilities', 'blackoutDates'],
);

export const CreateCategoryBody = z.strictObject({
  brand_id: IntId,
  title: Title,
  description: Description.optional(),
  isEnabled: z.boolean().optional(),
  business_id: BusinessIdIgnored,
});

export const UpdateCategoryBody = atLeastOneOf(
  z.strictObject({
    brand_id: IntId.optional(),
    title: Title.optional(),
    description: Description.optional(),
    isEnabled: z.boolean().optional(),
    business_id: BusinessIdIgnored,
  }),
  ['title', 'description', 'isEnabled'],
);

export const LinkCategoriesToSectionBody = z.strictObject({
  section_id: IntId,
  category_ids: IdList,
  business_id: BusinessIdIgnored,
});

export const CreateItemBody = z.strictObject({
  brand_id: IntId,
  title: Title,
  partner_item_id: Sku,
  prices: MenuPriceMap,
  onlyModifier: z.boolean(),
  description: Description.optional(),
  groupPrices: GroupPriceMap.optional(),
  visibilities: VisibilitiesMap.optional(),
  enabled: z.boolean().optional(),
  business_id: BusinessIdIgnored,
});

/** Maps (prices, groupPrices, visibilities) given here replace the stored map. */
export const UpdateItemBody = atLeastOneOf(
  z.strictObject({
    brand_id: IntId.optional(),
    title: Title.optional(),
    partner_item_id: Sku.optional(),
    prices: MenuPriceMap.optional(),
    onlyModifier: z.boolean().optional(),
    description: Description.optional(),
    groupPrices: GroupPriceMap.optional(),
    visibilities: VisibilitiesMap.optional(),
    enabled: z.boolean().optional(),
    business_id: BusinessIdIgnored,
  }),
  [
    'title',
    'partner_item_id',
    'prices',
    'onlyModifier',
    'description',
    'groupPrices',
    'visibilities',
    'enabled',
  ],
);

export const LinkCategoriesToItemBody = z.strictObject({
  item_id: IntId,
  category_ids: IdList,
  business_id: BusinessIdIgnored,
});

export const CreateModifierGroupBody = z.strictObject({
  brand_id: IntId,
  title: Title,
  min: MinMax,
  max: MinMax.min(1),
  business_id: BusinessIdIgnored,
});

export const UpdateModifierGroupBody = atLeastOneOf(
  z.strictObject({
    brand_id: IntId.optional(),
    title: Title.optional(),
    min: MinMax.optional(),
    max: MinMax.min(1).optional(),
    business_id: BusinessIdIgnored,
  }),
  ['title', 'min', 'max'],
);

export const LinkModifiersToGroupBody = z.strictObject({
  group_id: IntId,
  modifier_ids: IdList,
  business_id: BusinessIdIgnored,
});

/** min, max and modifier_ids restate the group's and must match it. */
export const LinkModifierGroupToItemBody = z.strictObject({
  group_id: IntId,
  item_ids: IdList,
  min: MinMax,
  max: MinMax,
  modifier_ids: z.array(IntId).max(500),
  business_id: BusinessIdIgnored,
});

export const UnlinkModifierGroupFromItemsBody = z.strictObject({
  group_id: IntId,
  item_ids: IdList,
  business_id: BusinessIdIgnored,
});

// ─── Layers ─────────────────────────────────────────────────────────────────────────────────

export const SyncBody = z.strictObject({
  brand_id: IntId,
  /** Omitted: every branch carrying the brand. */
  branch_ids: IdList.optional(),
  /** Preserved fields to overwrite with the business values this time. */
  fieldIncludeOnSync: z.array(SyncFieldName).max(4).optional(),
  business_id: BusinessIdIgnored,
});

export const PublishBody = z.strictObject({
  brand_id: IntId,
  /** Omitted: every branch carrying the brand that has been synced. */
  branch_ids: IdList.optional(),
  business_id: BusinessIdIgnored,
});

export const SyncResult = z.object({
  brand_id: z.number().int(),
  branches: z.array(z.number().int()),
  fieldIncludeOnSync: z.array(SyncFieldName),
  synced_at: z.string(),
});

export const PublishResult = z.object({
  version: z.number().int(),
  published_at: z.string(),
  /** Branch ids published. */
  branches: z.array(z.number().int()),
  /** Provider ids the menu was shipped to (one publish-log row each per branch). */
  providers: z.array(z.number().int()),
});

export const GetMenuQuery = z.strictObject({
  brand_id: Id.optional(),
  branch_id: Id.optional(),
  ...TENANT_QUERY,
});

// ─── Entities (business definition, and sections of a store layer) ──────────────────────────

const TimesOut = AvailableTimes.nullable();
const BoolMap = z.record(z.string(), z.boolean());
const StrMap = z.record(z.string(), z.string());

export const MenuSection = z.object({
  id: z.number().int(),
  brand_id: z.number().int(),
  /** null: the business definition; else the store override of that branch. */
  branch_id: z.number().int().nullable(),
  title: z.string(),
  description: z.string(),
  /** null: follows the branch's opening hours. */
  availableTimes: TimesOut,
  isEnabled: z.boolean(),
  visibilities: BoolMap,
  blackoutDates: z.array(z.string()),
  category_ids: z.array(z.number().int()),
});

export const MenuCategory = z.object({
  id: z.number().int(),
  brand_id: z.number().int(),
  title: z.string(),
  description: z.string(),
  isEnabled: z.boolean(),
  section_ids: z.array(z.number().int()),
  item_ids: z.array(z.number().int()),
});

export const MenuItem = z.object({
  id: z.number().int(),
  brand_id: z.number().int(),
  title: z.string(),
  partner_item_id: z.string(),
  description: z.string(),
  prices: StrMap,
  groupPrices: StrMap,
  visibilities: BoolMap,
  enabled: z.boolean(),
  onlyModifier: z.boolean(),
  category_ids: z.array(z.number().int()),
  /** Modifier groups offered on this item. */
  modifier_group_ids: z.array(z.number().int()),
  /** For modifiers: the groups this modifier is a member of. */
  member_of_group_ids: z.array(z.number().int()),
});

export const MenuModifierGroup = z.object({
  id: z.number().int(),
  brand_id: z.number().int(),
  title: z.string(),
  min: z.number().int(),
  max: z.number().int(),
  modifier_ids: z.array(z.number().int()),
  /** Items this group is offered on. */
  item_ids: z.array(z.number().int()),
});

// ─── Snapshot tree [pinned] ─────────────────────────────────────────────────────────────────

export const SnapshotModifier = z.object({
  id: z.number().int(),
  title: z.string(),
  partner_item_id: z.string(),
  prices: StrMap,
  isAvailable: z.boolean(),
});
export const SnapshotItem = z.object({
  id: z.number().int(),
  title: z.string(),
  partner_item_id: z.string(),
  prices: StrMap,
  groupPrices: StrMap,
  visibilities: BoolMap,
  enabled: z.boolean(),
  isAvailable: z.boolean(),
  stock: z.number().int().nullable(),
  snoozed_until: z.string().nullable(),
  modifierGroups: z.array(
    z.object({
      id: z.number().int(),
      title: z.string(),
      min: z.number().int(),
      max: z.number().int(),
      modifiers: z.array(SnapshotModifier),
    }),
  ),
});
export const MenuSnapshot = z.object({
  brand_id: z.number().int(),
  branch_id: z.number().int(),
  version: z.number().int(),
  published_at: z.string(),
  sections: z.array(
    z.object({
      id: z.number().int(),
      title: z.string(),
      availableTimes: TimesOut,
      isEnabled: z.boolean(),
      visibilities: BoolMap,
      blackoutDates: z.array(z.string()),
      categories: z.array(
        z.object({ id: z.number().int(), title: z.string(), items: z.array(SnapshotItem) }),
      ),
    }),
  ),
});

/** GET /menus without brand_id and branch_id: the business definition of every brand. */
export const BusinessMenu = z.object({
  business_id: z.number().int(),
  brands: z.array(
    z.object({
      brand_id: z.number().int(),
      title: z.string(),
      sections: z.array(
        z.object({
          id: z.number().int(),
          title: z.string(),
          description: z.string(),
          availableTimes: TimesOut,
          isEnabled: z.boolean(),
          visibilities: BoolMap,
          blackoutDates: z.array(z.string()),
          categories: z.array(
            z.object({
              id: z.number().int(),
              title: z.string(),
              description: z.string(),
              isEnabled: z.boolean(),
              items: z.array(
                z.object({
                  id: z.number().int(),
                  title: z.string(),
                  partner_item_id: z.string(),
                  description: z.string(),
                  prices: StrMap,
                  groupPrices: StrMap,
                  visibilities: BoolMap,
                  enabled: z.boolean(),
                  modifierGroups: z.array(
                    z.object({
                      id: z.number().int(),
                      title: z.string(),
                      min: z.number().int(),
                      max: z.number().int(),
                      modifiers: z.array(
                        z.object({
                          id: z.number().int(),
                          title: z.string(),
                          partner_item_id: z.string(),
                          prices: StrMap,
                          enabled: z.boolean(),
                        }),
                      ),
                    }),
                  ),
                }),
              ),
            }),
          ),
        }),
      ),
      /** Entities not reachable from a section: created but not (or no longer) linked. */
      unlinked: z.object({
        categories: z.array(MenuCategory),
        items: z.array(MenuItem),
        modifierGroups: z.array(MenuModifierGroup),
      }),
    }),
  ),
});

export const GetMenuResponse = z.union([MenuSnapshot, BusinessMenu]);

export const MenuPublication = z.object({
  id: z.number().int(),
  brand_id: z.number().int(),
  branch_id: z.number().int(),
  version: z.number().int(),
  provider_id: z.number().int(),
  status: z.literal('shipped'),
  items: z.number().int(),
  published_at: z.string(),
});

export const PublicationsQuery = PaginationQuery.extend({
  brand_id: Id.optional(),
  branch_id: Id.optional(),
  ...TENANT_QUERY,
}).strict();

// ─── Operational state: availability, snooze, enable, stock ─────────────────────────────────

export const SkuParams = z.object({ partner_item_id: Sku });

export const AvailabilityBody = z.strictObject({
  branch_id: IntId,
  isAvailable: z.boolean(),
  business_id: BusinessIdIgnored,
});

export const BulkAvailabilityBody = z.strictObject({
  branch_id: IntId,
  items: z
    .array(z.strictObject({ partner_item_id: Sku, isAvailable: z.boolean() }))
    .min(1)
    .max(1000),
  business_id: BusinessIdIgnored,
});

export const SnoozeBody = z.strictObject({
  branch_id: IntId,
  until: IsoDateTime,
  business_id: BusinessIdIgnored,
});

export const EnableBody = z.strictObject({
  ids: IdList,
  isEnabled: z.boolean(),
  /** Omitted: the business definition and every store of the entities' brands. */
  branch_ids: IdList.optional(),
  business_id: BusinessIdIgnored,
});

export const StocksBody = z.strictObject({
  branch_id: IntId,
  /** stock null stops tracking the count. */
  items: z
    .array(
      z.strictObject({ partner_item_id: Sku, stock: z.number().int().min(0).max(1_000_000_000).nullable() }),
    )
    .min(1)
    .max(1000),
  business_id: BusinessIdIgnored,
});

/** The live state of one SKU at one branch (what GET /menus shows for it). */
export const ItemStockState = z.object({
  branch_id: z.number().int(),
  partner_item_id: z.string(),
  /** Items carrying this SKU in the brands of the branch. */
  item_ids: z.array(z.number().int()),
  isAvailable: z.boolean(),
  stock: z.number().int().nullable(),
  snoozed_until: z.string().nullable(),
});

export const BulkItemStockState = z.object({
  branch_id: z.number().int(),
  items: z.array(ItemStockState),
});

export const EnableResult = z.object({
  ids: z.array(z.number().int()),
  isEnabled: z.boolean(),
  /** null when the business definition changed too (no branch_ids given). */
  branch_ids: z.array(z.number().int()).nullable(),
  /** Stores (brand, branch) whose menu changed. */
  stores: z.array(z.object({ brand_id: z.number().int(), branch_id: z.number().int() })),
});

// ─── OOS activity ───────────────────────────────────────────────────────────────────────────

export const OosQuery = PaginationQuery.extend({
  from: IsoDateTime.optional(),
  to: IsoDateTime.optional(),
  branch_id: Id.optional(),
  brand_id: Id.optional(),
  ...TENANT_QUERY,
}).strict();

const OosEntityType = z.enum(['section', 'category', 'item']);
const OosAction = z.enum(['availability', 'snooze', 'enable', 'stock']);

export const OosActivity = z.object({
  id: z.number().int(),
  at: z.string(),
  /** null for a business-level enable (no branch_ids). */
  branch_id: z.number().int().nullable(),
  brand_id: z.number().int(),
  entity_type: OosEntityType,
  entity_id: z.number().int(),
  partner_item_id: z.string().nullable(),
  title: z.string(),
  action: OosAction,
  /** Items: `{isAvailable, stock, snoozed_until}`; enable: `{isEnabled}`. */
  before: z.record(z.string(), z.unknown()),
  after: z.record(z.string(), z.unknown()),
  /** Snooze end, for snoozes. */
  until: z.string().nullable(),
  /** Key of the credential that made the change. */
  actor: z.string(),
});

export const OosSummary = z.object({
  branch_id: z.number().int().nullable(),
  brand_id: z.number().int(),
  entity_type: OosEntityType,
  entity_id: z.number().int(),
  partner_item_id: z.string().nullable(),
  title: z.string(),
  /** Changes recorded in the range. */
  changes: z.number().int(),
  /** Changes that took the entity out (available → unavailable, enabled → disabled). */
  went_out: z.number().int(),
  /** Changes that brought it back. */
  came_back: z.number().int(),
  last_action: OosAction,
  last_at: z.string(),
});

// Their names in the OpenAPI document (components.schemas), which code generators name types after.
for (const [id, schema] of Object.entries({
  MenuSection,
  MenuCategory,
  MenuItem,
  MenuModifierGroup,
  SnapshotModifier,
  SnapshotItem,
  MenuSnapshot,
  BusinessMenu,
  Menu: GetMenuResponse,
  MenuPublication,
  SyncResult,
  PublishResult,
  ItemStockState,
  BulkItemStockState,
  EnableResult,
  OosActivity,
  OosSummary,
}))
  named(id, schema);

// Checked against the stored menu (json-schema.ts, stateRules): stated on each operation.
const BRAND_OF_BUSINESS = "a brand of the credential's business";
const PROVIDER_KEYS = 'keys are existing provider ids';
stateRules(CreateSectionBody, {
  brand_id: BRAND_OF_BUSINESS,
  branch_ids: 'branches carrying the brand',
  visibilities: PROVIDER_KEYS,
});
stateRules(UpdateSectionBody, { visibilities: PROVIDER_KEYS });
stateRules(CreateCategoryBody, { brand_id: BRAND_OF_BUSINESS });
for (const body of [UpdateSectionBody, UpdateCategoryBody, UpdateModifierGroupBody])
  stateRules(body, { brand_id: 'an entity stays in its brand: another brand_id than its own is refused' });
const ITEM_RULES = {
  brand_id: BRAND_OF_BUSINESS,
  partner_item_id: 'unique among the items of the brand',
  prices: PROVIDER_KEYS,
  visibilities: PROVIDER_KEYS,
  groupPrices: "keys are price groups of the credential's business",
  category_ids: 'categories of the same brand; a modifier (onlyModifier) is in none',
  onlyModifier: 'an item in categories cannot become a modifier',
};
stateRules(CreateItemBody, ITEM_RULES);
stateRules(UpdateItemBody, {
  ...ITEM_RULES,
  brand_id: 'an entity stays in its brand: another brand_id than its own is refused',
});
stateRules(LinkCategoriesToItemBody, {
  item_id: 'not a modifier (onlyModifier)',
  category_ids: "categories of the item's brand",
});
stateRules(LinkCategoriesToSectionBody, { category_ids: "categories of the section's brand" });
stateRules(CreateModifierGroupBody, {
  brand_id: BRAND_OF_BUSINESS,
  min: 'not above max',
  max: 'not below min',
});
stateRules(UpdateModifierGroupBody, {
  min: 'not above max (the stored one if not sent)',
  max: 'not below min (the stored one if not sent)',
});
stateRules(LinkModifiersToGroupBody, { modifier_ids: "items of the group's brand" });
stateRules(LinkModifierGroupToItemBody, {
  item_ids: "items of the group's brand",
  modifier_ids: "modifiers of the group's brand",
  min: 'not above max',
  max: 'not below min',
});
for (const body of [SyncBody, PublishBody])
  stateRules(body, {
    brand_id: BRAND_OF_BUSINESS,
    branch_id: 'a branch carrying the brand',
    branch_ids: 'branches carrying the brand',
  });
stateRules(SnoozeBody, { until: 'in the future' });
stateRules(EnableBody, { branch_ids: "branches carrying the entities' brands" });
stateRules(StocksBody, { items: 'SKUs of the brands of the branch' });
stateRules(OosQuery, { from: 'not after to' });
stateRules(GetMenuQuery, {
  brand_id: 'given together with branch_id (the store menu), or neither (the business definition)',
  branch_id: 'given together with brand_id',
});
