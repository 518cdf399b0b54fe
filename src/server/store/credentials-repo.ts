// Businesses (the tenants) and the partner credentials issued to them: operator territory.

export interface BusinessRow {
  id: number;
  title: string;
  address: string;
  logo: string;
  created_at: string;
}

export interface NewBusiness {
  title: string;
  address: string;
  logo: string;
}

export interface BusinessesRepo {
  list(): Promise<BusinessRow[]>;
  get(id: number): Promise<BusinessRow | undefined>;
  create(b: NewBusiness, now: number): Promise<BusinessRow>;
  /** Whether the store holds any business at all (the demo seed fills only an empty store). */
  any(): Promise<boolean>;
}

export interface CredentialRow {
  key: string;
  business_id: number;
  /** The hash of the secret, as the credentials service made it (security/secrets.ts); never leaves the server. */
  secret_hash: string;
  /** The rotated-out secret's hash, valid until prev_valid_until (ms since the epoch). */
  prev_secret_hash: string | null;
  prev_valid_until: number | null;
  scopes: string[];
  rate_limit: number;
  revoked_at: string | null;
  rotated_at: string | null;
  created_at: string;
}

export interface NewCredential {
  key: string;
  business_id: number;
  secret_hash: string;
  scopes: readonly string[];
  rate_limit: number;
}

export interface CredentialsRepo {
  get(key: string): Promise<CredentialRow | undefined>;
  /** Oldest first; all businesses unless one is given. */
  list(businessId?: number): Promise<CredentialRow[]>;
  insert(c: NewCredential, now: number): Promise<void>;
  /** A new secret; the previous one keeps working until `prevValidUntil` (null: not at all). */
  rotate(key: string, secretHash: string, prevValidUntil: number | null, now: number): Promise<void>;
  revoke(key: string, now: number): Promise<void>;
  /**
   * Replaces the stored hash `from` (current or previous secret) by `to`, a hash of the same secret
   * of a newer kind; does nothing when `from` is no longer stored (a rotation came between).
   */
  upgradeHash(key: string, from: string, to: string): Promise<void>;
  setScopes(key: string, scopes: readonly string[]): Promise<void>;
  setRateLimit(key: string, limit: number): Promise<void>;
}
