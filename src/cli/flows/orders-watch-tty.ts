import { emitKeypressEvents } from 'node:readline';
import { Chalk, type ChalkInstance } from 'chalk';
import type { Io } from '../io.js';
import { relativeTime } from '../output/format.js';
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

export const KEY_HELP =
  '↑/↓ select · a accept · r ready · d delivered · c cancel · m comment · enter menu · q quit';

const ESC = '\u001b[';

function pad(text: string, width: number): string {
  return text.length >= width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

export interface LiveViewOptions {
  io: Io;
  color: boolean;
  title: string;
  interactive: boolean;
  statusName: (id: number) => string;
}

export class LiveView {
  readonly rows = new Map<number, WatchOrder>();
  selected: number | undefined;
  private recent: string[] = [];
  status = '';
  private started = false;
  private readonly c: ChalkInstance;
  lastPoll = '';

  constructor(private readonly o: LiveViewOptions) {
    this.c = new Chalk({ level: o.color ? 1 : 0 });
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

  /** The orders in the table: newest first, at most what fits the terminal. */
  visible(matches: (status: number) => boolean): WatchOrder[] {
    const rowsOnScreen = (this.o.io.stdout as { rows?: number }).rows;
    const max = rowsOnScreen ? Math.max(5, rowsOnScreen - 16) : 15;
    return [...this.rows.values()]
      .filter((r) => matches(r.status))
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id)
      .slice(0, max);
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
    // Alternate screen, cursor hidden: restored by stop().
    this.o.io.stdout.write(`${ESC}?1049h${ESC}?25l`);
  }

  stop(): void {
    if (!this.started) return;
    this.started = false;
    this.o.io.stdout.write(`${ESC}?25h${ESC}?1049l`);
  }

  /** Shows the cursor for a prompt drawn under the frame; hidden again on the next render. */
  beforePrompt(): void {
    this.o.io.stdout.write(`${ESC}?25h`);
  }

  render(now: number, matches: (status: number) => boolean): void {
    if (!this.started) return;
    const c = this.c;
    const list = this.visible(matches);
    if (!list.some((r) => r.id === this.selected)) this.selected = list[0]?.id;
    const lines: string[] = [];
    lines.push(`${c.bold(this.o.title)}${this.lastPoll ? c.dim(` · ${this.lastPoll}`) : ''}`);
    lines.push('');
    const head = `  ${pad('ID', 8)}${pad('STATUS', 17)}${pad('BRAND', 7)}${pad('BRANCH', 8)}${pad('TOTAL', 18)}${pad('CUSTOMER', 20)}${pad('CREATED', 16)}UPDATED`;
    lines.push(c.bold(head));
    if (list.length === 0) lines.push(c.dim('  (no orders yet: new ones appear here as they arrive)'));
    for (const r of list) {
      const name = this.o.statusName(r.status);
      const colour = TERMINAL_STATUSES.has(r.status)
        ? name === 'DELIVERED'
          ? c.green
          : c.red
        : name === 'READY'
          ? c.cyan
          : c.yellow;
      const total = [r.total, r.currency].filter((x) => x !== undefined && x !== null).join(' ');
      const customer = (r.customer as { name?: string } | undefined)?.name ?? '';
      const mark = r.id === this.selected ? c.cyan('> ') : '  ';
      const row =
        `${pad(`#${r.id}`, 8)}${colour(pad(name, 17))}${pad(String(r.brand_id ?? ''), 7)}` +
        `${pad(String(r.branch_id ?? ''), 8)}${pad(total, 18)}${pad(customer, 20)}` +
        `${pad(relativeTime(r.created_at, now), 16)}${relativeTime(r.updated_at, now)}`;
      lines.push(mark + (r.id === this.selected ? c.inverse(row) : row));
    }
    lines.push('');
    if (this.recent.length > 0) {
      lines.push(c.bold('Recent'));
      for (const l of this.recent) lines.push(`  ${l}`);
      lines.push('');
    }
    if (this.status) lines.push(c.yellow(this.status));
    if (this.o.interactive) lines.push(c.dim(KEY_HELP));
    else lines.push(c.dim('Ctrl-C stops'));
    // Home, each line cleared to its end, then everything below cleared.
    this.o.io.stdout.write(`${ESC}?25l${ESC}H${lines.map((l) => `${l}${ESC}K`).join('\n')}\n${ESC}J`);
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

/** The partner moves that make sense from a status (docs/orders.md), for the action menu. */
export function actionsFor(status: number): ('accept' | 'ready' | 'delivered' | 'cancel' | 'comment')[] {
  const out: ('accept' | 'ready' | 'delivered' | 'cancel' | 'comment')[] = [];
  // ACCEPTED ← PLACED, PENDING, SCHEDULED · READY ← ACCEPTED · DELIVERED ← READY, PICKED UP
  if ([1, 10, 6].includes(status)) out.push('accept');
  if (status === 2) out.push('ready');
  if ([4, 9].includes(status)) out.push('delivered');
  if (!TERMINAL_STATUSES.has(status)) out.push('cancel');
  out.push('comment');
  return out;
}
