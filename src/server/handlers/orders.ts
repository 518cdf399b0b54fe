import { STATUS_ID } from '../../contract/order-statuses.js';
import { resolveRange } from '../domain/orders.js';
import { offsetOf } from '../domain/pagination.js';
import { ApiError } from '../errors.js';
import {
  operatorSetStatus,
  patchStatus,
  replaceCart,
  requireOrder,
  setComment,
  simulateOrder,
} from '../services/orders.js';
import { type HandlersFor, RawJson } from './context.js';

const parseMs = (s: string | undefined) => (s === undefined ? undefined : Date.parse(s));

export const orderHandlers: HandlersFor<
  | 'listOrders'
  | 'getOrder'
  | 'patchOrderStatus'
  | 'setOrderComment'
  | 'operatorCreateOrder'
  | 'operatorReplaceOrderCart'
  | 'operatorSetOrderStatus'
> = {
  listOrders: async ({ store, now }, { query }) => {
    const range = resolveRange(parseMs(query.from), parseMs(query.to), now);
    if (!range.ok) {
      throw new ApiError(range.code, range.message, [
        { path: ['query', range.code === 'request_invalid' ? 'from' : 'to'], message: range.message },
      ]);
    }
    const { total, records } = await store.orders.list(
      {
        fromMs: range.fromMs,
        toMs: range.toMs,
        branchId: query.branch_id,
        brandId: query.brand_id,
        statuses: query.status?.map((s) => STATUS_ID[s]),
      },
      query.size,
      offsetOf(query),
    );
    return new RawJson(
      `{"results":[${records.join(',')}],"page":${query.page},"size":${query.size},"total":${total}}`,
    );
  },

  getOrder: async ({ store }, { params }) => new RawJson((await requireOrder(store, params.id)).record),

  // The answer is the record the status event carries: its stored Idempotency-Key answer can
  // refer to the event instead of holding a third copy of the bytes.
  patchOrderStatus: async ({ store, now }, { body }) => {
    const { record, event } = await patchStatus(store, body, now);
    return new RawJson(record, event);
  },

  setOrderComment: async ({ store, now }, { params, body }) =>
    new RawJson(await setComment(store, params.id, body.comment, now)),

  operatorCreateOrder: ({ store, now }, { body }) =>
    store.write(async (tx) => new RawJson(await simulateOrder(tx, body, now))),

  operatorReplaceOrderCart: ({ store, now }, { params, body }) =>
    store.write(async (tx) => new RawJson(await replaceCart(tx, params.id, body, now))),

  operatorSetOrderStatus: ({ store, now }, { params, body }) =>
    store.write(async (tx) => new RawJson(await operatorSetStatus(tx, params.id, body, now))),
};
