// The menu layers past the definition: sync into store layers, publish into snapshots, the
// store-level section edit, and GET /menus (the snapshot with live state, cached).
import {
  buildSnapshot,
  type CompiledTemplate,
  compileTemplate,
  countItems,
  type MenuDef,
  nextChange,
  renderTemplate,
  shippedProviders,
  snapshotTemplate,
  type SyncField,
  syncStore,
} from '../../domain/menus.js';
import { ApiError, type FieldIssue, invalid, notFound } from '../../errors.js';
import type { TenantTx } from '../../store/store.js';
import { requireBranch, requireBrand } from '../branches.js';
import { loadBusinessMenu, requireEntity, type SectionPatch } from './catalogue.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Branch ids given in a body: each of the business (else 404) and carrying the brand (else 400). */
async function branchesFor(
  t: TenantTx,
  brandId: number,
  branchIds: readonly number[] | undefined,
): Promise<number[]> {
  if (branchIds === undefined) return t.branches.carrying(brandId);
  const out: number[] = [];
  const bad: FieldIssue[] = [];
  for (const [i, id] of branchIds.entries()) {
    await requireBranch(t, id);
    if (!(await t.branches.carries(id, brandId)))
      bad.push({ path: ['body', 'branch_ids', i], message: `branch ${id} does not carry brand ${brandId}` });
    else if (!out.includes(id)) out.push(id);
  }
  if (bad.length) throw invalid(bad, bad.map((b) => b.message).join('; '));
  return out;
}

interface SyncInput {
  brand_id: number;
  branch_ids?: readonly number[] | undefined;
  fieldIncludeOnSync?: readonly SyncField[] | undefined;
}

export async function syncMenu(t: TenantTx, b: SyncInput, now: number) {
  await requireBrand(t, b.brand_id);
  const branches = await branchesFor(t, b.brand_id, b.branch_ids);
  const include = [...new Set(b.fieldIncludeOnSync ?? [])];
  const business = await loadBusinessMenu(t, b.brand_id);
  for (const branchId of branches) {
    const next = syncStore(business, await t.layers.storeLayer(b.brand_id, branchId), include);
    await t.layers.saveStoreLayer(b.brand_id, branchId, next, now, true);
  }
  return { brand_id: b.brand_id, branches, fieldIncludeOnSync: include, synced_at: iso(now) };
}

async function hiddenProviders(t: TenantTx, brandId: number, branchId: number): Promise<Set<string>> {
  const hidden = new Set<string>();
  for (const map of [
    (await t.brands.get(brandId))?.visibilities,
    (await t.branches.getAny(branchId))?.visibilities,
  ]) {
    for (const [k, v] of Object.entries(map ?? {})) if (v === false) hidden.add(k);
  }
  return hidden;
}

/** Writes a snapshot (a new publish or a rewrite of the current one); returns its tree. */
export async function writeSnapshot(
  t: TenantTx,
  branchId: number,
  source: MenuDef,
  version: number,
  publishedAt: string,
) {
  const tree = buildSnapshot(source, {
    brand_id: source.brand_id,
    branch_id: branchId,
    version,
    published_at: publishedAt,
  });
  await t.layers.writeSnapshot(source.brand_id, branchId, {
    version,
    published_at: publishedAt,
    source,
    template: snapshotTemplate(tree),
  });
  return tree;
}

interface PublishInput {
  brand_id: number;
  branch_ids?: readonly number[] | undefined;
}

export async function publishMenu(t: TenantTx, b: PublishInput, now: number) {
  await requireBrand(t, b.brand_id);
  const candidates = await branchesFor(t, b.brand_id, b.branch_ids);
  const layers: { id: number; layer: MenuDef | null }[] = [];
  for (const id of candidates) layers.push({ id, layer: await t.layers.storeLayer(b.brand_id, id) });
  const unsynced = layers.filter((l) => l.layer === null).map((l) => l.id);
  if (b.branch_ids !== undefined && unsynced.length) {
    throw new ApiError(
      'request_invalid',
      `branch ${unsynced.join(', ')} has no store menu for brand ${b.brand_id} yet: POST /v1/partner/menus/sync first`,
      unsynced.map((id) => ({
        path: ['body', 'branch_ids', b.branch_ids!.indexOf(id)],
        message: `branch ${id} has no store menu for brand ${b.brand_id} yet (sync first)`,
      })),
    );
  }
  const ready = layers.filter((l): l is { id: number; layer: MenuDef } => l.layer !== null);
  if (ready.length === 0) {
    throw new ApiError(
      'request_invalid',
      `no branch has a store menu for brand ${b.brand_id} yet: POST /v1/partner/menus/sync first`,
      [
        {
          path: ['body', 'brand_id'],
          message: `no branch has a store menu for brand ${b.brand_id} yet (sync first)`,
        },
      ],
    );
  }
  const version = await t.layers.nextVersion(b.brand_id);
  const publishedAt = iso(now);
  const providers = new Set<number>();
  for (const { id, layer } of ready) {
    const tree = await writeSnapshot(t, id, layer, version, publishedAt);
    const items = countItems(tree);
    // "Shipping to the marketplaces": one publish-log row per provider of this store.
    for (const p of shippedProviders(tree, await hiddenProviders(t, b.brand_id, id))) {
      providers.add(p);
      await t.layers.logPublish({
        brand_id: b.brand_id,
        branch_id: id,
        version,
        provider_id: p,
        items,
        published_at: publishedAt,
      });
    }
  }
  return {
    version,
    published_at: publishedAt,
    branches: ready.map((r) => r.id),
    providers: [...providers].sort((x, y) => x - y),
  };
}

/** A store-level section edit (PATCH /menus/sections/{id} with branch_id): reaches GET /menus after publish. */
export async function editStoreSection(
  t: TenantTx,
  sectionId: number,
  branchId: number,
  patch: SectionPatch,
  now: number,
) {
  const s = await requireEntity(t, 'sections', sectionId);
  await requireBranch(t, branchId);
  if (!(await t.branches.carries(branchId, s.brand_id))) {
    throw invalid(
      [{ path: ['body', 'branch_id'], message: `branch ${branchId} does not carry brand ${s.brand_id}` }],
      `branch ${branchId} does not carry brand ${s.brand_id}`,
    );
  }
  const layer = await t.layers.storeLayer(s.brand_id, branchId);
  const target = layer?.sections.find((x) => x.id === s.id);
  if (!layer || !target) {
    throw new ApiError(
      'resource_not_found',
      `section ${s.id} is not in the store menu of branch ${branchId} yet: POST /v1/partner/menus/sync first`,
    );
  }
  if (patch.title !== undefined) target.title = patch.title;
  if (patch.description !== undefined) target.description = patch.description;
  if (patch.availableTimes !== undefined) target.availableTimes = patch.availableTimes;
  if (patch.isEnabled !== undefined) target.isEnabled = patch.isEnabled;
  if (patch.visibilities !== undefined) target.visibilities = patch.visibilities;
  if (patch.blackoutDates !== undefined) target.blackoutDates = [...new Set(patch.blackoutDates)].sort();
  await t.layers.saveStoreLayer(s.brand_id, branchId, layer, now, false);
  return {
    id: target.id,
    brand_id: s.brand_id,
    branch_id: branchId,
    title: target.title,
    description: target.description,
    availableTimes: target.availableTimes,
    isEnabled: target.isEnabled,
    visibilities: target.visibilities,
    blackoutDates: target.blackoutDates,
    category_ids: target.category_ids,
  };
}

// ─── GET /menus: the published snapshot with live state ─────────────────────────────────────

interface CachedStore {
  revision: number;
  template: CompiledTemplate;
  /** Last rendering, valid while the state version matches and `from ≤ now < until`. */
  rendered?: { stateVersion: number; from: number; until: number; json: string };
}

/**
 * Parsed snapshot templates and their last rendering per (brand, branch). Every entry is checked
 * against the snapshot's revision and the branch's state version read in the same unit, so it
 * stays true whoever changed the store (another instance included).
 */
export class MenuRenderCache {
  private readonly stores = new Map<string, CachedStore>();

  get(key: string): CachedStore | undefined {
    return this.stores.get(key);
  }

  set(key: string, entry: CachedStore): void {
    if (this.stores.size >= 10_000) this.stores.clear();
    this.stores.set(key, entry);
  }

  clear(): void {
    this.stores.clear();
  }
}

export async function publishedMenu(
  t: TenantTx,
  cache: MenuRenderCache,
  brandId: number,
  branchId: number,
  now: number,
): Promise<string> {
  const head = await t.layers.snapshotHead(brandId, branchId);
  if (!head) {
    await requireBrand(t, brandId);
    await requireBranch(t, branchId);
    if (!(await t.branches.carries(branchId, brandId)))
      throw notFound(`brand ${brandId} at branch`, branchId);
    throw new ApiError(
      'resource_not_found',
      `brand ${brandId} has no published menu at branch ${branchId} yet: sync and publish it first`,
    );
  }
  const key = `${brandId}:${branchId}`;
  let entry = cache.get(key);
  if (!entry || entry.revision !== head.revision) {
    const json = await t.layers.snapshotTemplate(brandId, branchId);
    entry = { revision: head.revision, template: compileTemplate(json!) };
    cache.set(key, entry);
  }
  const r = entry.rendered;
  if (r && r.stateVersion === head.stateVersion && r.from <= now && now < r.until) return r.json;
  const states = await t.stock.states(branchId);
  const json = renderTemplate(entry.template, states, now);
  entry.rendered = {
    stateVersion: head.stateVersion,
    from: now,
    until: nextChange(states.values(), now),
    json,
  };
  return json;
}
