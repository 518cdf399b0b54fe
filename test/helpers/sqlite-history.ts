import Database from 'better-sqlite3';

// The SQLite schema as partner shipped it, version by version: step N brought a data dir from
// `PRAGMA user_version` N-1 to N. Production code no longer holds these steps (an old data dir is
// upgraded by copying it into the schema description: src/server/store/sqlite/migrations.ts);
// the tests use them to make the data dirs earlier versions made, always empty (so step 6 leaves
// out its sequence floors, computed from data: on empty tables they come to what the copies left).
// Frozen: never edit a step. When SCHEMA_VERSION goes up, append the step that makes the new
// version from the one before (the DDL an earlier partner would have run); migrations.test.ts
// checks that the last one arrives at exactly the schema description.
export const SQLITE_HISTORY: readonly string[] = [
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
  /* 2: orders (with their status history), order events outbox */ `
  -- record: the full wire record (the order read, status_history included), rewritten on every
  -- change so reads are a plain concatenation; the columns beside it serve tenancy, filters and
  -- ordering. Every B-tree a status change touches costs WAL pages on the hot path, so there
  -- is deliberately no separate history table and no index the change does not need.
  CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    status INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX orders_business_created ON orders(business_id, created_ms DESC, id DESC);
  -- Transactional outbox: written in the same transaction as the change it describes.
  -- seq: the order of writing; id: "evt_<seq in base 36>_<random>", unique without an index
  -- (look events up by seq); payload: the exact delivery body {brand_id, branch_id, orders}.
  -- No secondary index here: whoever consumes the outbox adds the one it scans by.
  CREATE TABLE outbox_events (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    type TEXT NOT NULL,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL,
    branch_id INTEGER NOT NULL,
    order_id INTEGER,
    payload TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  `,
  /* 3: menus, store layers, snapshots, stock state, OOS activity */ `
  -- Business-level definition (what the authoring endpoints write). Maps are JSON text.
  CREATE TABLE menu_sections (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    available_times TEXT,
    is_enabled INTEGER NOT NULL DEFAULT 1,
    visibilities TEXT NOT NULL DEFAULT '{}',
    blackout_dates TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX menu_sections_brand ON menu_sections(brand_id);
  CREATE TABLE menu_categories (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    is_enabled INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX menu_categories_brand ON menu_categories(brand_id);
  -- A SKU (partner_item_id) is unique within a brand; availability calls resolve it through
  -- the brands a branch carries.
  CREATE TABLE menu_items (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    title TEXT NOT NULL,
    partner_item_id TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    prices TEXT NOT NULL DEFAULT '{}',
    group_prices TEXT NOT NULL DEFAULT '{}',
    visibilities TEXT NOT NULL DEFAULT '{}',
    enabled INTEGER NOT NULL DEFAULT 1,
    only_modifier INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (brand_id, partner_item_id)
  );
  CREATE INDEX menu_items_sku ON menu_items(partner_item_id, brand_id);
  CREATE TABLE menu_modifier_groups (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    title TEXT NOT NULL,
    min_choices INTEGER NOT NULL,
    max_choices INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX menu_modifier_groups_brand ON menu_modifier_groups(brand_id);
  -- Links; seq keeps the order in which they were made (the order shown in menus).
  CREATE TABLE menu_section_categories (
    seq INTEGER PRIMARY KEY,
    section_id INTEGER NOT NULL REFERENCES menu_sections(id) ON DELETE CASCADE,
    category_id INTEGER NOT NULL REFERENCES menu_categories(id) ON DELETE CASCADE,
    UNIQUE (section_id, category_id)
  );
  CREATE INDEX menu_section_categories_category ON menu_section_categories(category_id);
  CREATE TABLE menu_category_items (
    seq INTEGER PRIMARY KEY,
    category_id INTEGER NOT NULL REFERENCES menu_categories(id) ON DELETE CASCADE,
    item_id INTEGER NOT NULL REFERENCES menu_items(id) ON DELETE CASCADE,
    UNIQUE (category_id, item_id)
  );
  CREATE INDEX menu_category_items_item ON menu_category_items(item_id);
  CREATE TABLE menu_group_modifiers (
    seq INTEGER PRIMARY KEY,
    group_id INTEGER NOT NULL REFERENCES menu_modifier_groups(id) ON DELETE CASCADE,
    modifier_id INTEGER NOT NULL REFERENCES menu_items(id) ON DELETE CASCADE,
    UNIQUE (group_id, modifier_id)
  );
  CREATE INDEX menu_group_modifiers_modifier ON menu_group_modifiers(modifier_id);
  CREATE TABLE menu_item_groups (
    seq INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES menu_items(id) ON DELETE CASCADE,
    group_id INTEGER NOT NULL REFERENCES menu_modifier_groups(id) ON DELETE CASCADE,
    UNIQUE (item_id, group_id)
  );
  CREATE INDEX menu_item_groups_group ON menu_item_groups(group_id);
  -- Store layer: the brand's menu as synced into one branch (domain MenuDef as JSON).
  CREATE TABLE menu_stores (
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    tree TEXT NOT NULL,
    synced_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (brand_id, branch_id)
  );
  -- Published snapshot: source is the store layer it was built from (enable toggles patch it);
  -- json is the serialised tree with placeholders for the live item state; revision changes on
  -- every rewrite so in-memory caches of the parsed template know when to drop it.
  CREATE TABLE menu_snapshots (
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    version INTEGER NOT NULL,
    published_at TEXT NOT NULL,
    revision INTEGER NOT NULL,
    source TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (brand_id, branch_id)
  );
  CREATE TABLE menu_brand_versions (
    brand_id INTEGER PRIMARY KEY REFERENCES brands(id),
    version INTEGER NOT NULL
  );
  CREATE TABLE menu_publish_log (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    version INTEGER NOT NULL,
    provider_id INTEGER NOT NULL,
    status TEXT NOT NULL,
    items INTEGER NOT NULL,
    published_at TEXT NOT NULL
  );
  CREATE INDEX menu_publish_log_business ON menu_publish_log(business_id, id DESC);
  -- Operational state of an item at a branch; no row = available, untracked, not snoozed.
  CREATE TABLE menu_item_state (
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    item_id INTEGER NOT NULL REFERENCES menu_items(id) ON DELETE CASCADE,
    available INTEGER NOT NULL DEFAULT 1,
    stock INTEGER,
    snoozed_until_ms INTEGER,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (branch_id, item_id)
  );
  CREATE INDEX menu_item_state_item ON menu_item_state(item_id);
  -- Bumped on every state change at a branch: GET /menus caches its rendering per version.
  CREATE TABLE menu_branch_state (
    branch_id INTEGER PRIMARY KEY REFERENCES branches(id),
    version INTEGER NOT NULL
  );
  CREATE TABLE menu_oos_activity (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL,
    branch_id INTEGER,
    entity_type TEXT NOT NULL CHECK (entity_type IN ('section', 'category', 'item')),
    entity_id INTEGER NOT NULL,
    partner_item_id TEXT,
    title TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('availability', 'snooze', 'enable', 'stock')),
    before TEXT NOT NULL,
    after TEXT NOT NULL,
    until TEXT,
    went_out INTEGER NOT NULL,
    came_back INTEGER NOT NULL,
    actor TEXT NOT NULL,
    at_ms INTEGER NOT NULL
  );
  CREATE INDEX menu_oos_activity_at ON menu_oos_activity(business_id, entity_type, at_ms);
  `,
  /* 4: webhook endpoints, per-business signing secrets, deliveries and their attempts */ `
  CREATE TABLE webhook_secrets (
    business_id INTEGER PRIMARY KEY REFERENCES businesses(id),
    secret_sealed TEXT NOT NULL,
    rotated_at TEXT,
    created_at TEXT NOT NULL
  );
  CREATE TABLE webhooks (
    id INTEGER PRIMARY KEY,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER,
    branch_id INTEGER,
    event TEXT NOT NULL,
    url TEXT NOT NULL,
    created_at TEXT NOT NULL,
    deleted_at TEXT
  );
  CREATE UNIQUE INDEX webhooks_tuple ON webhooks(business_id, coalesce(brand_id, 0), coalesce(branch_id, 0), event, url)
    WHERE deleted_at IS NULL;
  -- fanned_out: the event has been turned into deliveries (one per matching receiver);
  -- batched_into: the event whose delivery carries this event's orders.
  ALTER TABLE outbox_events ADD COLUMN fanned_out INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE outbox_events ADD COLUMN batched_into TEXT;
  CREATE INDEX outbox_unfanned ON outbox_events(seq) WHERE fanned_out = 0;
  CREATE INDEX outbox_batched ON outbox_events(batched_into) WHERE batched_into IS NOT NULL;
  -- One event to one receiver. payload: the exact bytes signed and sent.
  -- budget_start: attempts made before the current retry schedule began (a replay restarts it).
  CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY,
    event_seq INTEGER NOT NULL REFERENCES outbox_events(seq),
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    business_id INTEGER NOT NULL,
    webhook_id INTEGER,
    url TEXT NOT NULL,
    payload TEXT NOT NULL,
    batched_event_ids TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    budget_start INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER,
    lease_owner TEXT,
    lease_until INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX deliveries_due ON webhook_deliveries(next_attempt_ms) WHERE status = 'pending';
  CREATE INDEX deliveries_event ON webhook_deliveries(event_id);
  CREATE TABLE webhook_attempts (
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id),
    attempt INTEGER NOT NULL,
    at TEXT NOT NULL,
    status_code INTEGER,
    duration_ms INTEGER NOT NULL,
    error TEXT,
    PRIMARY KEY (delivery_id, attempt)
  ) WITHOUT ROWID;
  `,
  // v5: spec §2.5 types busy_mode_updated_at as a date-time, never null: a branch whose busy mode
  // never changed had it last set when it was created. Stored wire records follow.
  `
  UPDATE branches SET busy_mode_updated_at = created_at WHERE busy_mode_updated_at IS NULL;
  UPDATE branches SET record = json_set(record, '$.busy_mode_updated_at', busy_mode_updated_at)
    WHERE record <> '' AND json_extract(record, '$.busy_mode_updated_at') IS NULL;
  `,
  // v6: public ids are never reused. Without AUTOINCREMENT SQLite hands out max(id) + 1, so after
  // the newest section (category, item, modifier group, price group) was deleted the next one got
  // its id. The tables whose rows can be deleted are rebuilt with AUTOINCREMENT (migrate() turns
  // foreign keys off around a migration and checks them before it commits); each sequence starts
  // above every id still named anywhere: store layers, snapshots, the OOS history, item group
  // prices. Tables nothing deletes from (businesses, brands, branches, orders, events,
  // deliveries, logs) keep max(id) + 1, which never goes back.
  `
  CREATE TABLE new_price_groups (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  INSERT INTO new_price_groups (id, business_id, title, description, created_at, updated_at)
    SELECT id, business_id, title, description, created_at, updated_at FROM price_groups;
  DROP TABLE price_groups;
  ALTER TABLE new_price_groups RENAME TO price_groups;
  CREATE INDEX price_groups_business ON price_groups(business_id);

  CREATE TABLE new_menu_sections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    available_times TEXT,
    is_enabled INTEGER NOT NULL DEFAULT 1,
    visibilities TEXT NOT NULL DEFAULT '{}',
    blackout_dates TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  INSERT INTO new_menu_sections (id, business_id, brand_id, title, description, available_times, is_enabled, visibilities, blackout_dates, created_at, updated_at)
    SELECT id, business_id, brand_id, title, description, available_times, is_enabled, visibilities, blackout_dates, created_at, updated_at FROM menu_sections;
  DROP TABLE menu_sections;
  ALTER TABLE new_menu_sections RENAME TO menu_sections;
  CREATE INDEX menu_sections_brand ON menu_sections(brand_id);

  CREATE TABLE new_menu_categories (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    is_enabled INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  INSERT INTO new_menu_categories (id, business_id, brand_id, title, description, is_enabled, created_at, updated_at)
    SELECT id, business_id, brand_id, title, description, is_enabled, created_at, updated_at FROM menu_categories;
  DROP TABLE menu_categories;
  ALTER TABLE new_menu_categories RENAME TO menu_categories;
  CREATE INDEX menu_categories_brand ON menu_categories(brand_id);

  CREATE TABLE new_menu_items (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    title TEXT NOT NULL,
    partner_item_id TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    prices TEXT NOT NULL DEFAULT '{}',
    group_prices TEXT NOT NULL DEFAULT '{}',
    visibilities TEXT NOT NULL DEFAULT '{}',
    enabled INTEGER NOT NULL DEFAULT 1,
    only_modifier INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (brand_id, partner_item_id)
  );
  INSERT INTO new_menu_items (id, business_id, brand_id, title, partner_item_id, description, prices, group_prices, visibilities, enabled, only_modifier, created_at, updated_at)
    SELECT id, business_id, brand_id, title, partner_item_id, description, prices, group_prices, visibilities, enabled, only_modifier, created_at, updated_at FROM menu_items;
  DROP TABLE menu_items;
  ALTER TABLE new_menu_items RENAME TO menu_items;
  CREATE INDEX menu_items_sku ON menu_items(partner_item_id, brand_id);

  CREATE TABLE new_menu_modifier_groups (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id INTEGER NOT NULL REFERENCES businesses(id),
    brand_id INTEGER NOT NULL REFERENCES brands(id),
    title TEXT NOT NULL,
    min_choices INTEGER NOT NULL,
    max_choices INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  INSERT INTO new_menu_modifier_groups (id, business_id, brand_id, title, min_choices, max_choices, created_at, updated_at)
    SELECT id, business_id, brand_id, title, min_choices, max_choices, created_at, updated_at FROM menu_modifier_groups;
  DROP TABLE menu_modifier_groups;
  ALTER TABLE new_menu_modifier_groups RENAME TO menu_modifier_groups;
  CREATE INDEX menu_modifier_groups_brand ON menu_modifier_groups(brand_id);

  -- Here each sequence was set above every id still named anywhere (the SQL is the v6 entry of
  -- FIXUPS in sqlite/migrations.ts): on the empty tables these steps make, the 0 the copies above
  -- already left in sqlite_sequence.
  `,
  // v7: the dispatcher asks for the next due delivery on every look; the leased ones (those in
  // flight) get an index of their own so that never scans the pending backlog. A stored
  // Idempotency-Key answer that is exactly the order an outbox event carries (a status change)
  // refers to that event (event_seq) instead of keeping a copy (payload is then empty).
  `
  CREATE INDEX deliveries_leased ON webhook_deliveries(lease_until) WHERE lease_until IS NOT NULL;
  ALTER TABLE idempotency_keys ADD COLUMN event_seq INTEGER;
  `,
  // v8: the same schema as PostgreSQL's, column for column (test/postgres/schema.test.ts), so the
  // repositories are written once (store/sql/): a stored answer's time is created_ms and its
  // payload null when it refers to its event; the snapshot's column is `template` (it is not
  // JSON: it holds placeholders); a delivery's lease records its host, as on PostgreSQL.
  `
  CREATE TABLE idempotency_keys_v8 (
    credential_key TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    is_error INTEGER NOT NULL,
    payload TEXT,
    created_ms INTEGER NOT NULL,
    event_seq INTEGER,
    PRIMARY KEY (credential_key, idem_key)
  );
  INSERT INTO idempotency_keys_v8
    SELECT credential_key, idem_key, fingerprint, status, is_error,
      CASE WHEN event_seq IS NULL THEN payload END, created_at, event_seq
    FROM idempotency_keys;
  DROP TABLE idempotency_keys;
  ALTER TABLE idempotency_keys_v8 RENAME TO idempotency_keys;
  CREATE INDEX idempotency_created ON idempotency_keys(created_ms);
  ALTER TABLE menu_snapshots RENAME COLUMN json TO template;
  ALTER TABLE webhook_deliveries ADD COLUMN lease_host TEXT;
  `,
];

/** A new, empty database file at `version` of the history, foreign keys on (as partner opens it). */
export function sqliteAt(file: string, version: number): Database.Database {
  const db = new Database(file);
  for (const step of SQLITE_HISTORY.slice(0, version)) db.exec(step);
  db.pragma(`user_version = ${version}`);
  db.pragma('foreign_keys = ON');
  return db;
}
