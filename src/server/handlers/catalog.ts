import { buildOpenApi } from '../../contract/openapi.js';
import { ORDER_STATUSES } from '../../contract/order-statuses.js';
import {
  CITIES,
  COUNTRIES,
  CURRENCIES,
  PAYMENT_CHANNELS,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  PROVIDERS,
} from '../domain/reference-data.js';
import type { Db } from '../store/sqlite/db.js';
import { ApiError, notFound } from '../errors.js';
import { type HandlersFor, RawJson } from './context.js';
import { sql } from '../store/sqlite/statements.js';

const iso = (ms: number) => new Date(ms).toISOString();

// Static dictionaries never change while the server runs: serialise once.
const frozen = (v: unknown) => new RawJson(JSON.stringify(v));
const STATUSES_JSON = frozen(ORDER_STATUSES);
const PROVIDERS_JSON = frozen(PROVIDERS);
const COUNTRIES_JSON = frozen(COUNTRIES);
const CURRENCIES_JSON = frozen(CURRENCIES);
const PAYMENT_STATUSES_JSON = frozen(PAYMENT_STATUSES);
const PAYMENT_METHODS_JSON = frozen(PAYMENT_METHODS);
const PAYMENT_CHANNELS_JSON = frozen(PAYMENT_CHANNELS);
let openApiJson: RawJson | undefined;

interface PriceGroupRow {
  id: number;
  business_id: number;
  title: string;
  description: string;
  created_at: string;
  updated_at: string;
}

function group(db: Db, businessId: number, id: number): PriceGroupRow {
  const r = sql(db, 'SELECT * FROM price_groups WHERE id = ? AND business_id = ?').get(id, businessId) as
    | PriceGroupRow
    | undefined;
  if (!r) throw notFound('price group', id);
  return r;
}

function update(db: Db, r: PriceGroupRow, title: string, description: string, now: number): PriceGroupRow {
  sql(db, 'UPDATE price_groups SET title = ?, description = ?, updated_at = ? WHERE id = ?').run(
    title,
    description,
    iso(now),
    r.id,
  );
  return group(db, r.business_id, r.id);
}

export const catalogHandlers: HandlersFor<
  | 'listProviders'
  | 'listPriceGroups'
  | 'createPriceGroup'
  | 'replacePriceGroup'
  | 'updatePriceGroup'
  | 'deletePriceGroup'
  | 'listOrderStatuses'
  | 'listCountries'
  | 'listCities'
  | 'listCurrencies'
  | 'listPaymentStatuses'
  | 'listPaymentMethods'
  | 'listPaymentChannels'
  | 'getOpenApi'
> = {
  listProviders: () => PROVIDERS_JSON,
  listOrderStatuses: () => STATUSES_JSON,
  listCountries: () => COUNTRIES_JSON,
  listCities: (_ctx, { query }) =>
    CITIES.filter((c) => query.country_id === undefined || c.country_id === query.country_id),
  listCurrencies: () => CURRENCIES_JSON,
  listPaymentStatuses: () => PAYMENT_STATUSES_JSON,
  listPaymentMethods: () => PAYMENT_METHODS_JSON,
  listPaymentChannels: () => PAYMENT_CHANNELS_JSON,
  getOpenApi: ({ services }) => {
    openApiJson ??= frozen(buildOpenApi(services.version));
    return openApiJson;
  },

  listPriceGroups: ({ db, businessId }) =>
    sql(db, 'SELECT * FROM price_groups WHERE business_id = ? ORDER BY id').all(
      businessId,
    ) as PriceGroupRow[],

  createPriceGroup: ({ db, businessId, now }, { body }) => {
    const at = iso(now);
    const id = Number(
      sql(
        db,
        'INSERT INTO price_groups (business_id, title, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      ).run(businessId, body.title, body.description ?? '', at, at).lastInsertRowid,
    );
    return group(db, businessId, id);
  },

  replacePriceGroup: ({ db, businessId, now }, { params, body }) =>
    update(db, group(db, businessId, params.id), body.title, body.description ?? '', now),

  updatePriceGroup: ({ db, businessId, now }, { params, body }) => {
    const r = group(db, businessId, params.id);
    return update(db, r, body.title ?? r.title, body.description ?? r.description, now);
  },

  deletePriceGroup: ({ db, businessId }, { params }) => {
    const r = group(db, businessId, params.id);
    const users = sql(db, 'SELECT id FROM branches WHERE price_group_id = ? AND deleted_at IS NULL')
      .pluck()
      .all(r.id) as number[];
    if (users.length) {
      throw new ApiError(
        'state_resource_in_use',
        `price group ${r.id} is used by ${users.length} branch(es)`,
        { branch_ids: users },
      );
    }
    sql(db, 'DELETE FROM price_groups WHERE id = ?').run(r.id);
    return { id: r.id, deleted: true as const };
  },
};
