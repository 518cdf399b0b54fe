import type { Db } from '../store/sqlite/db.js';
import {
  checkReferences,
  composeBranch,
  scheduleFields,
  unknownProviderKeys,
  withDefaults,
} from '../domain/branches.js';
import { offsetOf } from '../domain/pagination.js';
import { PROVIDERS } from '../domain/reference-data.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { type HandlersFor, RawJson } from './context.js';
import { sql } from '../store/sqlite/statements.js';

const PROVIDER_IDS = new Set(PROVIDERS.map((p) => p.id));
const iso = (ms: number) => new Date(ms).toISOString();

interface BrandRow {
  id: number;
  business_id: number;
  title: string;
  logo: string;
  banner: string;
  visibilities: string;
}

const brandOut = (r: BrandRow) => ({
  id: r.id,
  business_id: r.business_id,
  title: r.title,
  logo: r.logo,
  banner: r.banner,
});

function brandRow(db: Db, businessId: number, id: number): BrandRow {
  const r = sql(db, 'SELECT * FROM brands WHERE id = ? AND business_id = ?').get(id, businessId) as
    | BrandRow
    | undefined;
  if (!r) throw notFound('brand', id);
  return r;
}

function checkVisibilities(map: Record<string, boolean>): void {
  const unknown = unknownProviderKeys(map, PROVIDER_IDS);
  if (unknown.length)
    throw invalid(unknown.map((k) => ({ path: ['body', 'visibilities', k], message: `no provider ${k}` })));
}

interface BranchRow {
  id: number;
  business_id: number;
  fields: string;
  visibilities: string;
  record: string;
  busy_mode_updated_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

function branchRow(db: Db, businessId: number, id: number): BranchRow {
  const r = sql(db, 'SELECT * FROM branches WHERE id = ? AND business_id = ? AND deleted_at IS NULL').get(
    id,
    businessId,
  ) as BranchRow | undefined;
  if (!r) throw notFound('branch', id);
  return r;
}

// Serialised branch-list pages per business: the hot read of the API. Every change to a branch
// record passes through refreshBranchRecord, which drops its business's pages.
const pageCache = new WeakMap<Db, Map<number, Map<string, string>>>();

function pagesOf(db: Db, businessId: number): Map<string, string> {
  let byBusiness = pageCache.get(db);
  if (!byBusiness) {
    byBusiness = new Map();
    pageCache.set(db, byBusiness);
  }
  let pages = byBusiness.get(businessId);
  if (!pages) {
    pages = new Map();
    byBusiness.set(businessId, pages);
  }
  return pages;
}

/** Recomposes and stores the wire record of one branch from its parts. */
export function refreshBranchRecord(db: Db, id: number): string {
  const r = sql(db, 'SELECT * FROM branches WHERE id = ?').get(id) as BranchRow;
  pageCache.get(db)?.delete(r.business_id);
  const business = sql(db, 'SELECT id, title FROM businesses WHERE id = ?').get(r.business_id) as {
    id: number;
    title: string;
  };
  const brands = sql(
    db,
    'SELECT b.id, b.title FROM branch_brands bb JOIN brands b ON b.id = bb.brand_id WHERE bb.branch_id = ? ORDER BY b.id',
  ).all(id) as { id: number; title: string }[];
  const record = JSON.stringify(
    composeBranch({
      id,
      business,
      brands,
      fields: JSON.parse(r.fields),
      visibilities: JSON.parse(r.visibilities),
      busy_mode_updated_at: r.busy_mode_updated_at,
      created_at: r.created_at,
      updated_at: r.updated_at,
      deleted_at: r.deleted_at,
    }),
  );
  sql(db, 'UPDATE branches SET record = ? WHERE id = ?').run(record, id);
  return record;
}

function referenceSets(db: Db, businessId: number) {
  const brands = new Set(
    sql(db, 'SELECT id FROM brands WHERE business_id = ?').pluck().all(businessId) as number[],
  );
  const groups = new Set(
    sql(db, 'SELECT id FROM price_groups WHERE business_id = ?').pluck().all(businessId) as number[],
  );
  return { brands, groups };
}

/** Inserts a branch (used by the API and by the demo seed); the caller holds the transaction. */
export function insertBranch(db: Db, businessId: number, body: Record<string, unknown>, now: number): string {
  const { business_id: _ignored, ...given } = body;
  const { brands, groups } = referenceSets(db, businessId);
  const bad = checkReferences(given, brands, groups);
  if (bad.length) throw invalid(bad, `invalid branch: ${bad.map((b) => b.message).join('; ')}`);
  const fields = withDefaults(given);
  const at = iso(now);
  const id = Number(
    sql(
      db,
      "INSERT INTO branches (business_id, fields, visibilities, record, price_group_id, busy_mode_updated_at, created_at, updated_at) VALUES (?, ?, '{}', '', ?, ?, ?, ?)",
    ).run(businessId, JSON.stringify(fields), fields.price_group_id ?? null, at, at, at).lastInsertRowid,
  );
  for (const b of fields.brand_ids as number[])
    sql(db, 'INSERT OR IGNORE INTO branch_brands VALUES (?, ?)').run(id, b);
  return refreshBranchRecord(db, id);
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
  listBrands: ({ db, businessId }) => {
    const business = sql(db, 'SELECT id, title, address, logo FROM businesses WHERE id = ?').get(
      businessId,
    ) as {
      id: number;
      title: string;
      address: string;
      logo: string;
    };
    const brands = (
      sql(db, 'SELECT * FROM brands WHERE business_id = ? ORDER BY id').all(businessId) as BrandRow[]
    ).map(brandOut);
    return [{ brands, business }];
  },

  createBrand: ({ db, businessId, now }, { body }) => {
    const at = iso(now);
    const id = Number(
      sql(
        db,
        'INSERT INTO brands (business_id, title, logo, banner, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(businessId, body.title, body.logo ?? '', body.banner ?? '', at, at).lastInsertRowid,
    );
    return brandOut(brandRow(db, businessId, id));
  },

  updateBrand: ({ db, businessId, now }, { params, body }) => {
    const r = brandRow(db, businessId, params.id);
    sql(db, 'UPDATE brands SET title = ?, logo = ?, banner = ?, updated_at = ? WHERE id = ?').run(
      body.title ?? r.title,
      body.logo ?? r.logo,
      body.banner ?? r.banner,
      iso(now),
      r.id,
    );
    if (body.title !== undefined && body.title !== r.title) {
      // brand_titles is part of every branch record carrying this brand.
      for (const b of sql(db, 'SELECT branch_id FROM branch_brands WHERE brand_id = ?')
        .pluck()
        .all(r.id) as number[]) {
        refreshBranchRecord(db, b);
      }
    }
    return brandOut(brandRow(db, businessId, r.id));
  },

  setBrandVisibility: ({ db, businessId, now }, { params, body }) => {
    const r = brandRow(db, businessId, params.id);
    checkVisibilities(body.visibilities);
    const merged = { ...JSON.parse(r.visibilities), ...body.visibilities };
    sql(db, 'UPDATE brands SET visibilities = ?, updated_at = ? WHERE id = ?').run(
      JSON.stringify(merged),
      iso(now),
      r.id,
    );
    return { id: r.id, visibilities: merged };
  },

  listBranches: ({ db, businessId }, { query }) => {
    const pages = pagesOf(db, businessId);
    const key = `${query.page}:${query.size}`;
    const cached = pages.get(key);
    if (cached !== undefined) return new RawJson(cached);
    const total = sql(db, 'SELECT count(*) FROM branches WHERE business_id = ? AND deleted_at IS NULL')
      .pluck()
      .get(businessId) as number;
    const rows = sql(
      db,
      'SELECT record FROM branches WHERE business_id = ? AND deleted_at IS NULL ORDER BY id LIMIT ? OFFSET ?',
    )
      .pluck()
      .all(businessId, query.size, offsetOf(query)) as string[];
    // Stored records are already JSON: concatenate instead of parse + stringify.
    const json = `{"results":[${rows.join(',')}],"page":${query.page},"size":${query.size},"total":${total}}`;
    if (pages.size < 1000) pages.set(key, json);
    return new RawJson(json);
  },

  getBranch: ({ db, businessId }, { params }) => new RawJson(branchRow(db, businessId, params.id).record),

  createBranch: ({ db, businessId, now }, { body }) => new RawJson(insertBranch(db, businessId, body, now)),

  updateBranch: ({ db, businessId, now }, { params, body }) => {
    const r = branchRow(db, businessId, params.id);
    const { business_id: _ignored, ...given } = body;
    const current = JSON.parse(r.fields) as Record<string, unknown>;
    // A new schedule re-derives the fields that follow from it, unless they are given too.
    const derived = given.available_times
      ? scheduleFields(given.available_times as Parameters<typeof scheduleFields>[0])
      : {};
    const next = { ...current, ...derived, ...given };
    // The pair is validated together even when only one half changes.
    const { brands, groups } = referenceSets(db, businessId);
    const bad = checkReferences(
      { ...given, country_id: next.country_id, city_id: next.city_id },
      brands,
      groups,
    );
    if (bad.length) throw invalid(bad, `invalid branch: ${bad.map((b) => b.message).join('; ')}`);
    const at = iso(now);
    const busyChanged = given.is_busy !== undefined && given.is_busy !== current.is_busy;
    sql(
      db,
      'UPDATE branches SET fields = ?, price_group_id = ?, updated_at = ?, busy_mode_updated_at = ? WHERE id = ?',
    ).run(
      JSON.stringify(next),
      next.price_group_id ?? null,
      at,
      busyChanged ? at : r.busy_mode_updated_at,
      r.id,
    );
    if (given.brand_ids) {
      sql(db, 'DELETE FROM branch_brands WHERE branch_id = ?').run(r.id);
      for (const b of given.brand_ids)
        sql(db, 'INSERT OR IGNORE INTO branch_brands VALUES (?, ?)').run(r.id, b);
    }
    return new RawJson(refreshBranchRecord(db, r.id));
  },

  setBranchVisibility: ({ db, businessId, now }, { params, body }) => {
    const r = branchRow(db, businessId, params.id);
    checkVisibilities(body.visibilities);
    const merged = { ...JSON.parse(r.visibilities), ...body.visibilities };
    sql(db, 'UPDATE branches SET visibilities = ?, updated_at = ? WHERE id = ?').run(
      JSON.stringify(merged),
      iso(now),
      r.id,
    );
    return new RawJson(refreshBranchRecord(db, r.id));
  },
};

export { ApiError };
