// Businesses and credentials: what the operator handlers and the demo seed both call. A secret is
// hashed before the unit of work that stores it (a unit awaits nothing but the store).
import { DEFAULT_ROTATION_GRACE_S } from '../domain/auth.js';
import { invalidField, notFound } from '../errors.js';
import { newToken, type SecretHasher } from '../security/secrets.js';
import type { BusinessRow, CredentialRow, NewBusiness } from '../store/credentials-repo.js';
import type { Store, Tx } from '../store/store.js';

/** 256 random bits: a secret nobody can guess, which is why a fast keyed hash is enough at rest. */
const SECRET_BYTES = 32;

const DEFAULT_RATE_LIMIT = 600;

/** A credential as the operator API shows it: never a hash. */
export const credentialOut = (r: CredentialRow) => ({
  key: r.key,
  business_id: r.business_id,
  scopes: r.scopes,
  rate_limit: r.rate_limit,
  revoked_at: r.revoked_at,
  rotated_at: r.rotated_at,
  created_at: r.created_at,
});

export async function createBusiness(tx: Tx, b: NewBusiness, now: number): Promise<BusinessRow> {
  return tx.businesses.create(b, now);
}

export async function requireBusiness(tx: Tx, id: number): Promise<BusinessRow> {
  const b = await tx.businesses.get(id);
  if (!b) throw invalidField(['body', 'business_id'], `no business ${id}`);
  return b;
}

export async function credentialOf(tx: Tx, key: string): Promise<CredentialRow> {
  const r = await tx.credentials.get(key);
  if (!r) throw notFound('credential', key);
  return r;
}

/** Issues a credential: the only time its secret exists in plaintext. */
export async function issueCredential(
  store: Store,
  secrets: SecretHasher,
  input: { business_id: number; scopes: readonly string[]; rate_limit?: number | undefined },
  now: () => number,
) {
  const key = newToken('pk_', 12);
  const secret = newToken('sk_', SECRET_BYTES);
  const hash = secrets.hash(secret);
  const row = await store.write(async (tx) => {
    await requireBusiness(tx, input.business_id);
    await tx.credentials.insert(
      {
        key,
        business_id: input.business_id,
        secret_hash: hash,
        scopes: input.scopes,
        rate_limit: input.rate_limit ?? DEFAULT_RATE_LIMIT,
      },
      now(),
    );
    return credentialOf(tx, key);
  });
  return { ...credentialOut(row), secret };
}

/** A new secret; the old one keeps working for `graceSeconds` (0: stops at once). */
export async function rotateCredential(
  store: Store,
  secrets: SecretHasher,
  key: string,
  graceSeconds: number | undefined,
  now: () => number,
) {
  await store.read((tx) => credentialOf(tx, key));
  const secret = newToken('sk_', SECRET_BYTES);
  const hash = secrets.hash(secret);
  const grace = graceSeconds ?? DEFAULT_ROTATION_GRACE_S;
  const row = await store.write(async (tx) => {
    await credentialOf(tx, key);
    const at = now();
    await tx.credentials.rotate(key, hash, grace > 0 ? at + grace * 1000 : null, at);
    return credentialOf(tx, key);
  });
  return { ...credentialOut(row), secret };
}
