import { offsetOf } from '../domain/pagination.js';
import {
  brandOut,
  createBranch,
  createBrand,
  requireBranch,
  setBranchVisibility,
  setBrandVisibility,
  updateBranch,
  updateBrand,
} from '../services/branches.js';
import type { BranchPage } from '../store/brands-repo.js';
import { type HandlersFor, RawJson, SharedJson } from './context.js';

// The serialised list payload of a branch page, for as long as the store hands out that page.
const pageJson = new WeakMap<BranchPage, Map<string, SharedJson>>();

function serialisePage(page: BranchPage, p: { page: number; size: number }): SharedJson {
  let byEcho = pageJson.get(page);
  if (!byEcho) {
    byEcho = new Map();
    pageJson.set(page, byEcho);
  }
  const key = `${p.page}:${p.size}`;
  let out = byEcho.get(key);
  if (!out) {
    // Stored records are already JSON: concatenate instead of parse + stringify.
    out = new SharedJson(
      `{"results":[${page.records.join(',')}],"page":${p.page},"size":${p.size},"total":${page.total}}`,
    );
    byEcho.set(key, out);
  }
  return out;
}

export const brandHandlers: HandlersFor<
  | 'listBrands'
  | 'createBrand'
  | 'updateBrand'
  | 'setBrandVisibility'
  | 'listBranches'
  | 'getBranch'
  | 'createBranch'
  | 'updateBranch'
  | 'setBranchVisibility'
> = {
  listBrands: async ({ store }) => {
    const b = await store.business();
    const brands = (await store.brands.list()).map(brandOut);
    return [{ brands, business: { id: b.id, title: b.title, address: b.address, logo: b.logo } }];
  },

  createBrand: async ({ store, now }, { body }) => brandOut(await createBrand(store, body, now)),

  updateBrand: async ({ store, now }, { params, body }) =>
    brandOut(await updateBrand(store, params.id, body, now)),

  setBrandVisibility: ({ store, now }, { params, body }) =>
    setBrandVisibility(store, params.id, body.visibilities, now),

  listBranches: async ({ store }, { query }) =>
    serialisePage(await store.branches.page(query.size, offsetOf(query)), query),

  getBranch: async ({ store }, { params }) => new RawJson((await requireBranch(store, params.id)).record),

  createBranch: async ({ store, now }, { body }) => new RawJson(await createBranch(store, body, now)),

  updateBranch: async ({ store, now }, { params, body }) =>
    new RawJson(await updateBranch(store, params.id, body, now)),

  setBranchVisibility: async ({ store, now }, { params, body }) =>
    new RawJson(await setBranchVisibility(store, params.id, body.visibilities, now)),
};
