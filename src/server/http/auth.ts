import { missingScope, parseBasic, previousSecretValid } from '../domain/auth.js';
import { safeEqual, sha256, verifySecret } from '../security/secrets.js';
import type { Scope } from '../../contract/scopes.js';
import type { Db } from '../store/db.js';
import { sql } from './prepared.js';
import { ApiError } from './api-error.js';

export interface AuthedCredential {
  key: string;
  businessId: number;
  scopes: readonly string[];
  rateLimit: number;
}

interface CredentialRow {
  key: string;
  business_id: number;
  secret_hash: string;
  prev_secret_hash: string | null;
  prev_valid_until: number | null;
  scopes: string;
  rate_limit: number;
  revoked_at: string | null;
}

interface CacheEntry {
  cred: AuthedCredential;
  revoked: boolean;
  /** Set when the header carries a rotated-out secret: it stops working then. */
  validUntil: number | null;
}

const MAX_CACHE = 10_000;

/**
 * Verifies Basic credentials against scrypt hashes and caches successes by a digest of the
 * header, so hashing is off the hot path. Every operator change to a credential calls
 * `invalidate`, so a revoke, rotation or scope change takes effect on the next request.
 */
export class CredentialAuth {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly pending = new Map<string, { gen: number; result: Promise<CacheEntry | undefined> }>();
  /** Bumped by every operator change to a credential key. */
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  async authenticate(header: string | undefined): Promise<AuthedCredential> {
    const parsed = parseBasic(header);
    if (!parsed) {
      throw new ApiError(
        'auth_missing',
        'Authorization header is missing or malformed; expected Basic base64(key:secret)',
        undefined,
        {
          'www-authenticate': 'Basic realm="partner"',
        },
      );
    }
    const id = sha256(header!).toString('base64');
    let entry = this.cache.get(id);
    if (entry && entry.validUntil !== null && this.now() >= entry.validUntil) {
      this.cache.delete(id);
      entry = undefined;
    }
    if (!entry) {
      // A verification reads the row, then hashes for tens of ms. If the operator changes the
      // credential meanwhile (generation bumped), that result is stale: verify again, and never
      // cache a result older than the latest change.
      for (let tries = 0; ; tries++) {
        const gen = this.generation(parsed.key);
        let p = this.pending.get(id);
        if (!p || p.gen !== gen) {
          const fresh = this.verify(parsed.key, parsed.secret);
          p = { gen, result: fresh };
          this.pending.set(id, p);
          const mine = p;
          void fresh.finally(() => {
            if (this.pending.get(id) === mine) this.pending.delete(id);
          });
        }
        entry = await p.result;
        if (this.generation(parsed.key) === gen) break;
        if (tries >= 3)
          throw new ApiError('auth_invalid_credential', 'credential changed during verification; retry');
      }
      if (!entry) throw new ApiError('auth_invalid_credential');
      if (this.cache.size >= MAX_CACHE) this.cache.clear();
      this.cache.set(id, entry);
    }
    if (entry.revoked) throw new ApiError('auth_revoked');
    return entry.cred;
  }

  private async verify(key: string, secret: string): Promise<CacheEntry | undefined> {
    const row = sql(this.db, 'SELECT * FROM credentials WHERE key = ?').get(key) as CredentialRow | undefined;
    if (!row) return undefined;
    const cred: AuthedCredential = {
      key: row.key,
      businessId: row.business_id,
      scopes: JSON.parse(row.scopes) as string[],
      rateLimit: row.rate_limit,
    };
    if (await verifySecret(secret, row.secret_hash))
      return { cred, revoked: row.revoked_at !== null, validUntil: null };
    if (
      row.prev_secret_hash &&
      previousSecretValid(row.prev_valid_until, this.now()) &&
      (await verifySecret(secret, row.prev_secret_hash))
    ) {
      return { cred, revoked: row.revoked_at !== null, validUntil: row.prev_valid_until };
    }
    return undefined;
  }

  private generation(key: string): number {
    return this.generations.get(key) ?? 0;
  }

  /** Forget every cached verification of this credential key, and any still under way. */
  invalidate(key: string): void {
    this.generations.set(key, this.generation(key) + 1);
    for (const [id, e] of this.cache) if (e.cred.key === key) this.cache.delete(id);
  }

  static requireScope(cred: AuthedCredential, required: readonly Scope[]): void {
    const missing = missingScope(cred.scopes, required);
    if (missing) {
      throw new ApiError('auth_forbidden', `credential is not scoped for ${missing}`, {
        required_scope: missing,
        ...(required.length > 1 ? { accepted_scopes: required } : {}),
      });
    }
  }
}

/** Operator API: `Authorization: Bearer <operator_token>`, compared in constant time. */
export function checkOperator(header: string | undefined, token: string): void {
  const m = header ? /^Bearer[ ]+(\S+)[ ]*$/i.exec(header) : null;
  if (!m) {
    throw new ApiError(
      'auth_missing',
      'operator API needs Authorization: Bearer <operator_token>',
      undefined,
      {
        'www-authenticate': 'Bearer realm="partner-operator"',
      },
    );
  }
  if (!safeEqual(m[1]!, token))
    throw new ApiError('auth_invalid_credential', 'operator token did not verify');
}
