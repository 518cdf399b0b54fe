import type { z } from 'zod';
import type * as branches from '../contract/schemas/branches.js';
import type * as brands from '../contract/schemas/brands.js';
import type * as catalog from '../contract/schemas/catalog.js';
import type * as common from '../contract/schemas/common.js';
import type * as menus from '../contract/schemas/menus.js';
import type * as orders from '../contract/schemas/orders.js';
import type * as webhooks from '../contract/schemas/webhooks.js';

// The API's resources as TypeScript types, under the names the OpenAPI document gives them in
// components.schemas (`named()` in the contract): what `call()` returns is made of these.

type Of<S extends z.ZodType> = z.output<S>;

export type AvailableTimes = Of<typeof common.AvailableTimes>;
export type Branch = Of<typeof branches.Branch>;
export type Brand = Of<typeof brands.Brand>;
export type BrandListEntry = Of<typeof brands.BrandListEntry>;
export type BulkItemStockState = Of<typeof menus.BulkItemStockState>;
export type BusinessMenu = Of<typeof menus.BusinessMenu>;
export type BusinessSummary = Of<typeof brands.BusinessSummary>;
export type CartLine = Of<typeof orders.CartLine>;
export type CartModifier = Of<typeof orders.CartModifier>;
export type City = Of<typeof catalog.City>;
export type Country = Of<typeof catalog.Country>;
export type Currency = Of<typeof catalog.Currency>;
export type Customer = Of<typeof orders.Customer>;
export type Deleted = Of<typeof common.DeletedPayload>;
export type DictionaryEntry = Of<typeof catalog.DictionaryRow>;
export type EnableResult = Of<typeof menus.EnableResult>;
export type HourMinute = Of<typeof common.HourMinute>;
export type ItemStockState = Of<typeof menus.ItemStockState>;
export type Menu = Of<typeof menus.GetMenuResponse>;
export type MenuCategory = Of<typeof menus.MenuCategory>;
export type MenuItem = Of<typeof menus.MenuItem>;
export type MenuModifierGroup = Of<typeof menus.MenuModifierGroup>;
export type MenuPublication = Of<typeof menus.MenuPublication>;
export type MenuSection = Of<typeof menus.MenuSection>;
export type MenuSnapshot = Of<typeof menus.MenuSnapshot>;
export type OosActivity = Of<typeof menus.OosActivity>;
export type OosSummary = Of<typeof menus.OosSummary>;
export type Order = Of<typeof orders.Order>;
export type OrderEventPayload = Of<typeof orders.OrderEventPayload>;
export type OrderStatus = Of<typeof catalog.OrderStatusRow>;
export type PriceGroup = Of<typeof catalog.PriceGroup>;
export type PriceMap = Of<typeof common.PriceMap>;
export type Provider = Of<typeof catalog.Provider>;
export type PublishResult = Of<typeof menus.PublishResult>;
export type SnapshotItem = Of<typeof menus.SnapshotItem>;
export type SnapshotModifier = Of<typeof menus.SnapshotModifier>;
export type StatusHistoryEntry = Of<typeof orders.StatusHistoryEntry>;
export type SyncResult = Of<typeof menus.SyncResult>;
export type TimeSlot = Of<typeof common.TimeSlot>;
export type VisibilitiesMap = Of<typeof common.VisibilitiesMap>;
export type Visibility = Of<typeof brands.Visibility>;
export type Webhook = Of<typeof webhooks.Webhook>;
export type WebhookEvent = Of<typeof webhooks.WebhookEvent>;
