import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The state of `partner orders watch` (docs/flows.md): which orders were already shown, at
// which `updated_at`, and where the created_at window ended. Kept in a cursor file per
// profile + filters so a restarted watch shows every order and every change exactly once.

/** DELIVERED, CANCELLED, VOID (docs/orders.md). */
export const TERMINAL_STATUSES: ReadonlySet<number> = new Set([5, 3, 11]);

interface TrackedOrder {
  status: number;
  updated_at: string;
  created_at: string;
}

export interface WatchFilters {
  branch_id: number | null;
  /** Status ids shown; null = every status. */
  status: number[] | null;
}

export interface CursorData {
  version: 1;
  base_url: string;
  key: string;
  filters: WatchFilters;
  /** Where this cursor began (`--since`, or the first start): no window reaches back before it. */
  start: string | null;
  /** End of the last completed poll's created_at window (client clock); null before the first. */
  window_end: string | null;
  /** Orders still worth remembering: every open one, and every one inside the overlap. */
  orders: Record<string, TrackedOrder>;
  saved_at?: string;
}

/** The order fields the watch relies on; the rest passes through to the output. */
export interface WatchOrder {
  id: number;
  status: number;
  updated_at: string;
  created_at: string;
  [field: string]: unknown;
}

export interface WatchChange {
  kind: 'new' | 'changed';
  order: WatchOrder;
  previous_status?: number;
}

function ms(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : t;
}

/** Whether `a` is a later `updated_at` than `b` (the server keeps it strictly increasing per order). */
function isLater(a: string, b: string): boolean {
  const ta = ms(a);
  const tb = ms(b);
  return ta !== tb ? ta > tb : a > b;
}

export function emptyCursor(base_url: string, key: string, filters: WatchFilters, start: number): CursorData {
  return {
    version: 1,
    base_url,
    key,
    filters,
    start: new Date(start).toISOString(),
    window_end: null,
    orders: {},
  };
}

/** The `from` of the next poll: the last window's end minus the overlap, never before the start. */
export function nextFrom(c: CursorData, overlapMs: number): number | undefined {
  if (c.window_end === null) return c.start !== null ? Date.parse(c.start) : undefined;
  const from = Date.parse(c.window_end) - overlapMs;
  const floor = c.start !== null ? Date.parse(c.start) : Number.NEGATIVE_INFINITY;
  return Math.max(from, floor);
}

/**
 * Turns what a poll read into changes to show, updating the state. An order is shown as `new`
 * the first time it is seen (when its status passes the filter), and as `changed` when its
 * `updated_at` moved forward — with `previous_status` when the status is what changed. An
 * order first seen outside the status filter is remembered silently and shown as `changed`
 * when it moves into the filter (and once more when it moves out of it).
 */
export class OrderTracker {
  constructor(
    readonly state: CursorData,
    private readonly statusFilter: ReadonlySet<number> | null,
  ) {}

  matches(status: number): boolean {
    return this.statusFilter === null || this.statusFilter.has(status);
  }

  apply(orders: readonly WatchOrder[]): WatchChange[] {
    const out: WatchChange[] = [];
    const byId = new Map<number, WatchOrder>();
    // The same order can come back twice in one poll (page shifts, a re-read): keep the latest.
    for (const o of orders) {
      const had = byId.get(o.id);
      if (!had || isLater(o.updated_at, had.updated_at)) byId.set(o.id, o);
    }
    // In the order things happened: by updated_at (a new order's is its creation).
    const sorted = [...byId.values()].sort((a, b) => ms(a.updated_at) - ms(b.updated_at) || a.id - b.id);
    for (const o of sorted) {
      const id = String(o.id);
      const prev = this.state.orders[id];
      const next: TrackedOrder = { status: o.status, updated_at: o.updated_at, created_at: o.created_at };
      if (!prev) {
        this.state.orders[id] = next;
        if (this.matches(o.status)) out.push({ kind: 'new', order: o });
        continue;
      }
      if (!isLater(o.updated_at, prev.updated_at)) continue; // unchanged, or an older read
      this.state.orders[id] = next;
      if (!this.matches(o.status) && !this.matches(prev.status)) continue;
      out.push(
        prev.status !== o.status
          ? { kind: 'changed', order: o, previous_status: prev.status }
          : { kind: 'changed', order: o },
      );
    }
    return out;
  }

  /** Open orders (non-terminal), oldest first: those a poll re-reads when the window no longer covers them. */
  openOrders(): { id: number; tracked: TrackedOrder }[] {
    return Object.entries(this.state.orders)
      .filter(([, t]) => !TERMINAL_STATUSES.has(t.status))
      .map(([id, tracked]) => ({ id: Number(id), tracked }))
      .sort((a, b) => ms(a.tracked.created_at) - ms(b.tracked.created_at) || a.id - b.id);
  }

  drop(id: number): void {
    delete this.state.orders[String(id)];
  }

  /**
   * Forgets final orders created before `keepFrom` (ms): the next window starts after them, so
   * they cannot come back. Open orders are kept whatever their age (they are re-read).
   */
  prune(keepFrom: number): void {
    for (const [id, t] of Object.entries(this.state.orders)) {
      if (TERMINAL_STATUSES.has(t.status) && ms(t.created_at) < keepFrom) delete this.state.orders[id];
    }
  }
}

/** `<configDir>/watch/<profile>-<hash of base URL, key and filters>.json`. */
export function cursorPath(
  configDir: string,
  o: { profile: string | undefined; baseUrl: string; key: string; filters: WatchFilters },
): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([o.baseUrl, o.key, o.filters.branch_id, o.filters.status]))
    .digest('hex')
    .slice(0, 16);
  const name = (o.profile ?? 'env').replace(/[^A-Za-z0-9._-]/g, '_');
  return join(configDir, 'watch', `${name}-${hash}.json`);
}

/** The stored cursor, or undefined when there is none (or it belongs to something else). */
export function readCursor(
  file: string,
  expect: { base_url: string; key: string },
): { cursor?: CursorData; problem?: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { problem: `cannot read ${file}: ${(err as Error).message}` };
  }
  try {
    const c = JSON.parse(text) as CursorData;
    if (
      c?.version !== 1 ||
      typeof c.orders !== 'object' ||
      c.orders === null ||
      (c.window_end !== null && typeof c.window_end !== 'string') ||
      (c.start !== null && c.start !== undefined && typeof c.start !== 'string')
    )
      return { problem: `${file} is not a watch cursor; starting afresh` };
    if (c.base_url !== expect.base_url || c.key !== expect.key)
      return { problem: `${file} belongs to another server or key; starting afresh` };
    return { cursor: { ...c, start: c.start ?? null } };
  } catch (err) {
    return { problem: `${file} is not valid JSON (${(err as Error).message}); starting afresh` };
  }
}

/** Writes the cursor atomically (temp file + rename), owner-only. */
export function writeCursor(file: string, c: CursorData, now: number): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ ...c, saved_at: new Date(now).toISOString() }, null, 2)}\n`, {
    mode: 0o600,
  });
  renameSync(tmp, file);
}
