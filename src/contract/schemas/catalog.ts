import { z } from 'zod';
import { atLeastOneOf, named } from '../json-schema.js';
import { BusinessIdIgnored, IsoDateTime, nonBlank } from './common.js';

export const Provider = z.object({
  id: z.number().int(),
  title: z.string(),
  type: z.enum(['marketplace', 'aggregator', 'direct']),
  countries: z.array(z.string()),
});

export const PriceGroup = z.object({
  id: z.number().int(),
  business_id: z.number().int(),
  title: z.string(),
  description: z.string(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});

const Title = nonBlank(200);
const Description = z.string().max(1000);

/** POST creates a group with it; PUT replaces a whole group with it (an omitted description becomes empty). */
export const CreatePriceGroupBody = z.strictObject({
  title: Title,
  description: Description.optional(),
  business_id: BusinessIdIgnored,
});
export const PatchPriceGroupBody = atLeastOneOf(
  z.strictObject({
    title: Title.optional(),
    description: Description.optional(),
    business_id: BusinessIdIgnored,
  }),
  ['title', 'description'],
);

const LocaleMap = z.record(z.string(), z.string());
export const OrderStatusRow = z.object({
  id: z.number().int(),
  status: z.string(),
  translation: LocaleMap,
  translation_btn: z
    .array(
      z.object({
        order_type_id: z.number().int(),
        action_btn_text: LocaleMap,
        past_order_action_btn_text: LocaleMap.optional(),
      }),
    )
    .optional(),
});

export const Currency = z.object({
  id: z.number().int(),
  code: z.string(),
  symbol: z.string(),
  title: z.string(),
  decimals: z.number().int(),
});
export const Country = z.object({
  id: z.number().int(),
  code: z.string(),
  title: z.string(),
  currency_id: z.number().int(),
  phone_code: z.string(),
  language_id: z.string(),
  time_zone: z.string(),
});
export const City = z.object({
  id: z.number().int(),
  country_id: z.number().int(),
  title: z.string(),
  time_zone: z.string(),
});
export const DictionaryRow = z.object({ id: z.number().int(), code: z.string(), title: z.string() });

// Their names in the OpenAPI document (components.schemas), which code generators name types after.
for (const [id, schema] of Object.entries({
  Provider,
  PriceGroup,
  OrderStatus: OrderStatusRow,
  Currency,
  Country,
  City,
  DictionaryEntry: DictionaryRow,
}))
  named(id, schema);
