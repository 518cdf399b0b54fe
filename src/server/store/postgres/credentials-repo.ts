import type {
  BusinessesRepo,
  BusinessRow,
  CredentialRow,
  CredentialsRepo,
  NewBusiness,
  NewCredential,
} from '../credentials-repo.js';
import type { PgTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();
const BUSINESS = 'id, title, address, logo, created_at';
export const CREDENTIAL =
  'key, business_id, secret_hash, prev_secret_hash, prev_valid_until, scopes, rate_limit, revoked_at, rotated_at, created_at';

export class PgBusinesses implements BusinessesRepo {
  constructor(private readonly tx: PgTx) {}

  list(): Promise<BusinessRow[]> {
    return this.tx.rows(`SELECT ${BUSINESS} FROM businesses ORDER BY id`);
  }

  get(id: number): Promise<BusinessRow | undefined> {
    return this.tx.row(`SELECT ${BUSINESS} FROM businesses WHERE id = $1`, [id]);
  }

  async create(b: NewBusiness, now: number): Promise<BusinessRow> {
    const [row] = await this.tx.change<BusinessRow>(
      `INSERT INTO businesses (title, address, logo, created_at) VALUES ($1, $2, $3, $4) RETURNING ${BUSINESS}`,
      [b.title, b.address, b.logo, iso(now)],
    );
    return row!;
  }

  async any(): Promise<boolean> {
    return (await this.tx.row('SELECT 1 FROM businesses LIMIT 1')) !== undefined;
  }
}

export class PgCredentials implements CredentialsRepo {
  constructor(private readonly tx: PgTx) {}

  get(key: string): Promise<CredentialRow | undefined> {
    // PostgreSQL text holds no NUL byte, so no stored key has one; the statement would fail on
    // it (a key taken from a path can carry one).
    if (key.includes('\0')) return Promise.resolve(undefined);
    return this.tx.row(`SELECT ${CREDENTIAL} FROM credentials WHERE key = $1`, [key]);
  }

  list(businessId?: number): Promise<CredentialRow[]> {
    return businessId === undefined
      ? this.tx.rows(`SELECT ${CREDENTIAL} FROM credentials ORDER BY created_at, key`)
      : this.tx.rows(
          `SELECT ${CREDENTIAL} FROM credentials WHERE business_id = $1 ORDER BY created_at, key`,
          [businessId],
        );
  }

  async insert(c: NewCredential, now: number): Promise<void> {
    await this.tx.exec(
      'INSERT INTO credentials (key, business_id, secret_hash, scopes, rate_limit, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [c.key, c.business_id, c.secret_hash, JSON.stringify([...new Set(c.scopes)]), c.rate_limit, iso(now)],
    );
  }

  async rotate(key: string, secretHash: string, prevValidUntil: number | null, now: number): Promise<void> {
    await this.tx.exec(
      `UPDATE credentials SET prev_secret_hash = CASE WHEN $1::bigint IS NULL THEN NULL ELSE secret_hash END,
         prev_valid_until = $1, secret_hash = $2, rotated_at = $3 WHERE key = $4`,
      [prevValidUntil, secretHash, iso(now), key],
    );
  }

  async revoke(key: string, now: number): Promise<void> {
    await this.tx.exec('UPDATE credentials SET revoked_at = $1 WHERE key = $2 AND revoked_at IS NULL', [
      iso(now),
      key,
    ]);
  }

  async upgradeHash(key: string, from: string, to: string): Promise<void> {
    await this.tx.exec(
      `UPDATE credentials SET
         secret_hash = CASE WHEN secret_hash = $1 THEN $2 ELSE secret_hash END,
         prev_secret_hash = CASE WHEN prev_secret_hash = $1 THEN $2 ELSE prev_secret_hash END
       WHERE key = $3 AND (secret_hash = $1 OR prev_secret_hash = $1)`,
      [from, to, key],
    );
  }

  async setScopes(key: string, scopes: readonly string[]): Promise<void> {
    await this.tx.exec('UPDATE credentials SET scopes = $1 WHERE key = $2', [
      JSON.stringify([...new Set(scopes)]),
      key,
    ]);
  }

  async setRateLimit(key: string, limit: number): Promise<void> {
    await this.tx.exec('UPDATE credentials SET rate_limit = $1 WHERE key = $2', [limit, key]);
  }
}
