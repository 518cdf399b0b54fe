import { Chalk } from 'chalk';
import { statusName } from '../../contract/order-statuses.js';
import type { ForwardResult, ReceivedEvent } from './receiver.js';

/** `--json`: one object per line (docs/webhooks.md); the raw bytes stay out, `body` is the parsed JSON. */
export function jsonLine(e: ReceivedEvent): string {
  const { event_id, event_type, attempt, verified, duplicate, stale, received_at, body } = e;
  return `${JSON.stringify({ event_id, event_type, attempt, verified, duplicate, stale, received_at, body })}\n`;
}

interface Line {
  item_id?: unknown;
  partner_item_id?: unknown;
  title?: unknown;
  quantity?: unknown;
}

const lineKey = (l: Line) => String(l.partner_item_id ?? l.item_id ?? l.title);

/** A cart change as `+ 1 × Es Teh`, `- 2 × Nasi Goreng`, `~ Kopi Susu 1 → 2`; empty when equal. */
export function cartDiff(before: unknown, after: unknown): string[] {
  const a = new Map((Array.isArray(before) ? (before as Line[]) : []).map((l) => [lineKey(l), l]));
  const b = new Map((Array.isArray(after) ? (after as Line[]) : []).map((l) => [lineKey(l), l]));
  const out: string[] = [];
  for (const [k, l] of b) {
    const prev = a.get(k);
    if (!prev) out.push(`+ ${String(l.quantity)} × ${String(l.title)}`);
    else if (prev.quantity !== l.quantity)
      out.push(`~ ${String(l.title)} ${String(prev.quantity)} → ${String(l.quantity)}`);
  }
  for (const [k, l] of a) if (!b.has(k)) out.push(`- ${String(l.quantity)} × ${String(l.title)}`);
  return out;
}

/** The human form: one `-->` line per event and one indented line per order. */
export function prettyEvent(e: ReceivedEvent, color: boolean): string {
  const c = new Chalk({ level: color ? 1 : 0 });
  const body = (e.body ?? {}) as {
    brand_id?: unknown;
    branch_id?: unknown;
    orders?: Record<string, unknown>[];
  };
  const head = `${c.cyan('-->')} ${c.bold(e.event_type)} ${e.event_id} ${c.dim(`attempt ${e.attempt}`)} brand ${String(body.brand_id)}/branch ${String(body.branch_id)}`;
  // A repeated event id (a retry, an operator replay) was already shown: marked, not shown again,
  // so its cart is not reported as new a second time.
  if (e.duplicate)
    return `${head} ${c.yellow('duplicate: this event id was already received; acknowledged, not shown again')}\n`;
  const lines = [
    e.stale ? `${head} ${c.yellow('stale: older than an update already seen, not shown as a change')}` : head,
  ];
  if (e.stale) return `${lines.join('\n')}\n`;
  for (const o of Array.isArray(body.orders) ? body.orders : []) {
    const status = typeof o.status === 'number' ? `${statusName(o.status)} (${o.status})` : String(o.status);
    const money = o.total !== undefined ? ` · ${String(o.total)} ${String(o.currency ?? '')}`.trimEnd() : '';
    const items = Array.isArray(o.cart) ? ` · ${o.cart.length} line${o.cart.length === 1 ? '' : 's'}` : '';
    lines.push(`    order #${String(o.id)} ${c.green(status)}${money}${items}`);
    if (e.event_type === 'service.order.cart.updated') {
      const diff = cartDiff(e.previousCarts?.[String(o.id)], o.cart);
      const prevKnown = e.previousCarts?.[String(o.id)] !== undefined;
      if (!prevKnown) lines.push(c.dim('      cart (first seen here):'));
      for (const d of prevKnown ? diff : cartDiff([], o.cart)) lines.push(`      ${d}`);
      if (prevKnown && diff.length === 0) lines.push(c.dim('      cart unchanged'));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** @public listen-run.ts reaches it through a lazy import() that knip does not follow. */
export function prettyForward(r: ForwardResult, color: boolean): string {
  const c = new Chalk({ level: color ? 1 : 0 });
  const ms = `${Math.round(r.ms)} ms`;
  if (r.error) return `${c.red('<--')} ${c.red(`error: ${r.error}`)} POST ${r.url} (${ms})\n`;
  const ok = r.status !== undefined && r.status >= 200 && r.status < 300;
  return `${ok ? c.green('<--') : c.red('<--')} ${String(r.status)} POST ${r.url} (${ms})\n`;
}
