// Price groups of one business: what the handlers and the demo seed both call.
import { ApiError, notFound } from '../errors.js';
import type { PriceGroupRow } from '../store/catalog-repo.js';
import type { TenantTx } from '../store/store.js';

/** `forUpdate`: see BrandsRepo.get. */
async function requirePriceGroup(t: TenantTx, id: number, forUpdate = false): Promise<PriceGroupRow> {
  const r = await t.priceGroups.get(id, forUpdate);
  if (!r) throw notFound('price group', id);
  return r;
}

export function createPriceGroup(
  t: TenantTx,
  g: { title: string; description?: string | undefined },
  now: number,
): Promise<PriceGroupRow> {
  return t.priceGroups.create({ title: g.title, description: g.description ?? '' }, now);
}

/** Replaces (PUT: an absent description becomes '') or patches (PATCH: absent keeps) a group. */
export async function changePriceGroup(
  t: TenantTx,
  id: number,
  g: { title?: string | undefined; description?: string | undefined },
  mode: 'replace' | 'patch',
  now: number,
): Promise<PriceGroupRow> {
  const r = await requirePriceGroup(t, id, true);
  await t.priceGroups.update(
    r.id,
    {
      title: g.title ?? r.title,
      description: g.description ?? (mode === 'replace' ? '' : r.description),
    },
    now,
  );
  return requirePriceGroup(t, r.id);
}

export async function deletePriceGroup(t: TenantTx, id: number) {
  const r = await requirePriceGroup(t, id);
  const users = await t.branches.usingPriceGroup(r.id);
  if (users.length) {
    throw new ApiError('state_resource_in_use', `price group ${r.id} is used by ${users.length} branch(es)`, {
      branch_ids: users,
    });
  }
  await t.priceGroups.delete(r.id);
  return { id: r.id, deleted: true as const };
}
