import type { ChalkInstance } from 'chalk';
import { relativeTime } from './format.js';
import type { Out, RenderOptions } from './index.js';
import { wrapForTerminal } from './text-width.js';

// `partner menu get` on a terminal or a pipe: the menu as an indented tree (section → category →
// item → modifier group → modifier) with live state (out of stock, stock count, snooze). Works
// for the published store snapshot and for the business-level definition.

type Node = Record<string, unknown>;
const arr = (v: unknown): Node[] => (Array.isArray(v) ? (v as Node[]) : []);

function prices(v: unknown): string {
  if (!v || typeof v !== 'object') return '';
  return Object.entries(v as Record<string, unknown>)
    .map(([provider, price]) => `${provider}: ${price}`)
    .join(', ');
}

export function isMenuTree(data: unknown): boolean {
  if (!data || typeof data !== 'object') return false;
  const d = data as Node;
  return Array.isArray(d.sections) || (Array.isArray(d.brands) && 'business_id' in d);
}

export function renderMenuTree(out: Out, data: unknown, o: RenderOptions, c: ChalkInstance): void {
  const d = data as Node;
  const lines: string[] = [];
  const line = (depth: number, text: string) => lines.push(`${'  '.repeat(depth)}${text}`);
  const flag = (text: string, colour: (s: string) => string) => (o.tty ? colour(`[${text}]`) : `[${text}]`);
  const id = (what: string, v: unknown) => c.dim(`(${what} ${v})`);

  const item = (it: Node, depth: number) => {
    const marks: string[] = [];
    if (it.enabled === false) marks.push(flag('disabled', c.dim));
    if (it.isAvailable === false) marks.push(flag('out of stock', c.red));
    if (typeof it.stock === 'number') marks.push(flag(`stock ${it.stock}`, c.yellow));
    if (typeof it.snoozed_until === 'string') {
      const until = o.tty ? relativeTime(it.snoozed_until, o.now) : it.snoozed_until;
      marks.push(flag(`snoozed until ${until}`, c.yellow));
    }
    const p = prices(it.prices);
    line(
      depth,
      [c.bold(String(it.title)), c.cyan(String(it.partner_item_id ?? '')), p, ...marks]
        .filter(Boolean)
        .join('  '),
    );
    for (const g of arr(it.modifierGroups)) {
      line(depth + 1, `${g.title} ${c.dim(`(${g.min}–${g.max})`)}`);
      for (const m of arr(g.modifiers)) {
        const mm: string[] = [];
        if (m.isAvailable === false) mm.push(flag('out of stock', c.red));
        if (m.enabled === false) mm.push(flag('disabled', c.dim));
        line(
          depth + 2,
          [String(m.title), c.cyan(String(m.partner_item_id ?? '')), prices(m.prices), ...mm]
            .filter(Boolean)
            .join('  '),
        );
      }
    }
  };
  const sections = (list: unknown, depth: number) => {
    for (const s of arr(list)) {
      const off = s.isEnabled === false ? ` ${flag('disabled', c.dim)}` : '';
      line(depth, `${c.bold(String(s.title))} ${id('section', s.id)}${off}`);
      for (const cat of arr(s.categories)) {
        const coff = cat.isEnabled === false ? ` ${flag('disabled', c.dim)}` : '';
        line(depth + 1, `${cat.title} ${id('category', cat.id)}${coff}`);
        for (const it of arr(cat.items)) item(it, depth + 2);
      }
    }
  };

  if (Array.isArray(d.sections)) {
    const when =
      typeof d.published_at === 'string'
        ? o.tty
          ? relativeTime(d.published_at, o.now)
          : d.published_at
        : '';
    line(
      0,
      c.dim(
        `brand ${d.brand_id} · branch ${d.branch_id} · version ${d.version}${when ? ` · published ${when}` : ''}`,
      ),
    );
    sections(d.sections, 0);
  } else {
    line(0, c.dim(`business ${d.business_id} · definition (reaches stores after sync, then publish)`));
    for (const b of arr(d.brands)) {
      line(0, `${c.bold(c.underline(String(b.title)))} ${id('brand', b.brand_id)}`);
      sections(b.sections, 1);
      const u = (b.unlinked ?? {}) as Node;
      const counts = (['categories', 'items', 'modifierGroups'] as const)
        .map((k) => [k, arr(u[k]).length] as const)
        .filter(([, n]) => n > 0);
      if (counts.length) line(1, c.dim(`unlinked: ${counts.map(([k, n]) => `${n} ${k}`).join(', ')}`));
    }
  }
  // On a terminal, long item lines wrap at word boundaries under their own indent.
  out.write(wrapForTerminal(`${lines.join('\n')}\n`, o.tty ? o.width : undefined));
}
