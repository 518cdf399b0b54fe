import { z } from 'zod';
import { Id, paginated, tenantQuery } from '../schemas/common.js';
import {
  ListOrdersQuery,
  OperatorCreateOrderBody,
  OperatorReplaceCartBody,
  OperatorSetStatusBody,
  Order,
  PatchOrderStatusBody,
  SetOrderCommentBody,
} from '../schemas/orders.js';
import { defineOperation as op } from '../operation.js';

const IdParams = z.object({ id: Id });
const NoQuery = tenantQuery();

export const orderOperations = {
  listOrders: op({
    id: 'listOrders',
    method: 'GET',
    path: '/v1/partner/orders',
    auth: 'partner',
    scopes: ['orders:read'],
    summary:
      'List orders created between `from` and `to` (ISO 8601, inclusive; default the last 24 h; at most 90 days), newest first',
    query: ListOrdersQuery,
    errors: ['request_invalid_range'],
    response: paginated(Order),
    paginated: true,
    cli: {
      command: ['orders', 'list'],
      example: 'partner orders list --from 2024-05-01T00:00:00Z --to 2024-05-02T00:00:00Z --status ACCEPTED',
    },
  }),
  getOrder: op({
    id: 'getOrder',
    method: 'GET',
    path: '/v1/partner/orders/{id}',
    auth: 'partner',
    scopes: ['orders:read'],
    summary: 'Fetch one order (the same shape events carry)',
    params: IdParams,
    query: NoQuery,
    response: Order,
    cli: { command: ['orders', 'get'], example: 'partner orders get 1042 --json' },
  }),
  patchOrderStatus: op({
    id: 'patchOrderStatus',
    method: 'PATCH',
    path: '/v1/partner/orders/status',
    auth: 'partner',
    scopes: ['orders:update'],
    summary:
      'Move an order to ACCEPTED, READY, DELIVERED or CANCELLED (needs cancellation_reason); 409 state_invalid_transition otherwise',
    body: PatchOrderStatusBody,
    // The order is named by `id` in the body: not found is its own rule here.
    errors: ['resource_not_found', 'state_invalid_transition'],
    response: Order,
    cli: { command: ['orders', 'patch'], example: 'partner orders patch 1042 --status READY' },
  }),
  setOrderComment: op({
    id: 'setOrderComment',
    method: 'PATCH',
    path: '/v1/partner/orders/{id}/comment',
    auth: 'partner',
    scopes: ['orders:update'],
    summary: 'Set (or clear, with an empty comment) the internal comment of an order; emits no event',
    params: IdParams,
    body: SetOrderCommentBody,
    response: Order,
    cli: {
      command: ['orders', 'comment'],
      example: 'partner orders comment 1042 "Customer asked for extra chili"',
    },
  }),

  // Operator simulation of marketplace orders (docs/orders.md).
  operatorCreateOrder: op({
    id: 'operatorCreateOrder',
    method: 'POST',
    path: '/v1/operator/orders',
    auth: 'operator',
    scopes: [],
    summary:
      'Simulate a marketplace order landing at a branch (status PLACED); fires service.order.created.v2',
    body: OperatorCreateOrderBody,
    response: Order,
    status: 201,
    cli: {
      command: ['operator', 'orders', 'create'],
      example: 'partner operator orders create --business 1 --brand 1 --branch 1 --items 3',
    },
  }),
  operatorReplaceOrderCart: op({
    id: 'operatorReplaceOrderCart',
    method: 'PUT',
    path: '/v1/operator/orders/{id}/cart',
    auth: 'operator',
    scopes: [],
    summary:
      'Replace the cart of an open order (generated, or as given) and recompute totals; fires service.order.cart.updated',
    params: IdParams,
    body: OperatorReplaceCartBody,
    response: Order,
    cli: { command: ['operator', 'orders', 'cart'], example: 'partner operator orders cart 1042' },
  }),
  operatorSetOrderStatus: op({
    id: 'operatorSetOrderStatus',
    method: 'POST',
    path: '/v1/operator/orders/{id}/status',
    auth: 'operator',
    scopes: [],
    summary:
      'Set any status as the operator (bypasses the partner transition table); fires service.order.status.updated',
    params: IdParams,
    body: OperatorSetStatusBody,
    response: Order,
    cli: {
      command: ['operator', 'orders', 'status'],
      example: "partner operator orders status 1042 'DRIVER ASSIGNED'",
    },
  }),
} as const;
