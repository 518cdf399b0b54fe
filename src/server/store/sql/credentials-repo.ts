import type { BusinessRow, CredentialRow, NewBusiness, NewCredential } from '../credentials-repo.js';
import { iso, json, q, type Sql } from './query.js';

const BUSINESS = 'id, title, address, logo, created_at';
/** A credential's columns, in the order of its row type (PostgreSQL's admit statement reads them too). */
export const CREDENTIAL =
  'key, business_id, secret_hash, prev_secret_hash, prev_valid_until, scopes, rate_limit, revoked_at, rotated_at, created_at';

const S = {
  list: q(`SELECT ${BUSINESS} FROM businesses ORDER BY id`),
  get: q(`SELECT ${BUSINESS} FROM businesses WHERE id = ?`),
  create: q(
    `INSERT INTO businesses (title, address, logo, created_at) VALUES (?, ?, ?, ?) RETURNING ${BUSINESS}`,
  ),
  any: q('SELECT 1 FROM businesses LIMIT 1'),
};

export class SqlBusinesses {
  constructor(private readonly db: Sql) {}

  list(): Promise<BusinessRow[]> {
    return this.db.all(S.list);
  }

  get(id: number): Promise<BusinessRow | undefined> {
    return this.db.get(S.get, [id]);
  }

  async create(b: NewBusiness, now: number): Promise<BusinessRow> {
    const [r] = await this.db.write<BusinessRow>(S.create, [b.title, b.address, b.logo, iso(now)]);
    return r!;
  }

  /** Whether the store holds any business at all (the demo seed fills only an empty store). */
  async any(): Promise<boolean> {
    return (await this.db.get(S.any)) !== undefined;
  }
}

type Stored = Omit<CredentialRow, 'scopes'> & { scopes: unknown };
/** A stored credential row as the repository hands it out (scopes: a JSON array). */
const credentialOf = (r: Stored): CredentialRow => ({ ...r, scopes: json<string[]>(r.scopes) });

const C = {
  get: q(`SELECT ${CREDENTIAL} FROM credentials WHERE key = ?`),
  all: q(`SELECT ${CREDENTIAL} FROM credentials ORDER BY created_at, key`),
  ofBusiness: q(`SELECT ${CREDENTIAL} FROM credentials WHERE business_id = ? ORDER BY created_at, key`),
  insert: q(
    'INSERT INTO credentials (key, business_id, secret_hash, scopes, rate_limit, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  ),
  rotate: q(
    `UPDATE credentials SET prev_secret_hash = CASE WHEN CAST(? AS BIGINT) IS NULL THEN NULL ELSE secret_hash END,
       prev_valid_until = ?, secret_hash = ?, rotated_at = ? WHERE key = ?`,
  ),
  revoke: q('UPDATE credentials SET revoked_at = ? WHERE key = ? AND revoked_at IS NULL'),
  scopes: q('UPDATE credentials SET scopes = ? WHERE key = ?'),
  rateLimit: q('UPDATE credentials SET rate_limit = ? WHERE key = ?'),
  // Only the exact hash that was checked: a rotation that came between wins.
  upgradeHash: q(
    `UPDATE credentials SET
       secret_hash = CASE WHEN secret_hash = ? THEN ? ELSE secret_hash END,
       prev_secret_hash = CASE WHEN prev_secret_hash = ? THEN ? ELSE prev_secret_hash END
     WHERE key = ? AND (secret_hash = ? OR prev_secret_hash = ?)`,
  ),
};

export class SqlCredentials {
  constructor(private readonly db: Sql) {}

  async get(key: string): Promise<CredentialRow | undefined> {
    // No stored key has a NUL byte (PostgreSQL text cannot hold one, and the statement would
    // fail on it); a key taken from a path can carry one.
    if (key.includes('\0')) return undefined;
    const r = await this.db.get<Stored>(C.get, [key]);
    return r && credentialOf(r);
  }

  /** Oldest first; all businesses unless one is given. */
  async list(businessId?: number): Promise<CredentialRow[]> {
    const rows =
      businessId === undefined
        ? await this.db.all<Stored>(C.all)
        : await this.db.all<Stored>(C.ofBusiness, [businessId]);
    return rows.map(credentialOf);
  }

  async insert(c: NewCredential, now: number): Promise<void> {
    await this.db.run(C.insert, [
      c.key,
      c.business_id,
      c.secret_hash,
      JSON.stringify([...new Set(c.scopes)]),
      c.rate_limit,
      iso(now),
    ]);
  }

  /** A new secret; the previous one keeps working until `prevValidUntil` (null: not at all). */
  async rotate(key: string, secretHash: string, prevValidUntil: number | null, now: number): Promise<void> {
    await this.db.run(C.rotate, [prevValidUntil, prevValidUntil, secretHash, iso(now), key]);
  }

  async revoke(key: string, now: number): Promise<void> {
    await this.db.run(C.revoke, [iso(now), key]);
  }

  /**
   * Replaces the stored hash `from` (current or previous secret) by `to`, a hash of the same secret
   * of a newer kind; does nothing when `from` is no longer stored (a rotation came between).
   */
  async upgradeHash(key: string, from: string, to: string): Promise<void> {
    await this.db.run(C.upgradeHash, [from, to, from, to, key, from, from]);
  }

  async setScopes(key: string, scopes: readonly string[]): Promise<void> {
    await this.db.run(C.scopes, [JSON.stringify([...new Set(scopes)]), key]);
  }

  async setRateLimit(key: string, limit: number): Promise<void> {
    await this.db.run(C.rateLimit, [limit, key]);
  }
}
