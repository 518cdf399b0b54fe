// Versioned schema: migration N brings `PRAGMA user_version` from N-1 to N. Append only;
// never edit a migration that has shipped.
export const MIGRATIONS: readonly string[] = [
  /* 1: tenancy, credentials, brands, branches, price groups, idempotency */ `
  CREATE TABLE businesses (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    address TEXT NOT NULL DEFAULT '',
    logo TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
  );
  CREATE TABLE credentials (
    key TEXT PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    secret_hash TEXT NOT NULL,
    prev_secret_hash TEXT,
    prev_valid_until INTEGER,
    scopes TEXT NOT NULL,
    rate_limit INTEGER NOT NULL,
    revoked_at TEXT,
    rotated_at TEXT,
    created_at TEXT NOT NULL
  );
  CREATE TABLE brands (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    title TEXT NOT NULL,
    logo TEXT NOT NULL DEFAULT '',
    banner TEXT NOT NULL DEFAULT '',
    visibilities TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX brands_business ON brands(business_id);
  CREATE TABLE price_groups (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX price_groups_business ON price_groups(business_id);
  -- fields: the writable record as given (extras pass through); record: the full wire record,
  -- recomputed on every write that changes it so reads are a plain concatenation.
  CREATE TABLE branches (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    fields TEXT NOT NULL,
    visibilities TEXT NOT NULL DEFAULT '{}',
    record TEXT NOT NULL,
    price_group_id INTEGER REFERENCES price_groups(id),
    busy_mode_updated_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted_at TEXT
  );
  CREATE INDEX branches_business ON branches(business_id, id);
  CREATE TABLE branch_brands (
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    PRIMARY KEY (branch_id, brand_id)
  );
  CREATE INDEX branch_brands_brand ON branch_brands(brand_id);
  CREATE TABLE idempotency_keys (
    credential_key TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    is_error INTEGER NOT NULL,
    payload TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (credential_key, idem_key)
  );
  CREATE INDEX idempotency_created ON idempotency_keys(created_at);
  CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
  `,
  /* 2: orders, order events outbox — reserved for the orders work */ '',
  /* 3: menus, store layers, stock, OOS activity — reserved for the menus work */ '',
];
