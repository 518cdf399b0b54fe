import {
  createBusiness,
  credentialOf,
  credentialOut,
  issueCredential,
  rotateCredential,
} from '../services/credentials.js';
import type { Tx } from '../store/store.js';
import type { HandlersFor, OperatorCtx } from './context.js';

/** Runs an operator change to a credential, then forgets its cached verifications. */
async function change(ctx: OperatorCtx, key: string, fn: (tx: Tx) => Promise<void>) {
  const row = await ctx.store.write(async (tx) => {
    await credentialOf(tx, key);
    await fn(tx);
    return credentialOf(tx, key);
  });
  ctx.services.auth.invalidate(key);
  return credentialOut(row);
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
  operatorListBusinesses: ({ store }) => store.read((tx) => tx.businesses.list()),

  operatorCreateBusiness: ({ store, now }, { body }) =>
    store.write((tx) =>
      createBusiness(tx, { title: body.title, address: body.address ?? '', logo: body.logo ?? '' }, now),
    ),

  operatorListCredentials: async ({ store }, { query }) =>
    (await store.read((tx) => tx.credentials.list(query.business_id))).map(credentialOut),

  operatorCreateCredential: ({ services }, { body }) =>
    issueCredential(services.store, services.secrets, body, services.now),

  operatorRotateCredential: async ({ services }, { params, body }) => {
    const out = await rotateCredential(
      services.store,
      services.secrets,
      params.key,
      body.grace_seconds,
      services.now,
    );
    services.auth.invalidate(params.key);
    return out;
  },

  operatorRevokeCredential: (ctx, { params }) =>
    change(ctx, params.key, (tx) => tx.credentials.revoke(params.key, ctx.now)),

  operatorSetCredentialScopes: (ctx, { params, body }) =>
    change(ctx, params.key, (tx) => tx.credentials.setScopes(params.key, body.scopes)),

  operatorSetCredentialRateLimit: async (ctx, { params, body }) => {
    const out = await change(ctx, params.key, (tx) =>
      tx.credentials.setRateLimit(params.key, body.rate_limit),
    );
    await ctx.store.rateLimits.reset(params.key);
    return out;
  },
};
