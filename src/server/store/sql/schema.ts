import type { LinkKind } from '../menus/links-repo.js';
import type { DialectName } from './query.js';

// The schema, written once: every table, column, index and constraint of the newest version, in
// PostgreSQL's spelling, from which each dialect's DDL is made (`schemaSql`; docs/development.md,
// "The store: written once"). Types, and what SQLite keeps for them:
// - ids: bigint identities, GENERATED ALWAYS (never handed out twice, even after a delete or a
//   rollback); BY DEFAULT where the writer takes the id first (orders, the outbox seq). SQLite's
//   rowid hands out max(id) + 1: tables whose rows can be deleted add AUTOINCREMENT.
// - instants shown on the wire: timestamptz, read back as the ISO text SQLite stores; values of
//   the injectable clock the server compares (due times, leases, order times, answer ages):
//   bigint milliseconds, as the clock gives them.
// - JSON: `json` keeps the text as written (order reads, signed bodies, stored answers and maps
//   echoed in their order must be byte-identical on both backends); `jsonb` for values read as
//   data (scopes, batch lists); a branch's `record` and the snapshot template are text, sent as
//   they are. SQLite: TEXT.
// - booleans: SQLite keeps 0/1 (INTEGER), which its partial indexes and defaults name.

/** SQLite's column type for a PostgreSQL type of the description: its affinity. */
const sqliteType = (t: string) => (/^(text|timestamptz|jsonb?)$/.test(t) ? 'TEXT' : 'INTEGER');
/** A column definition's name and type (one column per line). */
const COLUMN_TYPE = /^(\s+\w+ )(bigint|integer|boolean|text|timestamptz|jsonb?)\b/gm;

/** A link table `menu_<name>` from parent `<parent>_id` (of `menu_<parents>`) to child `<child>_id`. */
const link = (name: string, parent: string, parents: string, child: string, children: string) => ({
  table: `menu_${name}`,
  parent: `${parent}_id`,
  parentTable: `menu_${parents}`,
  child: `${child}_id`,
  childTable: `menu_${children}`,
});
/** The menu definition's links, by kind (parent → child); the links repository's statements use them. */
export const LINKS: Record<LinkKind, ReturnType<typeof link>> = {
  'section-categories': link('section_categories', 'section', 'sections', 'category', 'categories'),
  'category-items': link('category_items', 'category', 'categories', 'item', 'items'),
  'group-modifiers': link('group_modifiers', 'group', 'modifier_groups', 'modifier', 'items'),
  'item-groups': link('item_groups', 'item', 'items', 'group', 'modifier_groups'),
};

const tables = (d: DialectName) => {
  const pg = (sql: string) => (d === 'postgres' ? sql : '');
  const sqlite = (sql: string) => (d === 'sqlite' ? sql : '');
  return `
  CREATE TABLE businesses (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title text NOT NULL,
    address text NOT NULL DEFAULT '',
    logo text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL
  );
  CREATE TABLE credentials (
    key text PRIMARY KEY,
    business_id bigint NOT NULL REFERENCES businesses(id),
    secret_hash text NOT NULL,
    prev_secret_hash text,
    prev_valid_until bigint,
    scopes jsonb NOT NULL,
    rate_limit integer NOT NULL,
    revoked_at timestamptz,
    rotated_at timestamptz,
    created_at timestamptz NOT NULL
  );
  ${pg('CREATE INDEX credentials_business ON credentials(business_id, created_at, key);')}
  CREATE TABLE settings (
    name text PRIMARY KEY,
    value text NOT NULL
  );

  CREATE TABLE idempotency_keys (
    credential_key text NOT NULL,
    idem_key text NOT NULL,
    fingerprint text NOT NULL,
    status integer NOT NULL,
    is_error boolean NOT NULL,
    payload json,
    created_ms bigint NOT NULL,
    event_seq bigint,
    PRIMARY KEY (credential_key, idem_key)
  );
  CREATE INDEX idempotency_created ON idempotency_keys(created_ms);
  ${pg(`
  -- In-flight claims (IdempotencyClaims). Unlogged (no WAL, so a claim costs no disk flush): after
  -- a database crash they are gone, and so are the transactions of the requests that held them.
  CREATE UNLOGGED TABLE idempotency_claims (
    credential_key text NOT NULL,
    idem_key text NOT NULL,
    holder text NOT NULL,
    lease_until_ms bigint NOT NULL,
    PRIMARY KEY (credential_key, idem_key)
  );
  -- One token bucket per credential shared by every instance. Unlogged for the same reason: a
  -- database crash refills the buckets, which is harmless.
  CREATE UNLOGGED TABLE rate_buckets (
    credential_key text PRIMARY KEY,
    tokens double precision NOT NULL,
    updated_ms bigint NOT NULL,
    -- whether the last take was allowed (returned by the statement that took it)
    allowed boolean NOT NULL
  );`)}

  -- SQLite's index entries end with the rowid (the id) anyway; PostgreSQL's name it.
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
  CREATE INDEX brands_business ON brands(business_id${pg(', id')});
  CREATE TABLE price_groups (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY${sqlite(' AUTOINCREMENT')},
    business_id bigint NOT NULL REFERENCES businesses(id),
    title text NOT NULL,
    description text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  );
  CREATE INDEX price_groups_business ON price_groups(business_id${pg(', id')});

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

  -- record: the full wire record (the order read, status_history included), rewritten on every
  -- change so reads are a plain concatenation; the columns beside it serve tenancy, filters and
  -- ordering. Every B-tree a status change touches costs WAL pages on the hot path, so there
  -- is deliberately no separate history table and no index the change does not need.
  CREATE TABLE orders (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    business_id bigint NOT NULL REFERENCES businesses(id),
    brand_id bigint NOT NULL CONSTRAINT orders_brand REFERENCES brands(id),
    branch_id bigint NOT NULL CONSTRAINT orders_branch REFERENCES branches(id),
    status integer NOT NULL,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL,
    record json NOT NULL
  );
  CREATE INDEX orders_business_created ON orders(business_id, created_ms DESC, id DESC);

  -- seq is taken by the writing unit: id, "evt_<seq in base 36>_<random>", names it, so ids are
  -- unique without an index (look events up by seq). fanned_out: the event has been turned into
  -- deliveries (one per matching receiver).
  CREATE TABLE outbox_events (
    seq bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    id text NOT NULL,
    type text NOT NULL,
    business_id bigint NOT NULL REFERENCES businesses(id),
    brand_id bigint NOT NULL,
    branch_id bigint NOT NULL,
    order_id bigint,
    payload json NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_ms bigint NOT NULL,
    last_error text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    fanned_out boolean NOT NULL DEFAULT false,
    batched_into text
  );
  CREATE INDEX outbox_unfanned ON outbox_events(seq) WHERE ${d === 'postgres' ? 'NOT fanned_out' : 'fanned_out = 0'};
  CREATE INDEX outbox_batched ON outbox_events(batched_into) WHERE batched_into IS NOT NULL;
  ${pg('CREATE INDEX outbox_order ON outbox_events(order_id) WHERE order_id IS NOT NULL;')}

  CREATE TABLE webhook_secrets (
    business_id bigint PRIMARY KEY REFERENCES businesses(id),
    secret_sealed text NOT NULL,
    rotated_at timestamptz,
    created_at timestamptz NOT NULL
  );
  CREATE TABLE webhooks (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    business_id bigint NOT NULL REFERENCES businesses(id),
    brand_id bigint,
    branch_id bigint,
    event text NOT NULL,
    url text NOT NULL,
    created_at timestamptz NOT NULL,
    deleted_at timestamptz
  );
  CREATE UNIQUE INDEX webhooks_tuple ON webhooks(business_id, coalesce(brand_id, 0), coalesce(branch_id, 0), event, url)
    WHERE deleted_at IS NULL;

  -- A claim leases the row (lease_owner, lease_host, lease_until: SqlDeliveries). On PostgreSQL
  -- several instances count a URL's live leases (deliveries_leased by url); SQLite's one
  -- dispatcher keeps that count itself.
  CREATE TABLE webhook_deliveries (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_seq bigint NOT NULL REFERENCES outbox_events(seq),
    event_id text NOT NULL,
    event_type text NOT NULL,
    business_id bigint NOT NULL,
    webhook_id bigint,
    url text NOT NULL,
    payload json NOT NULL,
    batched_event_ids jsonb NOT NULL DEFAULT '[]',
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    budget_start integer NOT NULL DEFAULT 0,
    next_attempt_ms bigint,
    lease_owner text,
    lease_until bigint,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    lease_host text
  );
  CREATE INDEX deliveries_due ON webhook_deliveries(next_attempt_ms${pg(', id')}) WHERE status = 'pending';
  CREATE INDEX deliveries_event ON webhook_deliveries(event_id);
  CREATE INDEX deliveries_leased ON webhook_deliveries(${pg('url, ')}lease_until)
    WHERE ${pg("status = 'pending' AND ")}lease_until IS NOT NULL;
  ${pg('CREATE INDEX deliveries_changed ON webhook_deliveries(updated_at, id);')}
  CREATE TABLE webhook_attempts (
    delivery_id bigint NOT NULL REFERENCES webhook_deliveries(id),
    attempt integer NOT NULL,
    at timestamptz NOT NULL,
    status_code integer,
    duration_ms integer NOT NULL,
    error text,
    PRIMARY KEY (delivery_id, attempt)
  )${sqlite(' WITHOUT ROWID')};

  -- Business-level menu definition (what the authoring endpoints write).
  CREATE TABLE menu_sections (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY${sqlite(' AUTOINCREMENT')},
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
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY${sqlite(' AUTOINCREMENT')},
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
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY${sqlite(' AUTOINCREMENT')},
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
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY${sqlite(' AUTOINCREMENT')},
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
  ${Object.values(LINKS)
    .map(
      (l) => `
  CREATE TABLE ${l.table} (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ${l.parent} bigint NOT NULL REFERENCES ${l.parentTable}(id) ON DELETE CASCADE,
    ${l.child} bigint NOT NULL REFERENCES ${l.childTable}(id) ON DELETE CASCADE,
    UNIQUE (${l.parent}, ${l.child})
  );
  CREATE INDEX ${l.table}_${l.child.replace(/_id$/, '')} ON ${l.table}(${l.child});`,
    )
    .join('')}

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
  -- Published snapshot (Snapshot, SnapshotHead): template is text, not JSON (it has placeholders).
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
};

/** The whole schema at the newest version, as `d` spells it (comments left out). */
export function schemaSql(d: DialectName): string {
  const sql = tables(d).replace(/--.*$/gm, '');
  if (d === 'postgres') return sql;
  return sql
    .replace(COLUMN_TYPE, (_, column: string, t: string) => column + sqliteType(t))
    .replace(/ GENERATED (ALWAYS|BY DEFAULT) AS IDENTITY PRIMARY KEY/g, ' PRIMARY KEY')
    .replace(/ DEFAULT (true|false)\b/g, (_, v: string) => ` DEFAULT ${v === 'true' ? 1 : 0}`);
}
