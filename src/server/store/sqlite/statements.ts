import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

// Prepared statements cached per database: handlers write plain SQL next to their logic
// without paying for a prepare on every request.
const cache = new WeakMap<Db, Map<string, Statement>>();

export function sql(db: Db, text: string): Statement {
  let m = cache.get(db);
  if (!m) {
    m = new Map();
    cache.set(db, m);
  }
  let s = m.get(text);
  if (!s) {
    s = db.prepare(text);
    m.set(text, s);
  }
  return s;
}
