// The catalogue's tables on PostgreSQL: brands, branches, price groups, the menu definition and
// its links, store layers, snapshots, publish log, item state and the OOS history. A translation
// of store/sqlite/migrations.ts (as of its v6) to PostgreSQL's types, run by the PG migration 1
// after the core schema (it references businesses(id)).
//
// - ids: bigint identity, GENERATED ALWAYS, so an id is never handed out twice (SQLite needed
//   AUTOINCREMENT for that, migration 6); the pool's type parser reads them as JS numbers.
// - times the server writes (created_at, updated_at, published_at, …): timestamptz, read back as
//   the same ISO strings SQLite stores (the pool's type parser, pool.ts).
// - JSON columns: `json`, not `jsonb`. jsonb re-orders object keys and the API answers must be
//   byte-identical on both backends (visibilities, prices and menu trees are echoed in the order
//   they were written); no query looks inside these columns, so jsonb's indexing buys nothing.
// - `record` and the snapshot template are text: they are sent as they are (the template is not
//   JSON: it holds placeholders for the live item state).
export const CATALOG_SCHEMA = `
CREATE TABLE brands (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id bigint NOT NULL REFERENCES businesses(id),
  title text NOT NULL,
  logo text NOT NULL DEFAULT '',
  banner text NOT NULL DEFAULT '',
  visibilities json NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX brands_business ON brands(business_id, id);

CREATE TABLE price_groups (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id bigint NOT NULL REFERENCES businesses(id),
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX price_groups_business ON price_groups(business_id, id);

-- fields: the writable record as given (extras pass through); record: the full wire record,
-- recomputed on every write that changes it so reads are a plain concatenation.
CREATE TABLE branches (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id bigint NOT NULL REFERENCES businesses(id),
  fields json NOT NULL,
  visibilities json NOT NULL DEFAULT '{}',
  record text NOT NULL,
  price_group_id bigint REFERENCES price_groups(id),
  busy_mode_updated_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX branches_business ON branches(business_id, id);

CREATE TABLE branch_brands (
  branch_id bigint NOT NULL REFERENCES branches(id),
  brand_id bigint NOT NULL REFERENCES brands(id),
  PRIMARY KEY (branch_id, brand_id)
);
CREATE INDEX branch_brands_brand ON branch_brands(brand_id);

-- Business-level menu definition (what the authoring endpoints write).
CREATE TABLE menu_sections (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id bigint NOT NULL REFERENCES businesses(id),
  brand_id bigint NOT NULL REFERENCES brands(id),
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  available_times json,
  is_enabled boolean NOT NULL DEFAULT true,
  visibilities json NOT NULL DEFAULT '{}',
  blackout_dates json NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX menu_sections_brand ON menu_sections(brand_id);

CREATE TABLE menu_categories (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id bigint NOT NULL REFERENCES businesses(id),
  brand_id bigint NOT NULL REFERENCES brands(id),
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  is_enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX menu_categories_brand ON menu_categories(brand_id);

-- A SKU (partner_item_id) is unique within a brand; availability calls resolve it through the
-- brands a branch carries.
CREATE TABLE menu_items (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id bigint NOT NULL REFERENCES businesses(id),
  brand_id bigint NOT NULL REFERENCES brands(id),
  title text NOT NULL,
  partner_item_id text NOT NULL,
  description text NOT NULL DEFAULT '',
  prices json NOT NULL DEFAULT '{}',
  group_prices json NOT NULL DEFAULT '{}',
  visibilities json NOT NULL DEFAULT '{}',
  enabled boolean NOT NULL DEFAULT true,
  only_modifier boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (brand_id, partner_item_id)
);
CREATE INDEX menu_items_sku ON menu_items(partner_item_id, brand_id);

CREATE TABLE menu_modifier_groups (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id bigint NOT NULL REFERENCES businesses(id),
  brand_id bigint NOT NULL REFERENCES brands(id),
  title text NOT NULL,
  min_choices integer NOT NULL,
  max_choices integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX menu_modifier_groups_brand ON menu_modifier_groups(brand_id);

-- Links; seq keeps the order in which they were made (the order shown in menus).
CREATE TABLE menu_section_categories (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  section_id bigint NOT NULL REFERENCES menu_sections(id) ON DELETE CASCADE,
  category_id bigint NOT NULL REFERENCES menu_categories(id) ON DELETE CASCADE,
  UNIQUE (section_id, category_id)
);
CREATE INDEX menu_section_categories_category ON menu_section_categories(category_id);

CREATE TABLE menu_category_items (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  category_id bigint NOT NULL REFERENCES menu_categories(id) ON DELETE CASCADE,
  item_id bigint NOT NULL REFERENCES menu_items(id) ON DELETE CASCADE,
  UNIQUE (category_id, item_id)
);
CREATE INDEX menu_category_items_item ON menu_category_items(item_id);

CREATE TABLE menu_group_modifiers (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  group_id bigint NOT NULL REFERENCES menu_modifier_groups(id) ON DELETE CASCADE,
  modifier_id bigint NOT NULL REFERENCES menu_items(id) ON DELETE CASCADE,
  UNIQUE (group_id, modifier_id)
);
CREATE INDEX menu_group_modifiers_modifier ON menu_group_modifiers(modifier_id);

CREATE TABLE menu_item_groups (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  item_id bigint NOT NULL REFERENCES menu_items(id) ON DELETE CASCADE,
  group_id bigint NOT NULL REFERENCES menu_modifier_groups(id) ON DELETE CASCADE,
  UNIQUE (item_id, group_id)
);
CREATE INDEX menu_item_groups_group ON menu_item_groups(group_id);

-- Store layer: the brand's menu as synced into one branch (the domain's MenuDef).
CREATE TABLE menu_stores (
  brand_id bigint NOT NULL REFERENCES brands(id),
  branch_id bigint NOT NULL REFERENCES branches(id),
  business_id bigint NOT NULL REFERENCES businesses(id),
  tree json NOT NULL,
  synced_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (brand_id, branch_id)
);

-- Published snapshot: source is the store layer it was built from (enable toggles patch it);
-- template is the serialised tree with placeholders for the live item state; revision changes
-- on every rewrite so each instance's cache of the parsed template knows when to drop it.
CREATE TABLE menu_snapshots (
  brand_id bigint NOT NULL REFERENCES brands(id),
  branch_id bigint NOT NULL REFERENCES branches(id),
  business_id bigint NOT NULL REFERENCES businesses(id),
  version integer NOT NULL,
  published_at timestamptz NOT NULL,
  revision integer NOT NULL,
  source json NOT NULL,
  template text NOT NULL,
  PRIMARY KEY (brand_id, branch_id)
);

CREATE TABLE menu_brand_versions (
  brand_id bigint PRIMARY KEY REFERENCES brands(id),
  version integer NOT NULL
);

CREATE TABLE menu_publish_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id bigint NOT NULL REFERENCES businesses(id),
  brand_id bigint NOT NULL REFERENCES brands(id),
  branch_id bigint NOT NULL REFERENCES branches(id),
  version integer NOT NULL,
  provider_id integer NOT NULL,
  status text NOT NULL,
  items integer NOT NULL,
  published_at timestamptz NOT NULL
);
CREATE INDEX menu_publish_log_business ON menu_publish_log(business_id, id DESC);

-- Operational state of an item at a branch; no row = available, untracked, not snoozed.
CREATE TABLE menu_item_state (
  branch_id bigint NOT NULL REFERENCES branches(id),
  item_id bigint NOT NULL REFERENCES menu_items(id) ON DELETE CASCADE,
  available boolean NOT NULL DEFAULT true,
  stock integer,
  snoozed_until_ms bigint,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (branch_id, item_id)
);
CREATE INDEX menu_item_state_item ON menu_item_state(item_id);

-- Bumped on every state change at a branch: GET /menus caches its rendering per version.
CREATE TABLE menu_branch_state (
  branch_id bigint PRIMARY KEY REFERENCES branches(id),
  version integer NOT NULL
);

CREATE TABLE menu_oos_activity (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  business_id bigint NOT NULL REFERENCES businesses(id),
  brand_id bigint NOT NULL,
  branch_id bigint,
  entity_type text NOT NULL CHECK (entity_type IN ('section', 'category', 'item')),
  entity_id bigint NOT NULL,
  partner_item_id text,
  title text NOT NULL,
  action text NOT NULL CHECK (action IN ('availability', 'snooze', 'enable', 'stock')),
  before json NOT NULL,
  after json NOT NULL,
  until timestamptz,
  went_out boolean NOT NULL,
  came_back boolean NOT NULL,
  actor text NOT NULL,
  at_ms bigint NOT NULL
);
CREATE INDEX menu_oos_activity_at ON menu_oos_activity(business_id, entity_type, at_ms);
`;
