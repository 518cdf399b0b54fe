import type { OperationSpec } from '../../contract/operation.js';
import { ApiError } from '../errors.js';
import type { RequestStage } from './stage.js';

// Stage: the credential's rate budget (taken by authenticate). Every partner answer carries
// RateLimit-Limit/-Remaining/-Reset; a request past the budget answers 429 with Retry-After.

const limit: RequestStage = (req, reply) => {
  const rate = req.rate!;
  reply.headers({
    'ratelimit-limit': rate.limit,
    'ratelimit-remaining': rate.remaining,
    'ratelimit-reset': rate.reset,
  });
  if (!rate.allowed) {
    throw new ApiError(
      'rate_limit_exceeded',
      `rate limit of ${rate.limit} request${rate.limit === 1 ? '' : 's'} per minute exceeded; retry in ${rate.retryAfter} s`,
      { retry_after: rate.retryAfter },
      { 'retry-after': String(rate.retryAfter) },
    );
  }
};

export function rateLimit(op: OperationSpec): RequestStage | undefined {
  return op.auth === 'partner' ? limit : undefined;
}
