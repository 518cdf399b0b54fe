import { z } from 'zod';
import { named, stateRules } from '../json-schema.js';
import {
  AvailableTimesLenient,
  BusinessIdIgnored,
  HourMinute,
  IntId,
  IsoDateTime,
  nonBlank,
  VisibilitiesMap,
} from './common.js';

const Hhmm = HourMinute.nullable();
const E164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number such as +6281234567890');

/**
 * Writable branch fields with known types. Branch records allow additional properties
 * (spec §2.5: about 80 fields, unlisted ones pass through unchanged).
 */
const writable = {
  title: nonBlank(200),
  brand_ids: z.array(IntId).min(1).max(100),
  address: z.string().max(500),
  phone: E164,
  secondary_phone: E164.nullable(),
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
  country_id: IntId,
  city_id: IntId,
  currency_id: IntId,
  language_id: z.string(),
  time_zone: z.string().nullable(),
  opening_time: Hhmm,
  closing_time: Hhmm,
  availability_mask: z.number().int().min(0).max(127),
  day_availability: z.array(z.number().int().min(0).max(6)).max(7),
  available_times: AvailableTimesLenient,
  preparation_time: z.number().int().min(0),
  order_cleanup_time: z.number().int().min(0),
  subscription_type: z.number().int(),
  price_group_id: IntId.nullable(),
  feature_flags: z.array(z.string().max(100)).max(100),
  google_map_link: z.string().nullable(),
  is_busy: z.boolean(),
  is_demo: z.boolean(),
  is_churned: z.boolean(),
  is_shift_enabled: z.boolean(),
  is_vat_registered: z.boolean(),
  is_driver_progress_enabled: z.boolean(),
  marketplace_enabled: z.boolean(),
  open_order_enabled: z.boolean(),
  post_payment_enabled: z.boolean(),
  pre_payment_enabled: z.boolean(),
  pay_and_complete_enabled: z.boolean(),
  scheduled_order_enabled: z.boolean(),
  manual_order_auto_accept_enabled: z.boolean(),
  printer_routing_enabled: z.boolean(),
  popular_items_enabled: z.boolean(),
};

/** Fields the server computes; a write may not set them. */
const BRANCH_SERVER_FIELDS = [
  'id',
  'business_title',
  'brand_titles',
  'country_code',
  'currency_code',
  'currency_symbol',
  'language_code',
  'language_title',
  'visibilities',
  'busy_mode_updated_at',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;

const noServerFields = (b: Record<string, unknown>, ctx: z.RefinementCtx) => {
  for (const f of BRANCH_SERVER_FIELDS) {
    if (f in b) ctx.addIssue({ code: 'custom', path: [f], message: `${f} is set by the server` });
  }
};

const required = ['title', 'brand_ids', 'country_id', 'city_id', 'currency_id', 'available_times'] as const;
type Req = (typeof required)[number];
type Writable = typeof writable;

export const CreateBranchBody = z
  .looseObject({
    ...(Object.fromEntries(
      Object.entries(writable).map(([k, v]) => [
        k,
        (required as readonly string[]).includes(k) ? v : v.optional(),
      ]),
    ) as { [K in keyof Writable]: K extends Req ? Writable[K] : z.ZodOptional<Writable[K]> }),
    business_id: BusinessIdIgnored,
  })
  .superRefine(noServerFields);

export const UpdateBranchBody = z
  .looseObject({
    ...(Object.fromEntries(Object.entries(writable).map(([k, v]) => [k, v.optional()])) as {
      [K in keyof Writable]: z.ZodOptional<Writable[K]>;
    }),
    business_id: BusinessIdIgnored,
  })
  .superRefine(noServerFields);

export const Branch = z.looseObject({
  ...writable,
  // Reads are lenient where stored records may predate a rule: a branch created without a phone has ''.
  phone: z.string(),
  secondary_phone: z.string().nullable(),
  id: z.number().int(),
  business_id: z.number().int(),
  business_title: z.string(),
  brand_titles: z.array(z.string()),
  country_code: z.string(),
  currency_code: z.string(),
  currency_symbol: z.string(),
  language_code: z.string(),
  language_title: z.string(),
  visibilities: VisibilitiesMap,
  busy_mode_updated_at: IsoDateTime,
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  deleted_at: IsoDateTime.nullable(),
});
export type Branch = z.infer<typeof Branch>;

// Their names in the OpenAPI document (components.schemas), which code generators name types after.
for (const [id, schema] of Object.entries({ Branch })) named(id, schema);

// Checked against the stored data (json-schema.ts, stateRules): stated on each operation.
const BRANCH_RULES = {
  brand_ids: "brands of the credential's business",
  country_id: 'an existing country',
  city_id: 'a city of that country',
  currency_id: 'an existing currency',
  language_id: 'an existing language',
  price_group_id: "a price group of the credential's business",
  visibilities: 'keys are existing provider ids',
};
stateRules(CreateBranchBody, BRANCH_RULES);
stateRules(UpdateBranchBody, BRANCH_RULES);
