import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import { statusName } from '../../contract/order-statuses.js';
import { cellText, isIsoDateTime, relativeTime, shortAgo } from './format.js';
import { displayWidth } from './display-width.js';
import type { Out, RenderOptions } from './index.js';
import { isMenuTree, renderMenuTree } from './menu-tree.js';
import { isOrder, renderOrder } from './order-view.js';
import { isLoggedRequestDetail, renderLoggedRequest } from './request-view.js';
import { type Column, type Row, VIEWS, type View } from './views.js';

// Human output of a payload. TTY: tables with colours, relative times and status names.
// Not a TTY: tab-separated rows without headers or decoration (gh's convention), raw values,
// so `cut`/`awk` work.

const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPage = (v: unknown): v is { results: unknown[]; page: number; size: number; total: number } =>
  isRecord(v) && Array.isArray(v.results) && typeof v.page === 'number' && typeof v.total === 'number';
const isScalarish = (v: unknown) =>
  v === null ||
  typeof v !== 'object' ||
  (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object'));

const PREFERRED = ['id', 'key', 'title', 'name', 'status', 'code', 'type'];

/** Columns for rows without a view: scalar fields of the first rows, the telling ones first, at most 8. */
function genericColumns(rows: Row[]): Column[] {
  const keys: string[] = [];
  for (const r of rows.slice(0, 20)) {
    for (const [k, v] of Object.entries(r)) if (!keys.includes(k) && isScalarish(v)) keys.push(k);
  }
  keys.sort((a, b) => {
    const ia = PREFERRED.indexOf(a);
    const ib = PREFERRED.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  return keys.slice(0, 8).map((k) => ({
    header: k,
    get: (r: Row) => r[k],
    ...(k.endsWith('_at') ? { kind: 'time' as const } : k === 'status' ? { kind: 'status' as const } : {}),
  }));
}

function paint(
  c: ChalkInstance,
  v: unknown,
  kind: Column['kind'],
  o: RenderOptions,
  compactTimes = false,
): string {
  if (kind === 'status' && typeof v === 'number') {
    const name = statusName(v);
    if (!o.tty) return name;
    const colour = /CANCELLED|VOID/.test(name)
      ? c.red
      : name === 'DELIVERED'
        ? c.green
        : name === 'READY'
          ? c.cyan
          : c.yellow;
    return colour(name);
  }
  if (kind === 'time' && isIsoDateTime(v) && o.tty)
    return compactTimes ? shortAgo(v, o.now) : relativeTime(v, o.now);
  if (o.tty && typeof v === 'boolean') return v ? c.green('yes') : c.dim('no');
  return cellText(v, o.tty ? 48 : Number.POSITIVE_INFINITY);
}

function table(c: ChalkInstance, head: string[], colWidths?: number[]): Table.Table {
  // Borderless, gh-like; with colWidths, longer cells are cut with … (colour codes kept whole).
  return new Table({
    head: head.map((h) => c.bold(h.toUpperCase())),
    ...(colWidths ? { colWidths } : {}),
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
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

function renderRows(out: Out, rows: Row[], columns: Column[], o: RenderOptions, c: ChalkInstance): void {
  if (!o.tty) {
    for (const r of rows)
      out.write(`${columns.map((col) => paint(c, col.get(r), col.kind, o)).join('\t')}\n`);
    return;
  }
  if (rows.length === 0) {
    out.write(`${c.dim('No results')}\n`);
    return;
  }
  const paintAll = (compact: boolean) =>
    rows.map((r) => columns.map((col) => paint(c, col.get(r), col.kind, o, compact)));
  let cells = paintAll(false);
  let widths = o.width ? fitTable(columns, cells, o.width) : undefined;
  // Still too wide once the free text has given way: times take their short form (`5m ago`)
  // rather than being cut, so they keep telling the time.
  if (o.width && widths && tableWidth(widths) > o.width && columns.some((col) => col.kind === 'time')) {
    cells = paintAll(true);
    widths = fitTable(columns, cells, o.width);
  }
  const t = table(
    c,
    columns.map((col) => col.header),
    widths,
  );
  for (const r of cells) t.push(r);
  out.write(`${t.toString()}\n`);
}

const tableWidth = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);

/**
 * Column widths that keep a table within `width` cells: the column that wanted the most gives
 * cells first (its cells then end in …), down to 8 cells or its header, then the next. Coloured columns
 * (statuses, yes/no), times, columns marked `keep` (ids, totals) and columns already narrow keep
 * their width. Undefined when it fits.
 */
function fitTable(columns: Column[], cells: string[][], width: number): number[] | undefined {
  const wants = columns.map((col, i) =>
    Math.max(displayWidth(col.header), ...cells.map((r) => displayWidth(r[i] ?? ''))),
  );
  const gaps = 2 * (columns.length - 1);
  let over = wants.reduce((a, b) => a + b, 0) + gaps - width;
  if (over <= 0) return undefined;
  const mins = columns.map((col, i) =>
    col.kind === 'status' ||
    col.kind === 'time' ||
    col.keep ||
    cells.some((r) => (r[i] ?? '').includes('\u001b'))
      ? wants[i]!
      : Math.min(wants[i]!, Math.max(displayWidth(col.header), 8)),
  );
  const w = [...wants];
  while (over > 0) {
    let pick = -1;
    // The column that wanted the most gives first (long free text), down to its minimum.
    for (let i = 0; i < w.length; i++)
      if (w[i]! > mins[i]! && (pick < 0 || wants[i]! > wants[pick]!)) pick = i;
    if (pick < 0) break;
    w[pick]!--;
    over--;
  }
  return w;
}

function renderRecord(out: Out, rec: Row, o: RenderOptions, c: ChalkInstance): void {
  const entries = Object.entries(rec);
  if (!o.tty) {
    for (const [k, v] of entries)
      out.write(`${k}\t${paint(c, v, k === 'status' ? 'status' : undefined, o)}\n`);
    return;
  }
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  for (const [k, v] of entries) {
    let text: string;
    if (k === 'status' && typeof v === 'number') text = `${paint(c, v, 'status', o)} ${c.dim(`(${v})`)}`;
    else if (isIsoDateTime(v)) text = `${v} ${c.dim(`(${relativeTime(v, o.now)})`)}`;
    else text = paint(c, v, undefined, { ...o, tty: true });
    if (!isScalarish(v)) text = cellText(v, 100);
    out.write(`${c.dim(k.padEnd(width))}  ${text}\n`);
  }
}

/** Writes `data` for a person (TTY) or a pipe (TSV). */
export function renderHuman(out: Out, data: unknown, o: RenderOptions): void {
  const c = new Chalk({ level: o.color ? 1 : 0 });
  if (o.opId === 'getMenu' && isMenuTree(data)) {
    renderMenuTree(out, data, o, c);
    return;
  }
  if (o.opId === 'operatorGetRequest' && isLoggedRequestDetail(data)) {
    renderLoggedRequest(out, data, o, c);
    return;
  }
  const view: View | undefined = o.opId ? VIEWS[o.opId] : undefined;
  const page = isPage(data) ? data : undefined;
  const list = page ? page.results : data;
  const rows =
    view?.rows?.(data) ?? (Array.isArray(list) && list.every(isRecord) ? (list as Row[]) : undefined);
  if (rows) {
    renderRows(out, rows, view?.columns ?? genericColumns(rows), o, c);
    if (page && o.tty && rows.length > 0) {
      const first = (page.page - 1) * page.size + 1;
      const last = first + page.results.length - 1;
      const more = last < page.total ? ` · --page ${page.page + 1} for more, --all for everything` : '';
      out.write(`${c.dim(`${first}–${last} of ${page.total}${more}`)}\n`);
    }
    return;
  }
  if (Array.isArray(data)) {
    for (const v of data) out.write(`${cellText(v, Number.POSITIVE_INFINITY)}\n`);
    return;
  }
  if (o.tty && isOrder(data)) {
    renderOrder(out, data, o, c);
    return;
  }
  if (isRecord(data)) {
    renderRecord(out, data, o, c);
    return;
  }
  out.write(`${cellText(data, Number.POSITIVE_INFINITY)}\n`);
}
