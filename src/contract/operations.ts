import type { OperationSpec } from './operation.js';
import { brandOperations } from './ops/brands.js';
import { catalogOperations } from './ops/catalog.js';
import { operatorOperations } from './ops/operator.js';

/** The one table of operations. Later resources add their `ops/*.ts` group here. */
export const OPERATIONS = {
  ...brandOperations,
  ...catalogOperations,
  ...operatorOperations,
} as const;

export type OperationId = keyof typeof OPERATIONS;
export type Operations = typeof OPERATIONS;

export const OPERATION_LIST: readonly OperationSpec[] = Object.values(OPERATIONS);
