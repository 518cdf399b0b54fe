// Which answers are retried and how long to wait: 429 honours Retry-After, 502 backs off
// exponentially with jitter. Both are bounded in attempts and in the longest single wait.

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited out: the error is returned instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 502;
}

/** `Retry-After` as seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Full-jitter exponential backoff for retry number `retry` (1-based). */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  // Half fixed, half random: spreads clients out while guaranteeing some pause.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * How long to wait before retry number `retry`, or undefined to stop retrying.
 */
export function retryDelay(
  retry: number,
  status: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  if (!isRetryableStatus(status) || retry > policy.maxRetries) return undefined;
  if (retryAfterMs !== undefined) return retryAfterMs > policy.maxRetryAfterMs ? undefined : retryAfterMs;
  return backoffDelay(retry, policy, random);
}
