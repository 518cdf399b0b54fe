export * from './client.js';
export * from './errors.js';
export { Pacer, parseRateLimitHeaders, type RateLimitHeaders } from './pacer.js';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
