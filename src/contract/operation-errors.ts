import { type ErrorCode, ERROR_CATALOGUE } from './errors.js';
import type { OperationSpec } from './operation.js';
import { pathParamNames } from './operation.js';
import { toJsonSchema } from './json-schema.js';

type Json = Record<string, unknown>;

/** Whether a body or query schema names other resources by id (which may not exist: 404). */
function namesIds(s: OperationSpec['body']): boolean {
  if (!s) return false;
  const props = (toJsonSchema(s, 'input').properties ?? {}) as Json;
  return Object.keys(props).some((k) => k !== 'business_id' && /_ids?$/.test(k));
}

/**
 * Every error code an operation can answer: what follows from its shape (credential, scopes,
 * query and body validation, Idempotency-Key, resources named by id) plus its own rules
 * (`op.errors`). The OpenAPI document lists these, and the conformance suite checks that every
 * error answer of the fuzz run is one of them.
 */
export function errorCodesOf(op: OperationSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (op.auth !== 'none') {
    codes.add('auth_missing');
    codes.add('auth_invalid_credential');
  }
  if (op.auth === 'partner') {
    codes.add('auth_revoked');
    if (op.scopes.length > 0) codes.add('auth_forbidden');
    // Per credential, and failed-authentication budgets.
    codes.add('rate_limit_exceeded');
    // Every partner operation validates its query (unknown keys are refused).
    codes.add('request_invalid');
  }
  if (op.params || op.query || op.body) codes.add('request_invalid');
  const write = op.method !== 'GET';
  if (write && op.auth === 'partner') {
    codes.add('request_missing_idempotency_key');
    codes.add('state_idempotency_conflict');
  }
  if (write) {
    // A write may carry a body (none is also read as {}): its size, type and encoding are checked.
    codes.add('request_too_large');
    codes.add('request_unsupported_media_type');
    codes.add('request_timeout');
  }
  if (pathParamNames(op.path).length > 0 || namesIds(op.body) || namesIds(op.query))
    codes.add('resource_not_found');
  for (const c of op.errors ?? []) codes.add(c);
  codes.add('internal_error');
  const order = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
  return [...codes].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}
