import type { FieldIssue } from '../errors.js';
import { COUNTRIES, CURRENCIES, LANGUAGES, findCity } from './reference-data.js';

// Pure rules for branch records: references that must exist, defaults, and the composed wire record.

type Fields = Record<string, unknown>;
type Slot = { startTime: number; endTime: number };
type Day = { disabled?: boolean; slots: Slot[] };
type Times = Record<string, Day>;

/** Days that are open under an AvailableTimes value, 0 = Sunday. */
export function openDays(times: Times): number[] {
  return Object.keys(times)
    .map(Number)
    .sort((a, b) => a - b)
    .filter((d) => !times[String(d)]!.disabled);
}

/** Checks what a schema cannot: reference ids that must exist and agree with each other. */
export function checkReferences(
  f: Fields,
  existingBrandIds: ReadonlySet<number>,
  priceGroupIds: ReadonlySet<number>,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  const countryId = f.country_id as number | undefined;
  const cityId = f.city_id as number | undefined;
  if (countryId !== undefined && !COUNTRIES.some((c) => c.id === countryId)) {
    out.push({ path: ['body', 'country_id'], message: `no country ${countryId}` });
  } else if (countryId !== undefined && cityId !== undefined && !findCity(countryId, cityId)) {
    out.push({ path: ['body', 'city_id'], message: `city ${cityId} is not in country ${countryId}` });
  }
  if (f.currency_id !== undefined && !CURRENCIES.some((c) => c.id === f.currency_id)) {
    out.push({ path: ['body', 'currency_id'], message: `no currency ${String(f.currency_id)}` });
  }
  if (f.language_id !== undefined && !LANGUAGES.some((l) => l.id === f.language_id)) {
    out.push({ path: ['body', 'language_id'], message: `no language ${String(f.language_id)}` });
  }
  const brandIds = (f.brand_ids as number[] | undefined) ?? [];
  brandIds.forEach((id, i) => {
    if (!existingBrandIds.has(id)) out.push({ path: ['body', 'brand_ids', i], message: `no brand ${id}` });
  });
  if (typeof f.price_group_id === 'number' && !priceGroupIds.has(f.price_group_id)) {
    out.push({ path: ['body', 'price_group_id'], message: `no price group ${f.price_group_id}` });
  }
  return out;
}

/** The fields that follow from a schedule: open days, their bit-mask, earliest opening, latest closing. */
export function scheduleFields(times: Times): Fields {
  const days = openDays(times);
  const slots = days.flatMap((d) => times[String(d)]!.slots);
  return {
    opening_time: slots.length ? Math.min(...slots.map((s) => s.startTime)) : null,
    closing_time: slots.length ? Math.max(...slots.map((s) => s.endTime)) : null,
    availability_mask: days.reduce((m, d) => m | (1 << d), 0),
    day_availability: days,
  };
}

/** Fills the writable fields a create left out, deriving what can be derived from the schedule and city. */
export function withDefaults(f: Fields): Fields {
  const times = f.available_times as Times;
  const country = COUNTRIES.find((c) => c.id === f.country_id);
  const city = findCity(f.country_id as number, f.city_id as number);
  return {
    address: '',
    phone: '',
    secondary_phone: null,
    lat: 0,
    lon: 0,
    language_id: country?.language_id ?? '1',
    time_zone: city?.time_zone ?? country?.time_zone ?? null,
    ...scheduleFields(times),
    preparation_time: 15,
    order_cleanup_time: 60,
    subscription_type: 1,
    price_group_id: null,
    feature_flags: [],
    google_map_link: null,
    is_busy: false,
    is_demo: false,
    is_churned: false,
    is_shift_enabled: false,
    is_vat_registered: false,
    is_driver_progress_enabled: false,
    marketplace_enabled: true,
    open_order_enabled: false,
    post_payment_enabled: false,
    pre_payment_enabled: true,
    pay_and_complete_enabled: false,
    scheduled_order_enabled: false,
    manual_order_auto_accept_enabled: false,
    printer_routing_enabled: false,
    popular_items_enabled: false,
    ...f,
  };
}

interface BranchParts {
  id: number;
  business: { id: number; title: string };
  brands: { id: number; title: string }[];
  fields: Fields;
  visibilities: Record<string, boolean>;
  busy_mode_updated_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** The full wire record (spec §2.5): computed fields first, then the stored fields, extras passing through. */
export function composeBranch(p: BranchParts): Fields {
  const { brand_ids: _ignored, ...fields } = p.fields;
  const country = COUNTRIES.find((c) => c.id === fields.country_id);
  const currency = CURRENCIES.find((c) => c.id === fields.currency_id);
  const language = LANGUAGES.find((l) => l.id === fields.language_id);
  return {
    id: p.id,
    title: fields.title,
    business_id: p.business.id,
    business_title: p.business.title,
    brand_ids: p.brands.map((b) => b.id),
    brand_titles: p.brands.map((b) => b.title),
    ...fields,
    country_code: country?.code ?? '',
    currency_code: currency?.code ?? '',
    currency_symbol: currency?.symbol ?? '',
    language_code: language?.code ?? '',
    language_title: language?.title ?? '',
    visibilities: p.visibilities,
    // Never null on the wire (spec §2.5): a busy mode never changed was set at creation.
    busy_mode_updated_at: p.busy_mode_updated_at ?? p.created_at,
    created_at: p.created_at,
    updated_at: p.updated_at,
    deleted_at: p.deleted_at,
  };
}

/** Provider-id keys of a VisibilitiesMap that name no provider. */
export function unknownProviderKeys(
  map: Record<string, unknown>,
  providerIds: ReadonlySet<number>,
): string[] {
  return Object.keys(map).filter((k) => !providerIds.has(Number(k)));
}
