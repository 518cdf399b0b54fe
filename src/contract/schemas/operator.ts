import { z } from 'zod';
import { SCOPES } from '../scopes.js';
import { IsoDateTime, queryInt } from './common.js';

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

// ─── The local server's request log (docs/api.md, "Request log") ────────────────────────────

/** One status (`404`) or a class (`4xx`); the query takes a comma-separated list of them. */
const STATUS_FILTER_PATTERN = '^[1-5](?:xx|XX|\\d\\d)(?:,[1-5](?:xx|XX|\\d\\d))*$';
const REQUEST_LOG_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A request as the log lists it: what happened, never a secret. */
export const LoggedRequest = z.object({
  /** Order of answering in this server run, from 1; `after=SEQ` continues from one. */
  seq: z.number().int(),
  /** The answer's `X-Request-Id` and `request_id`. */
  request_id: z.string(),
  /** When the request arrived. */
  at: IsoDateTime,
  method: z.string(),
  /** Path with query string (at most 2,048 characters). */
  path: z.string(),
  status: z.number().int(),
  duration_ms: z.number(),
  /** The partner key sent (the key half is not a secret), `operator` for the operator API, else null. */
  credential_key: z.string().nullable(),
  /** `error.code` of an error answer. */
  error_code: z.string().nullable(),
});

/** Headers (minus credentials and cookies) and body (secrets masked, cut at 64 KiB) of one side. */
export const LoggedMessage = z.object({
  headers: z.record(z.string(), z.string()),
  /** JSON text; for a request, the body as parsed and re-serialised. Null when there was none. */
  body: z.string().nullable(),
  /** Size of the whole body in bytes. */
  body_size: z.number().int(),
  body_truncated: z.boolean(),
});

/** One request in full: what `GET /v1/operator/requests/{request_id}` answers. */
export const LoggedRequestDetail = LoggedRequest.extend({
  request: LoggedMessage,
  response: LoggedMessage,
  /**
   * Headers and bodies are not kept: dropped to keep the log within its memory budget (oldest
   * first), or never captured because more than 200 requests a second arrived.
   */
  detail_dropped: z.boolean(),
});

export const RequestLogQuery = z.strictObject({
  after: queryInt(z.number().int().min(0))
    .optional()
    .describe('only requests with a larger seq, oldest first (without it: the newest LIMIT requests)'),
  since: IsoDateTime.optional().describe('only requests that arrived at or after this time'),
  status: z
    .string()
    .regex(
      new RegExp(STATUS_FILTER_PATTERN),
      'must be statuses or classes such as 404 or 4xx, comma-separated',
    )
    .optional()
    .describe('only these statuses or classes, comma-separated: 4xx,5xx or 404,409'),
  path: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe('only paths starting with this, e.g. /v1/partner/orders'),
  method: z.enum(REQUEST_LOG_METHODS).optional().describe('only this HTTP method'),
  limit: queryInt(z.number().int().min(1).max(1000))
    .default(100)
    .describe('at most this many requests (1–1000)'),
  wait: queryInt(z.number().int().min(0).max(30))
    .default(0)
    .describe(
      'long poll: when nothing matches yet, wait up to this many seconds (0–30) for a request that does',
    ),
});

export const RequestLogPage = z.object({
  results: z.array(LoggedRequest),
  /** Pass as `after` to continue: the newest seq looked at (or the newest there is). */
  next_after: z.number().int(),
  /** Requests after `after` that the log no longer holds (it keeps the newest 5,000 by default). */
  missed: z.number().int(),
});
