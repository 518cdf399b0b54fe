import { join } from 'node:path';
import type { Store } from './store.js';

/** Where the data lives: a postgres:// URL, or else the SQLite file in the data dir. */
interface StoreLocation {
  /** `postgres://…` (or `postgresql://…`): the shared backend; absent: SQLite in `dataDir`. */
  database?: string | undefined;
  dataDir: string;
  durability?: 'normal' | 'full';
  logErrors?: (err: unknown) => void;
}

interface OpenedStore {
  store: Store;
  backend: 'sqlite' | 'postgres';
  /** `fn` runs when writes were rolled back after caches may have seen them. */
  onRollback(fn: () => void): void;
  /** One read statement outside a transaction, where the backend has a cheaper path than a read unit. */
  peek<T>(fn: import('./store.js').UnitFn<T>): Promise<T>;
  /**
   * PgRateLimits.admit: the credential check, rate take and claim in one round trip (PostgreSQL
   * only: SQLite's buckets and claims are in memory).
   */
  admitCredential?: (
    key: string,
    now: number,
    idemKey?: string,
  ) => Promise<import('./postgres/rate-limits-repo.js').Admission>;
  /** The SQLite connection itself (SQLite only), for tests and tools: the server goes through units. */
  sqlite?: import('./sqlite/db.js').Db;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Opens the store the options name, migrated to this version's schema. Each backend is loaded
 * only when chosen: a SQLite server never loads `pg`, and the other way round.
 */
export async function openStore(loc: StoreLocation): Promise<OpenedStore> {
  if (loc.database !== undefined && loc.database !== '') {
    if (!isPostgresUrl(loc.database))
      throw new Error(
        `database URL must start with postgres:// or postgresql:// (got ${JSON.stringify(redact(loc.database))})`,
      );
    const { PgStore } = await import('./postgres/store.js');
    const store = await PgStore.open(loc.database, loc.logErrors ? { logErrors: loc.logErrors } : {});
    return {
      store,
      backend: 'postgres',
      onRollback: (fn) => store.onRollback(fn),
      peek: (fn) => store.peek(fn),
      admitCredential: (key, now, idemKey) => store.rateLimits.admit(key, now, idemKey),
    };
  }
  const [{ openDb }, { SqliteStore }] = await Promise.all([
    import('./sqlite/db.js'),
    import('./sqlite/store.js'),
  ]);
  const db = openDb(join(loc.dataDir, 'partner.db'), { durability: loc.durability ?? 'normal' });
  const store = new SqliteStore(db, loc.logErrors ? { onStuck: loc.logErrors } : {});
  return {
    store,
    backend: 'sqlite',
    sqlite: db,
    onRollback: (fn) => store.units.onRollback(fn),
    peek: (fn) => store.read(fn),
  };
}

/** A database URL as it may be shown: without its password. */
function redact(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}
