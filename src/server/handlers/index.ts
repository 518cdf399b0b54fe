import type { HandlerTable } from './context.js';
import { brandHandlers } from './brands.js';
import { catalogHandlers } from './catalog.js';
import { menuStockHandlers } from './menu-stock.js';
import { menuHandlers } from './menus.js';
import { operatorHandlers } from './operator.js';
import { orderHandlers } from './orders.js';
import { webhookHandlers } from './webhooks.js';

/** Every operation of the contract table has exactly one handler here (the compiler checks it). */
export const HANDLERS: HandlerTable = {
  ...brandHandlers,
  ...catalogHandlers,
  ...menuHandlers,
  ...menuStockHandlers,
  ...operatorHandlers,
  ...orderHandlers,
  ...webhookHandlers,
};
