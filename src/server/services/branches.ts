// Brands and branches of one business: what the handlers and the demo seed both call.
import {
  checkReferences,
  composeBranch,
  scheduleFields,
  unknownProviderKeys,
  withDefaults,
} from '../domain/branches.js';
import { PROVIDERS } from '../domain/reference-data.js';
import { invalid, notFound } from '../errors.js';
import type { BranchRow, BrandRow, Visibilities } from '../store/brands-repo.js';
import type { TenantTx } from '../store/store.js';

const PROVIDER_IDS = new Set(PROVIDERS.map((p) => p.id));
const iso = (ms: number) => new Date(ms).toISOString();

export const brandOut = (r: BrandRow) => ({
  id: r.id,
  business_id: r.business_id,
  title: r.title,
  logo: r.logo,
  banner: r.banner,
});

/** `forUpdate`: the caller writes the row back merged (see BrandsRepo.get). */
export async function requireBrand(t: TenantTx, id: number, forUpdate = false): Promise<BrandRow> {
  const r = await t.brands.get(id, forUpdate);
  if (!r) throw notFound('brand', id);
  return r;
}

export async function requireBranch(t: TenantTx, id: number, forUpdate = false): Promise<BranchRow> {
  const r = await t.branches.get(id, forUpdate);
  if (!r) throw notFound('branch', id);
  return r;
}

function checkVisibilities(map: Visibilities): void {
  const unknown = unknownProviderKeys(map, PROVIDER_IDS);
  if (unknown.length)
    throw invalid(unknown.map((k) => ({ path: ['body', 'visibilities', k], message: `no provider ${k}` })));
}

export async function createBrand(
  t: TenantTx,
  b: { title: string; logo?: string | undefined; banner?: string | undefined },
  now: number,
): Promise<BrandRow> {
  return t.brands.create({ title: b.title, logo: b.logo ?? '', banner: b.banner ?? '' }, now);
}

export async function updateBrand(
  t: TenantTx,
  id: number,
  b: { title?: string | undefined; logo?: string | undefined; banner?: string | undefined },
  now: number,
): Promise<BrandRow> {
  const r = await requireBrand(t, id, true);
  await t.brands.update(
    r.id,
    { title: b.title ?? r.title, logo: b.logo ?? r.logo, banner: b.banner ?? r.banner },
    now,
  );
  // brand_titles is part of every branch record carrying this brand.
  if (b.title !== undefined && b.title !== r.title) {
    for (const branch of await t.branches.linkedTo(r.id)) await refreshBranchRecord(t, branch, true);
  }
  return requireBrand(t, r.id);
}

export async function setBrandVisibility(t: TenantTx, id: number, v: Visibilities, now: number) {
  const r = await requireBrand(t, id, true);
  checkVisibilities(v);
  const merged = { ...r.visibilities, ...v };
  await t.brands.setVisibilities(r.id, merged, now);
  return { id: r.id, visibilities: merged };
}

/** Recomposes and stores the wire record of one branch from its parts; returns it. */
async function refreshBranchRecord(t: TenantTx, id: number, evenDeleted = false): Promise<string> {
  // Locked: the record is composed from the row as it is now, not from a change in flight.
  const r = evenDeleted ? await t.branches.getAny(id, true) : await requireBranch(t, id, true);
  if (!r) throw notFound('branch', id);
  const business = await t.business();
  const record = JSON.stringify(
    composeBranch({
      id,
      business: { id: business.id, title: business.title },
      brands: await t.branches.brandsOf(id),
      fields: r.fields,
      visibilities: r.visibilities,
      busy_mode_updated_at: r.busy_mode_updated_at,
      created_at: r.created_at,
      updated_at: r.updated_at,
      deleted_at: r.deleted_at,
    }),
  );
  await t.branches.saveRecord(id, record);
  return record;
}

async function referenceSets(t: TenantTx) {
  return { brands: new Set(await t.brands.ids()), groups: new Set(await t.priceGroups.ids()) };
}

/** Creates a branch; returns its wire record. */
export async function createBranch(t: TenantTx, body: Record<string, unknown>, now: number): Promise<string> {
  const { business_id: _ignored, ...given } = body;
  const { brands, groups } = await referenceSets(t);
  const bad = checkReferences(given, brands, groups);
  if (bad.length) throw invalid(bad, `invalid branch: ${bad.map((b) => b.message).join('; ')}`);
  const fields = withDefaults(given);
  const id = await t.branches.insert(
    {
      fields,
      price_group_id: (fields.price_group_id as number | undefined) ?? null,
      brand_ids: fields.brand_ids as number[],
    },
    now,
  );
  return refreshBranchRecord(t, id);
}

export async function updateBranch(
  t: TenantTx,
  id: number,
  body: Record<string, unknown>,
  now: number,
): Promise<string> {
  const r = await requireBranch(t, id, true);
  const { business_id: _ignored, ...given } = body;
  const current = r.fields;
  // A new schedule re-derives the fields that follow from it, unless they are given too.
  const derived = given.available_times
    ? scheduleFields(given.available_times as Parameters<typeof scheduleFields>[0])
    : {};
  const next = { ...current, ...derived, ...given };
  // The pair is validated together even when only one half changes.
  const { brands, groups } = await referenceSets(t);
  const bad = checkReferences(
    { ...given, country_id: next.country_id, city_id: next.city_id },
    brands,
    groups,
  );
  if (bad.length) throw invalid(bad, `invalid branch: ${bad.map((b) => b.message).join('; ')}`);
  const busyChanged = given.is_busy !== undefined && given.is_busy !== current.is_busy;
  await t.branches.update(
    r.id,
    {
      fields: next,
      price_group_id: (next.price_group_id as number | undefined) ?? null,
      busy_mode_updated_at: busyChanged ? iso(now) : r.busy_mode_updated_at,
    },
    now,
  );
  if (given.brand_ids) await t.branches.setBrands(r.id, given.brand_ids as number[]);
  return refreshBranchRecord(t, r.id);
}

export async function setBranchVisibility(
  t: TenantTx,
  id: number,
  v: Visibilities,
  now: number,
): Promise<string> {
  const r = await requireBranch(t, id, true);
  checkVisibilities(v);
  await t.branches.setVisibilities(r.id, { ...r.visibilities, ...v }, now);
  return refreshBranchRecord(t, r.id);
}
