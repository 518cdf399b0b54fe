import type { HandlerTable } from './context.js';
import { brandHandlers } from './brands.js';
import { catalogHandlers } from './catalog.js';
import { menuStockHandlers } from './menu-stock.js';
import { menuHandlers } from './menus.js';
import { operatorHandlers } from './operator.js';
import { orderHandlers } from './orders.js';
import { requestLogHandlers } from './request-log.js';
import { webhookHandlers } from './webhooks.js';
import { webhookDeliveryHandlers } from './webhook-deliveries.js';

/** Every operation of the contract table has exactly one handler here (the compiler checks it). */
export const HANDLERS: HandlerTable = {
  ...brandHandlers,
  ...catalogHandlers,
  ...menuHandlers,
  ...menuStockHandlers,
  ...operatorHandlers,
  ...orderHandlers,
  ...requestLogHandlers,
  ...webhookHandlers,
  ...webhookDeliveryHandlers,
};
