import type { ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import { statusName } from '../../contract/order-statuses.js';
import { isIsoDateTime, relativeTime } from './format.js';
import type { RenderOptions } from './index.js';

// One order on a terminal (`orders get`, `orders patch`, `orders comment`, the operator's order
// commands): its fields as `key  value` lines, the customer on one line, the status history as
// a path, and the cart as a table with its modifiers under each line. JSON stays for --json.

type Row = Record<string, unknown>;

interface Modifier {
  title?: unknown;
  quantity?: unknown;
  unit_price?: unknown;
}

const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An order record: what `GET /orders/{id}` answers. */
export function isOrder(v: unknown): v is Row & { cart: unknown[] } {
  return isRow(v) && typeof v.id === 'number' && typeof v.status === 'number' && Array.isArray(v.cart);
}

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

function borderless(head: string[], c: ChalkInstance): Table.Table {
  return new Table({
    head: head.map((h) => c.bold(h)),
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '  ',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
}

export function renderOrder(
  out: { write(s: string): unknown },
  order: Row,
  o: RenderOptions,
  c: ChalkInstance,
): void {
  const fields: [string, string][] = [];
  for (const [k, v] of Object.entries(order)) {
    if (k === 'cart' || k === 'status_history') continue;
    if (k === 'status' && typeof v === 'number')
      fields.push([k, `${c.bold(statusName(v))} ${c.dim(`(${v})`)}`]);
    else if (k === 'customer' && isRow(v))
      fields.push([
        k,
        [v.name, v.phone].filter((x) => x !== undefined && x !== null && x !== '').join(' · '),
      ]);
    else if (isIsoDateTime(v)) fields.push([k, `${v} ${c.dim(`(${relativeTime(v, o.now)})`)}`]);
    else if (v === null || v === undefined) fields.push([k, c.dim('–')]);
    else if (typeof v === 'object') fields.push([k, JSON.stringify(v)]);
    else fields.push([k, String(v)]);
  }
  // The status path, one step a line: status, when, by whom.
  const history = (Array.isArray(order.status_history) ? order.status_history : []).filter(isRow);
  const names = history.map((h) => (typeof h.status === 'number' ? statusName(h.status) : text(h.status)));
  const nameWidth = Math.max(0, ...names.map((n) => n.length));
  history.forEach((h, i) => {
    const when = isIsoDateTime(h.at) ? relativeTime(h.at, o.now) : text(h.at);
    fields.push([
      i === 0 ? 'history' : '',
      `${names[i]!.padEnd(nameWidth)}  ${c.dim([when, text(h.by)].filter(Boolean).join(' · '))}`,
    ]);
  });
  const width = Math.max(0, ...fields.map(([k]) => k.length));
  for (const [k, v] of fields) out.write(`${c.dim(k.padEnd(width))}  ${v}\n`);

  const cart = (order.cart as unknown[]).filter(isRow);
  out.write(`\n${c.bold('Cart')} ${c.dim(`(${cart.length} line${cart.length === 1 ? '' : 's'})`)}\n`);
  if (cart.length === 0) {
    out.write(`  ${c.dim('empty')}\n`);
    return;
  }
  const t = borderless(['QTY', 'ITEM', 'SKU', 'UNIT PRICE', 'TOTAL'], c);
  for (const line of cart) {
    t.push([
      { content: text(line.quantity), hAlign: 'right' },
      text(line.title),
      c.dim(text(line.partner_item_id)),
      { content: text(line.unit_price), hAlign: 'right' },
      { content: text(line.total), hAlign: 'right' },
    ]);
    for (const m of (Array.isArray(line.modifiers) ? line.modifiers : []) as Modifier[]) {
      t.push([
        { content: c.dim(text(m.quantity)), hAlign: 'right' },
        c.dim(`+ ${text(m.title)}`),
        '',
        { content: c.dim(text(m.unit_price)), hAlign: 'right' },
        '',
      ]);
    }
  }
  out.write(`${t.toString()}\n`);
  const total = [order.total, order.currency].filter((x) => x !== undefined && x !== null).join(' ');
  if (total) out.write(`  ${c.bold('Total')} ${total}\n`);
}
