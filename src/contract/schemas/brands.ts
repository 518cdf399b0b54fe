import { z } from 'zod';
import { atLeastOneOf, named, stateRules } from '../json-schema.js';
import { BusinessIdIgnored, nonBlank, VisibilitiesMap } from './common.js';

export const Brand = z.object({
  id: z.number().int(),
  business_id: z.number().int(),
  title: z.string(),
  logo: z.string(),
  banner: z.string(),
});
export type Brand = z.infer<typeof Brand>;

export const BusinessSummary = z.object({
  id: z.number().int(),
  title: z.string(),
  address: z.string(),
  logo: z.string(),
});

/** Spec §2.4: `data` is an outer array, one element per credential. */
export const BrandListEntry = z.object({ brands: z.array(Brand), business: BusinessSummary });
export const BrandList = z.array(BrandListEntry);

const Title = nonBlank(200);
const ImagePath = z.string().max(500);

export const CreateBrandBody = z.strictObject({
  title: Title,
  logo: ImagePath.optional(),
  banner: ImagePath.optional(),
  business_id: BusinessIdIgnored,
});

export const UpdateBrandBody = atLeastOneOf(
  z.strictObject({
    title: Title.optional(),
    logo: ImagePath.optional(),
    banner: ImagePath.optional(),
    business_id: BusinessIdIgnored,
  }),
  ['title', 'logo', 'banner'],
);

/** Which providers show a brand or branch (docs/api.md, `visibility:write`). */
export const Visibility = z.object({ id: z.number().int(), visibilities: VisibilitiesMap });

export const VisibilityBody = z.strictObject({
  visibilities: VisibilitiesMap,
  business_id: BusinessIdIgnored,
});

// Their names in the OpenAPI document (components.schemas), which code generators name types after.
for (const [id, schema] of Object.entries({ Brand, BusinessSummary, BrandListEntry, Visibility }))
  named(id, schema);

stateRules(VisibilityBody, { visibilities: 'keys are existing provider ids' });
