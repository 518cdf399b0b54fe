import { ApiError } from '../../errors.js';

// A database that is away (restarting, failing over, refusing connections) is not a bug of the
// server: requests meanwhile are answered 502 downstream_unavailable with Retry-After, and the
// store serves again as soon as new connections succeed (docs/deploy.md, "Database restart").

/** SQLSTATEs of a server going or not yet there: admin/crash shutdown, cannot connect now, too many connections. */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Socket failures on the way to it. */
const ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres's own words for a connection lost under a client (it gives them no code). */
const LOST =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Connection ended)|timeout exceeded when trying to connect/;

/** Whether `err` says the database cannot be reached now (rather than that a statement failed). */
function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    // Class 08: connection exception.
    if (SQLSTATES.has(code) || code.startsWith('08') || ERRNOS.has(code)) return true;
  }
  return LOST.test(err.message);
}

/** Seconds a client is told to wait: a restart takes about that; the store reconnects by itself. */
const RETRY_AFTER_S = 1;

/** `err` as the API answers it: 502 downstream_unavailable with Retry-After when the database is away. */
export function asUnavailable(err: unknown): unknown {
  if (!isUnavailable(err)) return err;
  return new ApiError(
    'downstream_unavailable',
    `the database cannot be reached (${(err as Error).message}); retry in ${RETRY_AFTER_S} s`,
    { retry_after: RETRY_AFTER_S },
    { 'retry-after': String(RETRY_AFTER_S) },
  );
}
