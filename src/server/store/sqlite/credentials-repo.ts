import type {
  BusinessesRepo,
  BusinessRow,
  CredentialRow,
  CredentialsRepo,
  NewBusiness,
  NewCredential,
} from '../credentials-repo.js';
import type { SqliteTx } from './tx.js';

const iso = (ms: number) => new Date(ms).toISOString();
const BUSINESS = 'id, title, address, logo, created_at';

export class SqliteBusinesses implements BusinessesRepo {
  constructor(private readonly tx: SqliteTx) {}

  async list(): Promise<BusinessRow[]> {
    return this.tx.select(`SELECT ${BUSINESS} FROM businesses ORDER BY id`).all() as BusinessRow[];
  }

  async get(id: number): Promise<BusinessRow | undefined> {
    return this.tx.select(`SELECT ${BUSINESS} FROM businesses WHERE id = ?`).get(id) as
      | BusinessRow
      | undefined;
  }

  async create(b: NewBusiness, now: number): Promise<BusinessRow> {
    return this.tx
      .change(
        `INSERT INTO businesses (title, address, logo, created_at) VALUES (?, ?, ?, ?) RETURNING ${BUSINESS}`,
      )
      .get(b.title, b.address, b.logo, iso(now)) as BusinessRow;
  }

  async any(): Promise<boolean> {
    return this.tx.select('SELECT 1 FROM businesses LIMIT 1').get() !== undefined;
  }
}

type Stored = Omit<CredentialRow, 'scopes'> & { scopes: string };
const parsed = (r: Stored): CredentialRow => ({ ...r, scopes: JSON.parse(r.scopes) as string[] });

export class SqliteCredentials implements CredentialsRepo {
  constructor(private readonly tx: SqliteTx) {}

  async get(key: string): Promise<CredentialRow | undefined> {
    const r = this.tx.select('SELECT * FROM credentials WHERE key = ?').get(key) as Stored | undefined;
    return r && parsed(r);
  }

  async list(businessId?: number): Promise<CredentialRow[]> {
    const rows = (
      businessId === undefined
        ? this.tx.select('SELECT * FROM credentials ORDER BY created_at, key').all()
        : this.tx
            .select('SELECT * FROM credentials WHERE business_id = ? ORDER BY created_at, key')
            .all(businessId)
    ) as Stored[];
    return rows.map(parsed);
  }

  async insert(c: NewCredential, now: number): Promise<void> {
    this.tx
      .change(
        'INSERT INTO credentials (key, business_id, secret_hash, scopes, rate_limit, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        c.key,
        c.business_id,
        c.secret_hash,
        JSON.stringify([...new Set(c.scopes)]),
        c.rate_limit,
        iso(now),
      );
  }

  async rotate(key: string, secretHash: string, prevValidUntil: number | null, now: number): Promise<void> {
    this.tx
      .change(
        `UPDATE credentials SET prev_secret_hash = CASE WHEN ? IS NULL THEN NULL ELSE secret_hash END,
           prev_valid_until = ?, secret_hash = ?, rotated_at = ? WHERE key = ?`,
      )
      .run(prevValidUntil, prevValidUntil, secretHash, iso(now), key);
  }

  async revoke(key: string, now: number): Promise<void> {
    this.tx
      .change('UPDATE credentials SET revoked_at = ? WHERE key = ? AND revoked_at IS NULL')
      .run(iso(now), key);
  }

  async upgradeHash(key: string, from: string, to: string): Promise<void> {
    this.tx
      .change(
        `UPDATE credentials SET
           secret_hash = CASE WHEN secret_hash = ? THEN ? ELSE secret_hash END,
           prev_secret_hash = CASE WHEN prev_secret_hash = ? THEN ? ELSE prev_secret_hash END
         WHERE key = ? AND (secret_hash = ? OR prev_secret_hash = ?)`,
      )
      .run(from, to, from, to, key, from, from);
  }

  async setScopes(key: string, scopes: readonly string[]): Promise<void> {
    this.tx
      .change('UPDATE credentials SET scopes = ? WHERE key = ?')
      .run(JSON.stringify([...new Set(scopes)]), key);
  }

  async setRateLimit(key: string, limit: number): Promise<void> {
    this.tx.change('UPDATE credentials SET rate_limit = ? WHERE key = ?').run(limit, key);
  }
}
