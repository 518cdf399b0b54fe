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
import { changePriceGroup, createPriceGroup, deletePriceGroup } from '../services/catalog.js';
import { type HandlersFor, RawJson } from './context.js';

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

  listPriceGroups: ({ store }) => store.priceGroups.list(),

  createPriceGroup: ({ store, now }, { body }) => createPriceGroup(store, body, now),

  replacePriceGroup: ({ store, now }, { params, body }) =>
    changePriceGroup(store, params.id, body, 'replace', now),

  updatePriceGroup: ({ store, now }, { params, body }) =>
    changePriceGroup(store, params.id, body, 'patch', now),

  deletePriceGroup: ({ store }, { params }) => deletePriceGroup(store, params.id),
};
