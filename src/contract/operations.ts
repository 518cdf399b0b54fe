import type { OperationSpec } from './operation.js';
import { brandOperations } from './ops/brands.js';
import { catalogOperations } from './ops/catalog.js';
import { menuOperations } from './ops/menus.js';
import { operatorOperations } from './ops/operator.js';
import { orderOperations } from './ops/orders.js';
import { webhookOperations } from './ops/webhooks.js';

/** The one table of operations. Later resources add their `ops/*.ts` group here. */
export const OPERATIONS = {
  ...brandOperations,
  ...catalogOperations,
  ...menuOperations,
  ...operatorOperations,
  ...orderOperations,
  ...webhookOperations,
} as const;

export type OperationId = keyof typeof OPERATIONS;
export type Operations = typeof OPERATIONS;

export const OPERATION_LIST: readonly OperationSpec[] = Object.values(OPERATIONS);
