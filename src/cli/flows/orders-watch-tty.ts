import { emitKeypressEvents } from 'node:readline';
import { Chalk, type ChalkInstance } from 'chalk';
import { allowedFrom, toStatusCode } from '../../contract/order-rules.js';
import type { Io } from '../io.js';
import { shortAge } from '../output/format.js';
import { displayWidth, fitColumns, fitText, truncate } from '../output/display-width.js';
import { TERMINAL_STATUSES, type WatchOrder } from './orders-watch-cursor.js';

// The live view of `partner orders watch` on a terminal: a table of the orders seen in this
// session redrawn in the alternate screen (like top), the recent changes under it, a status line
// (backoff notices) and the keys. Key presses are read in raw mode and turned into actions that
// the watch loop runs between polls.

export type WatchAction =
  | { kind: 'status'; id: number; status: 'ACCEPTED' | 'READY' | 'DELIVERED' }
  | { kind: 'cancel'; id: number }
  | { kind: 'comment'; id: number }
  | { kind: 'menu'; id: number | undefined }
  | { kind: 'quit' };

/** Key hints from the fullest to the tersest: the first that fits the terminal is shown. */
const KEY_HINTS = [
  '↑/↓ select · a accept · r ready · d delivered · c cancel · m comment · enter menu · q quit',
  '↑↓ select  a accept  r ready  d delivered  c cancel  m comment  ⏎ menu  q quit',
  'a accept  r ready  d delivered  c cancel  m comment  q quit',
  'a/r/d/c/m act · ⏎ menu · q quit',
];

const ESC = '\u001b[';
/** Rows kept free under the table while a prompt is open (a select shows 7 choices + 2 lines). */
const PROMPT_ROWS = 10;

interface LiveViewOptions {
  io: Io;
  color: boolean;
  title: string;
  interactive: boolean;
  statusName: (id: number) => string;
  /** The terminal changed size: the owner redraws. */
  onResize?: () => void;
}

interface TableColumn {
  header: string;
  text(r: WatchOrder, now: number): string;
  /** Widest content it would like (header included), before the gap. */
  cap?: number;
  /** Squeezable down to this many cells. */
  min?: number;
  dropOrder?: number;
}

/**
 * The live view of the watch, laid out for the terminal's size on every draw: no line is wider
 * than the terminal (cells are cut with …, columns dropped when narrow), and the title, the
 * column header, the selected row and the key hints always stay on screen (the table scrolls).
 */
export class LiveView {
  readonly rows = new Map<number, WatchOrder>();
  selected: number | undefined;
  private recent: string[] = [];
  status = '';
  private started = false;
  private readonly c: ChalkInstance;
  lastPoll = '';
  /** First table row shown (the table scrolls to keep the selection visible). */
  private offset = 0;
  /** Screen row (1-based) right under the table, where prompts are drawn. */
  private promptRow = 1;
  private prompting = false;
  private readonly resized = () => {
    if (!this.prompting) this.o.onResize?.();
  };

  constructor(private readonly o: LiveViewOptions) {
    this.c = new Chalk({ level: o.color ? 1 : 0 });
  }

  /** The terminal's size (80×24 when the stream does not say). */
  size(): { cols: number; rows: number } {
    const out = this.o.io.stdout as { columns?: number; rows?: number };
    return {
      cols: out.columns && out.columns > 0 ? out.columns : 80,
      rows: out.rows && out.rows > 0 ? out.rows : 24,
    };
  }

  /** Remembers the latest read of an order (kept: the 200 most recently created). */
  upsert(order: WatchOrder): void {
    this.rows.set(order.id, order);
    if (this.rows.size > 200) {
      const oldest = [...this.rows.values()].sort((a, b) => a.created_at.localeCompare(b.created_at))[0];
      if (oldest) this.rows.delete(oldest.id);
    }
  }

  note(line: string): void {
    this.recent.push(line);
    if (this.recent.length > 6) this.recent.shift();
  }

  /** The orders of the table, newest first (the screen shows a window of them). */
  visible(matches: (status: number) => boolean): WatchOrder[] {
    return [...this.rows.values()]
      .filter((r) => matches(r.status))
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id);
  }

  move(delta: number, matches: (status: number) => boolean): void {
    const list = this.visible(matches);
    if (list.length === 0) return;
    const at = list.findIndex((r) => r.id === this.selected);
    const next = at < 0 ? 0 : Math.min(list.length - 1, Math.max(0, at + delta));
    this.selected = list[next]!.id;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    (this.o.io.stdout as Partial<NodeJS.EventEmitter>).on?.('resize', this.resized);
    // Alternate screen, cursor hidden: restored by stop().
    this.o.io.stdout.write(`${ESC}?1049h${ESC}?25l`);
  }

  stop(): void {
    if (!this.started) return;
    this.started = false;
    (this.o.io.stdout as Partial<NodeJS.EventEmitter>).off?.('resize', this.resized);
    this.o.io.stdout.write(`${ESC}?25h${ESC}?1049l`);
  }

  /**
   * Makes room for a prompt: the frame is redrawn with the table shortened so the title, the
   * header and the selected row stay visible above it, and the cursor waits under the table.
   * The next render() draws the full frame again.
   */
  beforePrompt(now: number, matches: (status: number) => boolean): void {
    if (!this.started) return;
    this.render(now, matches, PROMPT_ROWS);
    this.prompting = true;
    this.o.io.stdout.write(`${ESC}${this.promptRow};1H${ESC}J${ESC}?25h`);
  }

  private columns(list: WatchOrder[], now: number): { col: TableColumn; width: number }[] {
    const total = (r: WatchOrder) =>
      [r.total, r.currency].filter((x) => x !== undefined && x !== null).join(' ');
    const cols: TableColumn[] = [
      { header: 'ID', text: (r) => `#${r.id}` },
      { header: 'STATUS', text: (r) => this.o.statusName(r.status) },
      { header: 'BRAND', text: (r) => String(r.brand_id ?? ''), dropOrder: 2 },
      { header: 'BRANCH', text: (r) => String(r.branch_id ?? ''), dropOrder: 4 },
      { header: 'TOTAL', text: total, cap: 18, min: 10 },
      {
        header: 'CUSTOMER',
        text: (r) => (r.customer as { name?: string } | undefined)?.name ?? '',
        cap: 20,
        min: 8,
        dropOrder: 3,
      },
      { header: 'CREATED', text: (r, n) => shortAge(r.created_at, n), dropOrder: 1 },
      { header: 'UPDATED', text: (r, n) => shortAge(r.updated_at, n), dropOrder: 5 },
    ];
    const width = this.size().cols - 1 - 2; // the last cell of a line stays empty; 2 for the marker
    const wants = cols.map((col) => {
      let w = displayWidth(col.header);
      for (const r of list) w = Math.max(w, displayWidth(col.text(r, now)));
      w = Math.min(w, col.cap ?? w) + 1; // + the gap after it
      return {
        want: w,
        min: col.min !== undefined ? Math.min(w, col.min + 1) : w,
        ...(col.dropOrder !== undefined ? { dropOrder: col.dropOrder } : {}),
      };
    });
    const widths = fitColumns(wants, width);
    return cols.map((col, i) => ({ col, width: widths[i]! })).filter((x) => x.width > 0);
  }

  /** Draws the frame; `reserve` rows are left free at the bottom (for a prompt). */
  render(now: number, matches: (status: number) => boolean, reserve = 0): void {
    if (!this.started) return;
    this.prompting = false;
    const c = this.c;
    const { cols, rows } = this.size();
    const width = Math.max(10, cols - 1);
    const list = this.visible(matches);
    if (!list.some((r) => r.id === this.selected)) this.selected = list[0]?.id;

    const poll = this.lastPoll ? ` · ${this.lastPoll}` : '';
    const titleRoom = width - displayWidth(poll);
    const title =
      titleRoom >= 20
        ? `${c.bold(truncate(this.o.title, titleRoom))}${c.dim(poll)}`
        : c.bold(truncate(`${this.o.title}${poll}`, width));
    const hint = this.o.interactive
      ? (KEY_HINTS.find((h) => displayWidth(h) <= width) ?? truncate(KEY_HINTS.at(-1)!, width))
      : 'Ctrl-C stops';
    const status = this.status && reserve === 0 ? [c.yellow(truncate(this.status, width))] : [];
    const bottom = reserve > 0 ? 0 : 1 + status.length; // key hints and status

    // Rows: title, blank, header, table…, a line under the table, recent block, status, hints.
    let room = Math.max(1, rows - 4 - bottom - reserve);
    let recentLines = 0;
    if (reserve === 0 && this.recent.length > 0) {
      // What the table leaves (at least 2 lines), but never fewer than 3 table rows; the recent
      // block takes its lines plus a heading and a blank line.
      const tableNeed = Math.max(1, list.length);
      recentLines = Math.min(this.recent.length, Math.max(2, room - tableNeed - 2));
      recentLines = Math.max(0, Math.min(recentLines, room - 3 - 2));
      if (recentLines > 0) room -= recentLines + 2;
    }
    const tableRows = Math.max(1, room);
    const at = Math.max(
      0,
      list.findIndex((r) => r.id === this.selected),
    );
    if (at < this.offset) this.offset = at;
    if (at >= this.offset + tableRows) this.offset = at - tableRows + 1;
    this.offset = Math.max(0, Math.min(this.offset, Math.max(0, list.length - tableRows)));
    const shown = list.slice(this.offset, this.offset + tableRows);

    const columns = this.columns(shown, now);
    const lines: string[] = [title, ''];
    lines.push(c.bold(`  ${columns.map(({ col, width: w }) => `${fitText(col.header, w - 1)} `).join('')}`));
    if (list.length === 0)
      lines.push(c.dim(truncate('  (no orders yet: new ones appear here as they arrive)', width)));
    for (const r of shown) {
      const name = this.o.statusName(r.status);
      const colour = TERMINAL_STATUSES.has(r.status)
        ? name === 'DELIVERED'
          ? c.green
          : c.red
        : name === 'READY'
          ? c.cyan
          : c.yellow;
      const row = columns
        .map(({ col, width: w }) => {
          const cell = `${fitText(col.text(r, now), w - 1)} `;
          return col.header === 'STATUS' ? colour(cell) : cell;
        })
        .join('');
      const selected = r.id === this.selected;
      lines.push((selected ? c.cyan('> ') : '  ') + (selected ? c.inverse(row) : row));
    }
    const above = this.offset;
    const below = list.length - this.offset - shown.length;
    lines.push(
      above + below > 0
        ? c.dim(
            truncate(
              `  ${[above ? `↑ ${above} more` : '', below ? `↓ ${below} more` : ''].filter(Boolean).join(' · ')}`,
              width,
            ),
          )
        : '',
    );
    this.promptRow = lines.length + 1;
    if (recentLines > 0) {
      lines.push(c.bold('Recent'));
      for (const l of this.recent.slice(-recentLines)) lines.push(`  ${truncate(l, width - 2)}`);
      lines.push('');
    }
    if (reserve === 0) {
      lines.push(...status);
      lines.push(c.dim(hint));
    }
    // Home, then each line cleared and drawn, then everything below cleared. No newline after the
    // last line: on the bottom row it would scroll the screen and push the title off.
    const frame = lines.slice(0, rows).map((l) => `${ESC}2K${l}`);
    this.o.io.stdout.write(`${ESC}?25l${ESC}H${frame.join('\r\n')}${ESC}J`);
  }
}

/** Raw-mode key reading on stdin; `pause()` hands stdin to a prompt, `resume()` takes it back. */
export class KeyReader {
  private attached = false;
  private readonly stdin: NodeJS.ReadableStream & {
    isTTY?: boolean;
    setRawMode?: (raw: boolean) => unknown;
  };
  private readonly listener = (
    _s: string | undefined,
    key: { name?: string; ctrl?: boolean } | undefined,
  ) => {
    if (key) this.onKey(key);
  };

  constructor(
    io: Io,
    private readonly onKey: (key: { name?: string; ctrl?: boolean }) => void,
  ) {
    this.stdin = io.stdin as typeof this.stdin;
    emitKeypressEvents(this.stdin);
  }

  resume(): void {
    if (this.attached) return;
    this.attached = true;
    if (this.stdin.isTTY && typeof this.stdin.setRawMode === 'function') this.stdin.setRawMode(true);
    this.stdin.on('keypress', this.listener);
    this.stdin.resume();
  }

  pause(): void {
    if (!this.attached) return;
    this.attached = false;
    this.stdin.off('keypress', this.listener);
    if (this.stdin.isTTY && typeof this.stdin.setRawMode === 'function') this.stdin.setRawMode(false);
    this.stdin.pause();
  }
}

/** Key → action on the selected order (undefined: not an action key). */
export function actionForKey(
  key: { name?: string; ctrl?: boolean },
  selected: number | undefined,
): WatchAction | 'up' | 'down' | undefined {
  if ((key.ctrl && key.name === 'c') || key.name === 'q' || key.name === 'escape') return { kind: 'quit' };
  if (key.name === 'up' || key.name === 'k') return 'up';
  if (key.name === 'down' || key.name === 'j') return 'down';
  if (key.name === 'return' || key.name === 'enter') return { kind: 'menu', id: selected };
  if (selected === undefined) return undefined;
  switch (key.name) {
    case 'a':
      return { kind: 'status', id: selected, status: 'ACCEPTED' };
    case 'r':
      return { kind: 'status', id: selected, status: 'READY' };
    case 'd':
      return { kind: 'status', id: selected, status: 'DELIVERED' };
    case 'c':
      return { kind: 'cancel', id: selected };
    case 'm':
      return { kind: 'comment', id: selected };
    default:
      return undefined;
  }
}

/** The partner moves that make sense from a status, for the action menu: the contract's table. */
export function actionsFor(status: number): ('accept' | 'ready' | 'delivered' | 'cancel' | 'comment')[] {
  const code = toStatusCode(status);
  const moves = code ? allowedFrom(code) : [];
  const verb = { ACCEPTED: 'accept', READY: 'ready', DELIVERED: 'delivered', CANCELLED: 'cancel' } as const;
  return [...moves.map((m) => verb[m as keyof typeof verb]), 'comment'];
}
