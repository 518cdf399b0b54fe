import { schemaSql } from '../sql/schema.js';
import type { Db } from './db.js';

// The schema version a data dir records in `PRAGMA user_version`. An empty database is created
// from the description (sql/schema.ts) at this version; an older one is upgraded in one
// transaction by making every table anew and copying each old table's rows into it by the columns
// both have. What a copy cannot know is listed here: renamed columns (RENAMED), changes of stored
// values (FIXUPS). An old column with no place in the description stops the upgrade rather than
// lose its values, as does a new NOT NULL column without a default. To change the schema:
// docs/development.md, "The store: written once".
export const SCHEMA_VERSION = 8;

/** Columns renamed since v1, by table: the newest name → the name older data dirs use. */
const RENAMED: Record<string, Record<string, string>> = {
  // v8, for PostgreSQL's columns: a stored answer's time is milliseconds; the snapshot's
  // template is not JSON (it holds placeholders).
  idempotency_keys: { created_ms: 'created_at' },
  menu_snapshots: { template: 'json' },
};

/** Changes of stored values, each run (after the copy) on data dirs older than `before`. */
const FIXUPS: readonly { before: number; sql: string }[] = [
  // Spec §2.5 types busy_mode_updated_at as a date-time, never null: a branch whose busy mode
  // never changed had it last set when it was created. Stored wire records follow.
  {
    before: 5,
    sql: `
  UPDATE branches SET busy_mode_updated_at = created_at WHERE busy_mode_updated_at IS NULL;
  UPDATE branches SET record = json_set(record, '$.busy_mode_updated_at', busy_mode_updated_at)
    WHERE record <> '' AND json_extract(record, '$.busy_mode_updated_at') IS NULL;`,
  },
  // Public ids are never reused. Before v6 the tables whose rows can be deleted lacked
  // AUTOINCREMENT, so after the newest section (category, item, modifier group, price group) was
  // deleted the next one got its id. Each sequence starts above every id still named anywhere:
  // store layers and snapshot sources, the OOS history, the price groups of item prices.
  {
    before: 6,
    sql: `
  CREATE TEMP TABLE named_ids AS
    WITH layers(doc) AS (SELECT tree FROM menu_stores UNION ALL SELECT source FROM menu_snapshots)
    SELECT 'section' AS kind, json_extract(e.value, '$.id') AS id FROM layers, json_each(layers.doc, '$.sections') e
    UNION ALL SELECT 'category', json_extract(e.value, '$.id') FROM layers, json_each(layers.doc, '$.categories') e
    UNION ALL SELECT 'category', c.value FROM layers, json_each(layers.doc, '$.sections') e, json_each(e.value, '$.category_ids') c
    UNION ALL SELECT 'item', json_extract(e.value, '$.id') FROM layers, json_each(layers.doc, '$.items') e
    UNION ALL SELECT 'item', i.value FROM layers, json_each(layers.doc, '$.categories') e, json_each(e.value, '$.item_ids') i
    UNION ALL SELECT 'item', m.value FROM layers, json_each(layers.doc, '$.modifierGroups') e, json_each(e.value, '$.modifier_ids') m
    UNION ALL SELECT 'group', json_extract(e.value, '$.id') FROM layers, json_each(layers.doc, '$.modifierGroups') e
    UNION ALL SELECT 'group', g.value FROM layers, json_each(layers.doc, '$.items') e, json_each(e.value, '$.modifier_group_ids') g
    UNION ALL SELECT entity_type, entity_id FROM menu_oos_activity
    UNION ALL SELECT 'price group', CAST(k.key AS INTEGER) FROM menu_items, json_each(menu_items.group_prices) k;
  CREATE TEMP TABLE floors AS
    SELECT 'price_groups' AS name, (SELECT max(id) FROM (SELECT id FROM price_groups UNION ALL SELECT id FROM named_ids WHERE kind = 'price group')) AS seq
    UNION ALL SELECT 'menu_sections', (SELECT max(id) FROM (SELECT id FROM menu_sections UNION ALL SELECT id FROM named_ids WHERE kind = 'section'))
    UNION ALL SELECT 'menu_categories', (SELECT max(id) FROM (SELECT id FROM menu_categories UNION ALL SELECT id FROM named_ids WHERE kind = 'category'))
    UNION ALL SELECT 'menu_items', (SELECT max(id) FROM (SELECT id FROM menu_items UNION ALL SELECT id FROM named_ids WHERE kind = 'item'))
    UNION ALL SELECT 'menu_modifier_groups', (SELECT max(id) FROM (SELECT id FROM menu_modifier_groups UNION ALL SELECT id FROM named_ids WHERE kind = 'group'));
  DELETE FROM sqlite_sequence WHERE name IN (SELECT name FROM floors);
  INSERT INTO sqlite_sequence (name, seq) SELECT name, coalesce(seq, 0) FROM floors;
  DROP TABLE temp.named_ids;
  DROP TABLE temp.floors;`,
  },
  // A stored answer that is exactly the order an outbox event carries (event_seq) keeps no copy.
  { before: 8, sql: 'UPDATE idempotency_keys SET payload = NULL WHERE event_seq IS NOT NULL;' },
];

/** Brings the database to SCHEMA_VERSION (creating it if empty); returns that version. */
export function migrate(db: Db): number {
  const from = db.pragma('user_version', { simple: true }) as number;
  if (from > SCHEMA_VERSION) {
    throw new Error(
      `database schema v${from} is newer than this partner (v${SCHEMA_VERSION}); upgrade partner`,
    );
  }
  if (from === SCHEMA_VERSION) return from;
  // Dropping an old table would otherwise cascade to its children: foreign keys are off while the
  // tables are made anew (a pragma a transaction ignores), and checked before the upgrade commits.
  const enforced = db.pragma('foreign_keys', { simple: true }) === 1;
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      if (from === 0) db.exec(schemaSql('sqlite'));
      else upgrade(db, from);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
  } finally {
    if (enforced) db.pragma('foreign_keys = ON');
  }
  return SCHEMA_VERSION;
}

type Sequence = { name: string; seq: number };

function upgrade(db: Db, from: number): void {
  const names = (sql: string) => db.prepare(sql).pluck().all() as string[];
  const columns = (table: string) => names(`SELECT name FROM pragma_table_info('${table}')`);
  const broken = (db.pragma('foreign_key_check') as unknown[]).length;
  const tables = names("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  // The ids each AUTOINCREMENT table has handed out, deleted rows' included.
  const sequences = names("SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence'").length
    ? (db.prepare('SELECT name, max(seq) AS seq FROM sqlite_sequence GROUP BY name').all() as Sequence[])
    : [];
  // The old tables step aside under another name; their indexes go (the new tables make theirs).
  for (const index of names("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
    db.exec(`DROP INDEX ${index}`);
  for (const table of tables) db.exec(`ALTER TABLE ${table} RENAME TO old_${table}`);
  db.exec(schemaSql('sqlite'));
  for (const table of tables) {
    const old = columns(`old_${table}`);
    const pairs = columns(table)
      .map((to) => ({ to, from: old.includes(to) ? to : RENAMED[table]?.[to] }))
      .filter((p): p is { to: string; from: string } => p.from !== undefined && old.includes(p.from));
    const lost = old.filter((column) => !pairs.some((p) => p.from === column));
    if (lost.length)
      throw new Error(`upgrade would drop ${table}: ${lost.join(', ')} (sqlite/migrations.ts)`);
    db.exec(
      `INSERT INTO ${table} (${pairs.map((p) => p.to).join(', ')})
         SELECT ${pairs.map((p) => p.from).join(', ')} FROM old_${table}`,
    );
    db.exec(`DROP TABLE old_${table}`);
  }
  for (const { name, seq } of sequences) {
    db.prepare('DELETE FROM sqlite_sequence WHERE name = ?').run(name);
    db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(name, seq);
  }
  for (const fixup of FIXUPS) if (from < fixup.before) db.exec(fixup.sql);
  const after = (db.pragma('foreign_key_check') as unknown[]).length;
  if (after > broken) throw new Error(`upgrade from v${from} would break ${after - broken} reference(s)`);
}
