import { ERROR_CATALOGUE, type ErrorCode } from '../contract/errors.js';

export interface FieldIssue {
  path: (string | number)[];
  message: string;
}

/** A client-facing failure: becomes `{request_id, error:{code, message, details}}` with the catalogue status. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.status = ERROR_CATALOGUE[code].status;
  }
}

export function notFound(what: string, id?: string | number): ApiError {
  return new ApiError(
    'resource_not_found',
    id === undefined ? `${what} not found` : `${what} ${id} not found`,
  );
}

export function invalid(issues: FieldIssue[], message = 'request failed validation'): ApiError {
  return new ApiError('request_invalid', message, issues);
}

export function invalidField(path: (string | number)[], message: string): ApiError {
  return invalid([{ path, message }], `${path.join('.')}: ${message}`);
}
