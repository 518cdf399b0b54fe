import { z } from 'zod';
import { SCOPES } from '../scopes.js';
import { IsoDateTime } from './common.js';

export const Business = z.object({
  id: z.number().int(),
  title: z.string(),
  address: z.string(),
  logo: z.string(),
  created_at: IsoDateTime,
});
export const CreateBusinessBody = z.strictObject({
  title: z.string().trim().min(1).max(200),
  address: z.string().max(500).optional(),
  logo: z.string().max(500).optional(),
});

const ScopeList = z.array(z.enum(SCOPES)).min(1);
const RateLimit = z.number().int().min(1).max(1_000_000);

export const Credential = z.object({
  key: z.string(),
  business_id: z.number().int(),
  scopes: z.array(z.string()),
  rate_limit: z.number().int(),
  revoked_at: IsoDateTime.nullable(),
  rotated_at: IsoDateTime.nullable(),
  created_at: IsoDateTime,
});
/** The only payload that ever carries a plaintext secret: shown once at issuance or rotation. */
export const IssuedCredential = Credential.extend({ secret: z.string() });

export const CreateCredentialBody = z.strictObject({
  business_id: z.number().int().positive(),
  scopes: ScopeList,
  rate_limit: RateLimit.optional(),
});
export const RotateCredentialBody = z.strictObject({
  grace_seconds: z.number().int().min(0).max(86_400).optional(),
});
export const SetScopesBody = z.strictObject({ scopes: ScopeList });
export const SetRateLimitBody = z.strictObject({ rate_limit: RateLimit });
