import { statusName } from '../../contract/order-statuses.js';
import { UsageError } from '../errors.js';
import { relativeTime } from './format.js';

// `--template TEXT`: Handlebars (mustache syntax plus helpers), loaded only when the flag is used.
// Chosen over a Go-template clone because Node has no well-kept one; Handlebars is. Output is
// plain text: no HTML escaping. `\n` and `\t` in TEXT stand for a newline and a tab, so a
// template fits on one command line (as with printf).

type Render = (value: unknown) => string;

/** The template's text with `\n`, `\t` and `\\` read as printf reads them. */
export function unescapeTemplate(text: string): string {
  return text.replace(/\\([nt\\])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : '\\'));
}

/**
 * Compiles the template (a syntax error is a usage error, before any request). Helpers beyond
 * Handlebars' own (each, if, unless, with, lookup): json, join, timeago, truncate, status,
 * pad.
 */
export async function compileTemplate(text: string, now: () => number): Promise<Render> {
  const mod = (await import('handlebars')) as unknown as { default?: typeof import('handlebars') };
  const hb = (mod.default ?? mod) as typeof import('handlebars');
  const h = hb.create();
  const opts = (args: unknown[]) => args.slice(0, -1);
  h.registerHelper('json', (...a: unknown[]) => JSON.stringify(opts(a)[0]));
  h.registerHelper('join', (...a: unknown[]) => {
    const [list, sep] = opts(a);
    return Array.isArray(list) ? list.join(typeof sep === 'string' ? sep : ', ') : String(list ?? '');
  });
  h.registerHelper('timeago', (...a: unknown[]) => {
    const v = opts(a)[0];
    return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? relativeTime(v, now()) : String(v ?? '');
  });
  h.registerHelper('truncate', (...a: unknown[]) => {
    const [v, n] = opts(a);
    const s = String(v ?? '');
    const max = Number(n);
    return Number.isFinite(max) && s.length > max ? `${s.slice(0, Math.max(0, max - 1))}…` : s;
  });
  h.registerHelper('status', (...a: unknown[]) => {
    const v = opts(a)[0];
    return typeof v === 'number' ? statusName(v) : String(v ?? '');
  });
  h.registerHelper('pad', (...a: unknown[]) => {
    const [v, n] = opts(a);
    return String(v ?? '').padEnd(Number(n) || 0);
  });
  let render: Render;
  try {
    const compiled = h.compile(unescapeTemplate(text), { noEscape: true, strict: false });
    // Compile errors surface on first use in Handlebars: render once on nothing to find them now.
    compiled({});
    render = (value) => compiled(value);
  } catch (err) {
    // A parse error or an unknown helper: the user's typo, told before any request.
    throw new UsageError(`--template: ${String((err as Error).message).replace(/\s*\n\s*/g, ' ')}`);
  }
  return render;
}
