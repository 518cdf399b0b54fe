// How the human output lays out the payloads of known operations. Anything without a view gets
// the generic layout (render.ts). Keyed by operation id, so ops added to the table later can get
// a view without touching the renderer.

export type Row = Record<string, unknown>;

export interface Column {
  header: string;
  get: (row: Row) => unknown;
  /** `time`: ISO timestamps shown relative on a TTY; `status`: order status ids shown by name. */
  kind?: 'time' | 'status';
  /** Never cut to fit the terminal (ids, money): a cut value would read as another one. */
  keep?: boolean;
}

export interface View {
  /** Turns the payload into table rows; undefined falls back to the generic layout. */
  rows?: (data: unknown) => Row[] | undefined;
  columns: Column[];
}

const col = (key: string, header = key, kind?: Column['kind']): Column => ({
  header,
  get: (r) => r[key],
  ...(kind ? { kind } : {}),
  ...(key === 'id' || key === 'key' ? { keep: true } : {}),
});

const BRANCH_COLUMNS = [
  col('id'),
  col('title'),
  { header: 'brands', get: (r: Row) => r.brand_titles },
  col('country_code', 'country'),
  col('currency_code', 'currency'),
  col('is_busy', 'busy'),
  col('updated_at', 'updated', 'time'),
];

const ORDER_COLUMNS = [
  col('id'),
  col('status', 'status', 'status'),
  col('brand_id', 'brand'),
  col('branch_id', 'branch'),
  {
    header: 'total',
    get: (r: Row) => [r.total, r.currency].filter((x) => x !== undefined && x !== null).join(' '),
    keep: true,
  },
  { header: 'customer', get: (r: Row) => (r.customer as Row | undefined)?.name },
  col('created_at', 'created', 'time'),
];

const CREDENTIAL_COLUMNS = [
  col('key'),
  col('business_id', 'business'),
  col('scopes'),
  col('rate_limit', 'rate/min'),
  col('revoked_at', 'revoked', 'time'),
  col('created_at', 'created', 'time'),
];

const STOCK_VIEW: View = {
  rows: (data) => {
    const items = (data as Row | null)?.items;
    return Array.isArray(items) ? (items as Row[]) : undefined;
  },
  columns: [
    col('partner_item_id', 'sku'),
    col('isAvailable', 'available'),
    col('stock'),
    col('snoozed_until', 'snoozed until', 'time'),
  ],
};

export const VIEWS: Readonly<Record<string, View>> = {
  updateItemStocks: STOCK_VIEW,
  setItemsAvailability: STOCK_VIEW,
  listBrands: {
    rows: (data) =>
      Array.isArray(data)
        ? data.flatMap((e: Row) =>
            ((e.brands as Row[] | undefined) ?? []).map((b) => ({
              ...b,
              business: (e.business as Row | undefined)?.title,
            })),
          )
        : undefined,
    columns: [col('id'), col('title'), col('business'), col('logo')],
  },
  listBranches: { columns: BRANCH_COLUMNS },
  listOrderStatuses: {
    columns: [
      col('id'),
      col('status'),
      { header: 'en', get: (r) => (r.translation as Row | undefined)?.en },
      { header: 'buttons', get: (r) => ((r.translation_btn as unknown[] | undefined) ?? []).length || '' },
    ],
  },
  listProviders: { columns: [col('id'), col('title'), col('type'), col('countries')] },
  listPriceGroups: {
    columns: [col('id'), col('title'), col('description'), col('updated_at', 'updated', 'time')],
  },
  listOrders: { columns: ORDER_COLUMNS },
  operatorListCredentials: { columns: CREDENTIAL_COLUMNS },
  // Not an API operation: `partner profiles list`.
  profilesList: {
    columns: [
      { header: '', get: (r) => (r.default ? '*' : '') },
      col('name'),
      col('base_url', 'base url'),
      col('key'),
      col('secret'),
      col('storage'),
    ],
  },
  // The request log: a status here is an HTTP status, not an order's.
  operatorListRequests: {
    rows: (data) => {
      const results = (data as Row | null)?.results;
      return Array.isArray(results) ? (results as Row[]) : undefined;
    },
    columns: [
      col('seq'),
      col('at', 'at', 'time'),
      col('method'),
      col('path'),
      col('status'),
      col('duration_ms', 'ms'),
      col('request_id', 'request id'),
      col('credential_key', 'credential'),
      col('error_code', 'error'),
    ],
  },
  // Deliveries, newest first: one line each (the attempts are in --json).
  operatorWebhookLog: {
    columns: [
      col('id'),
      col('event_id', 'event'),
      col('event_type', 'type'),
      col('status'),
      col('attempts', 'tries'),
      col('url'),
      col('updated_at', 'updated', 'time'),
    ],
  },
  operatorListBusinesses: {
    columns: [col('id'), col('title'), col('address'), col('created_at', 'created', 'time')],
  },
};
