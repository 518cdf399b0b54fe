import { DEFAULT_ROTATION_GRACE_S } from '../domain/auth.js';
import { hashSecret, newToken } from '../security/secrets.js';
import type { Db } from '../store/db.js';
import { invalidField, notFound } from '../errors.js';
import type { HandlersFor, Services } from './context.js';
import { sql } from '../http/prepared.js';

const iso = (ms: number) => new Date(ms).toISOString();
export const DEFAULT_RATE_LIMIT = 600;

interface CredentialRow {
  key: string;
  business_id: number;
  scopes: string;
  rate_limit: number;
  revoked_at: string | null;
  rotated_at: string | null;
  created_at: string;
}

const credentialOut = (r: CredentialRow) => ({
  key: r.key,
  business_id: r.business_id,
  scopes: JSON.parse(r.scopes) as string[],
  rate_limit: r.rate_limit,
  revoked_at: r.revoked_at,
  rotated_at: r.rotated_at,
  created_at: r.created_at,
});

function credential(db: Db, key: string): CredentialRow {
  const r = sql(db, 'SELECT * FROM credentials WHERE key = ?').get(key) as CredentialRow | undefined;
  if (!r) throw notFound('credential', key);
  return r;
}

/** Issues a credential: the only time its secret exists in plaintext. */
export async function issueCredential(
  services: Services,
  input: { business_id: number; scopes: readonly string[]; rate_limit?: number | undefined },
) {
  const { db } = services;
  if (!sql(db, 'SELECT 1 FROM businesses WHERE id = ?').get(input.business_id)) {
    throw invalidField(['body', 'business_id'], `no business ${input.business_id}`);
  }
  const key = newToken('pk_', 12);
  const secret = newToken('sk_', 24);
  const hash = await hashSecret(secret);
  sql(
    db,
    'INSERT INTO credentials (key, business_id, secret_hash, scopes, rate_limit, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(
    key,
    input.business_id,
    hash,
    JSON.stringify([...new Set(input.scopes)]),
    input.rate_limit ?? DEFAULT_RATE_LIMIT,
    iso(services.now()),
  );
  return { ...credentialOut(credential(db, key)), secret };
}

function changed(services: Services, key: string) {
  services.auth.invalidate(key);
  return credentialOut(credential(services.db, key));
}

export const operatorHandlers: HandlersFor<
  | 'operatorListBusinesses'
  | 'operatorCreateBusiness'
  | 'operatorListCredentials'
  | 'operatorCreateCredential'
  | 'operatorRotateCredential'
  | 'operatorRevokeCredential'
  | 'operatorSetCredentialScopes'
  | 'operatorSetCredentialRateLimit'
> = {
  operatorListBusinesses: ({ db }) =>
    sql(db, 'SELECT id, title, address, logo, created_at FROM businesses ORDER BY id').all() as {
      id: number;
      title: string;
      address: string;
      logo: string;
      created_at: string;
    }[],

  operatorCreateBusiness: ({ db, now }, { body }) => {
    const id = Number(
      sql(db, 'INSERT INTO businesses (title, address, logo, created_at) VALUES (?, ?, ?, ?)').run(
        body.title,
        body.address ?? '',
        body.logo ?? '',
        iso(now),
      ).lastInsertRowid,
    );
    return sql(db, 'SELECT id, title, address, logo, created_at FROM businesses WHERE id = ?').get(id) as {
      id: number;
      title: string;
      address: string;
      logo: string;
      created_at: string;
    };
  },

  operatorListCredentials: ({ db }, { query }) =>
    (
      (query.business_id === undefined
        ? sql(db, 'SELECT * FROM credentials ORDER BY created_at, key').all()
        : sql(db, 'SELECT * FROM credentials WHERE business_id = ? ORDER BY created_at, key').all(
            query.business_id,
          )) as CredentialRow[]
    ).map(credentialOut),

  operatorCreateCredential: ({ services }, { body }) => issueCredential(services, body),

  operatorRotateCredential: async ({ services }, { params, body }) => {
    const r = credential(services.db, params.key);
    const secret = newToken('sk_', 24);
    const hash = await hashSecret(secret);
    const now = services.now();
    const grace = body.grace_seconds ?? DEFAULT_ROTATION_GRACE_S;
    const current = sql(services.db, 'SELECT secret_hash FROM credentials WHERE key = ?')
      .pluck()
      .get(r.key) as string;
    sql(
      services.db,
      'UPDATE credentials SET secret_hash = ?, prev_secret_hash = ?, prev_valid_until = ?, rotated_at = ? WHERE key = ?',
    ).run(hash, grace > 0 ? current : null, grace > 0 ? now + grace * 1000 : null, iso(now), r.key);
    return { ...changed(services, r.key), secret };
  },

  operatorRevokeCredential: ({ services }, { params }) => {
    const r = credential(services.db, params.key);
    if (!r.revoked_at)
      sql(services.db, 'UPDATE credentials SET revoked_at = ? WHERE key = ?').run(iso(services.now()), r.key);
    return changed(services, r.key);
  },

  operatorSetCredentialScopes: ({ services }, { params, body }) => {
    credential(services.db, params.key);
    sql(services.db, 'UPDATE credentials SET scopes = ? WHERE key = ?').run(
      JSON.stringify([...new Set(body.scopes)]),
      params.key,
    );
    return changed(services, params.key);
  },

  operatorSetCredentialRateLimit: ({ services }, { params, body }) => {
    credential(services.db, params.key);
    sql(services.db, 'UPDATE credentials SET rate_limit = ? WHERE key = ?').run(body.rate_limit, params.key);
    services.limiter.reset(params.key);
    return changed(services, params.key);
  },
};
