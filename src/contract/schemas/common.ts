import { z } from 'zod';
import { documentedAs, named } from '../json-schema.js';

// Wire-level building blocks shared by every resource.

/**
 * An integer from a query string or path: plain decimal digits only. `Number()` (z.coerce) would
 * also take "0x2", "1e1" and " 1", which a pagination or id rule must refuse.
 */
export function queryInt<T extends z.ZodType>(inner: T) {
  return z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v), inner);
}

export const Id = queryInt(z.number().int().positive());
export const IntId = z.number().int().positive();

/** Accepted anywhere in write bodies and queries; always overwritten by the credential's business. */
export const BusinessIdIgnored = z.union([z.number(), z.string(), z.null()]).optional();

export const IsoDateTime = z.iso.datetime({ offset: true });

/**
 * Text that must not be blank, at most `max` characters as sent; stored trimmed. The length is
 * checked before trimming so the OpenAPI `maxLength` and `pattern` say exactly what is accepted.
 */
export function nonBlank(max: number) {
  return z.string().max(max).regex(/\S/, 'must not be blank').trim();
}

/** Money is a decimal string, never a float. */
export const Decimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string such as "45000.00"');

export const PaginationQuery = z.object({
  page: queryInt(z.number().int().min(1)).default(1),
  size: queryInt(z.number().int().min(1).max(100)).default(20),
});

export function paginated<T extends z.ZodType>(item: T) {
  return z.object({
    results: z.array(item),
    page: z.number().int(),
    size: z.number().int(),
    total: z.number().int(),
  });
}

/** 24-hour integer time: 0..2359, minutes < 60. */
export const HourMinute = documentedAs(
  z
    .number()
    .int()
    .min(0)
    .max(2359)
    .refine((n) => n % 100 < 60, 'minutes must be below 60'),
  {
    // JSON Schema has no "n % 100 < 60": one range per hour says it exactly.
    anyOf: Array.from({ length: 24 }, (_, h) => ({
      type: 'integer',
      minimum: h * 100,
      maximum: h * 100 + 59,
    })),
    description: 'HHMM as an integer: 0 (00:00) to 2359 (23:59), minutes below 60',
  },
);

export const TimeSlot = z.strictObject({ startTime: HourMinute, endTime: HourMinute });

/** Reads accept the sample's snake_case spelling too (spec §2.6) and normalise it. */
const TimeSlotRead = z.preprocess((v) => {
  if (v && typeof v === 'object' && !('startTime' in v) && 'start_time' in v) {
    const { start_time, end_time, ...rest } = v as Record<string, unknown>;
    return { ...rest, startTime: start_time, endTime: end_time };
  }
  return v;
}, TimeSlot);

const DAYS = ['0', '1', '2', '3', '4', '5', '6'] as const;

function availableTimes(slot: z.ZodType) {
  const day = z.strictObject({ disabled: z.boolean().optional(), slots: z.array(slot).min(1).max(24) });
  return z.strictObject(
    Object.fromEntries(DAYS.map((d) => [d, day])) as Record<(typeof DAYS)[number], typeof day>,
  );
}

/** AvailableTimes on writes: every day "0".."6" present with at least one slot. */
export const AvailableTimes = availableTimes(TimeSlot);
/** AvailableTimes on writes and reads of branches, where start_time/end_time are accepted too. */
export const AvailableTimesLenient = availableTimes(TimeSlotRead);
export type AvailableTimes = z.infer<typeof AvailableTimes>;

/**
 * A map key naming an id: plain decimal without a sign or leading zeros, so one id has exactly one
 * spelling (`{"1":false,"01":true}` would otherwise store two contradictory entries for id 1).
 */
export function idKey(what: string) {
  return z
    .string()
    .regex(/^[1-9]\d{0,15}$/, `keys are ${what} written as plain decimal numbers ("1", not "01")`);
}

/** Keyed by provider id. */
export const VisibilitiesMap = z.record(idKey('provider ids'), z.boolean());
export const PriceMap = z.record(idKey('provider ids'), Decimal);

/**
 * `business_id` and `filterByBusiness` in a query are accepted and overridden by the credential's
 * business (spec §1): any value, repeated or not.
 */
export const TENANT_QUERY = {
  business_id: z.unknown().optional().describe("Accepted and ignored: the credential's business applies"),
  filterByBusiness: z
    .unknown()
    .optional()
    .describe("Accepted and ignored: the credential's business applies"),
};

/** A partner query of these fields (none by default) plus the tenancy keys; anything else is refused. */
export function tenantQuery<S extends z.ZodRawShape>(shape: S = {} as S) {
  return z.strictObject({ ...shape, ...TENANT_QUERY });
}

export const DeletedPayload = z.object({ id: z.number().int(), deleted: z.literal(true) });

// Their names in the OpenAPI document (components.schemas), which code generators name types after.
for (const [id, schema] of Object.entries({
  VisibilitiesMap,
  PriceMap,
  TimeSlot,
  AvailableTimes,
  Deleted: DeletedPayload,
}))
  named(id, schema);
