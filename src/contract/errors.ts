// The one catalogue of error codes: code → HTTP status and default message.
// docs/errors.md mirrors it (a test keeps them in step). Clients switch on `code`.
export const ERROR_CATALOGUE = {
  auth_missing: { status: 401, message: 'Authorization header is missing or malformed' },
  auth_invalid_credential: { status: 401, message: 'key or secret did not verify' },
  auth_revoked: { status: 403, message: 'credential is revoked' },
  auth_forbidden: { status: 403, message: 'credential is not authorized for the requested scope' },
  FORBIDDEN_SCOPE: {
    status: 403,
    message: 'alternative spelling of auth_forbidden; accepted by clients, never sent',
  },
  request_invalid: { status: 400, message: 'body or query parameters failed validation' },
  request_missing_idempotency_key: { status: 400, message: 'write endpoint called without Idempotency-Key' },
  request_invalid_range: { status: 400, message: 'date range longer than 90 days' },
  request_method_not_allowed: { status: 405, message: 'method not allowed on this path' },
  request_too_large: { status: 413, message: 'request body larger than 1 MiB' },
  request_unsupported_media_type: { status: 415, message: 'request body must be application/json' },
  request_timeout: { status: 408, message: 'the request headers or body did not arrive in time' },
  resource_not_found: { status: 404, message: 'resource does not exist' },
  resource_unmapped: { status: 404, message: 'unknown SKU (partner_item_id)' },
  state_invalid_transition: {
    status: 409,
    message: 'order status change not allowed from the current state',
  },
  state_idempotency_conflict: {
    status: 409,
    message: 'Idempotency-Key reused with a different request, or still in flight',
  },
  state_resource_in_use: { status: 409, message: 'resource is still referenced and cannot be deleted' },
  rate_limit_exceeded: { status: 429, message: 'per-credential rate limit exceeded' },
  internal_error: { status: 500, message: 'internal error' },
  downstream_unavailable: { status: 502, message: 'an internal dependency is unreachable' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}
