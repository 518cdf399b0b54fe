// Businesses (the tenants) and the partner credentials issued to them: operator territory.

export interface BusinessRow {
  id: number;
  title: string;
  address: string;
  logo: string;
  created_at: string;
}

export type NewBusiness = Omit<BusinessRow, 'id' | 'created_at'>;

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

export type NewCredential = Pick<CredentialRow, 'key' | 'business_id' | 'secret_hash' | 'rate_limit'> & {
  scopes: readonly string[];
};
