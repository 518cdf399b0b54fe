import { ApiError } from '../errors.js';
import type { HandlersFor } from './context.js';

// The operator's view of the request log (src/server/services/request-log.ts): a page of requests,
// optionally long-polled, and one request in full.

export const requestLogHandlers: HandlersFor<'operatorListRequests' | 'operatorGetRequest'> = {
  operatorListRequests: async ({ services }, { query }) => {
    const log = services.requestLog;
    if (!log) return { results: [], next_after: 0, missed: 0 };
    const page = log.list(query);
    if (page.results.length > 0 || query.wait === 0) return page;
    // Nothing yet: wait (bounded) for the first request that matches, then answer what came.
    await log.waitFor({ ...query, after: page.next_after }, query.wait * 1000);
    const more = log.list({ ...query, after: page.next_after });
    return { ...more, missed: page.missed + more.missed };
  },

  operatorGetRequest: ({ services }, { params }) => {
    const entry = services.requestLog?.get(params.request_id);
    if (!entry)
      throw new ApiError(
        'resource_not_found',
        `no request ${params.request_id} in the log (it keeps the newest ${services.requestLog?.limits.maxEntries ?? 0} requests of this server run)`,
      );
    return entry;
  },
};
