import type { Command } from 'commander';
import { SCRIPTS } from './completion-scripts.js';

// What `partner __complete WORDS…` answers, from the live command tree, so completions never
// drift from the commands. Loaded only for completion (not at every start-up).

/** A candidate, with what it stands for (an id's title) when there is something to say. */
interface Candidate {
  value: string;
  description?: string;
}

/** What to ask the server for: brand or branch ids (branches of one brand when `--brand` was given). */
interface IdRequest {
  kind: 'brand' | 'branch';
  brand?: number;
  profile?: string;
  baseUrl?: string;
  insecure?: boolean;
}

/** Where completion finds values that depend on the machine: profile names, the server's ids. */
export interface CompletionContext {
  profiles(): string[];
  /** Brand/branch ids from the active profile's server (bounded in time; [] when unreachable). */
  ids?(q: IdRequest): Promise<Candidate[]>;
  /** The API path of the operation behind a command, to know what its ID argument names. */
  opPath?(cmdPath: string): string | undefined;
}

const ALL_STATUSES = [
  'PLACED',
  'ACCEPTED',
  'CANCELLED',
  'READY',
  'DELIVERED',
  'SCHEDULED',
  'DRIVER_ASSIGNED',
  'DRIVER_ARRIVED',
  'PICKED_UP',
  'PENDING',
  'VOID',
];
const PARTNER_STATUSES = ['ACCEPTED', 'READY', 'DELIVERED', 'CANCELLED'];
const EVENT_TYPES = [
  'service.order.created.v2',
  'service.order.status.updated',
  'service.order.cart.updated',
];

/** The value after the last `flag` (or one of its spellings) among the words. */
function flagValue(words: readonly string[], flags: readonly string[]): string | undefined {
  let v: string | undefined;
  words.forEach((w, i) => {
    for (const f of flags) {
      if (w === f && i + 1 < words.length) v = words[i + 1];
      else if (w.startsWith(`${f}=`)) v = w.slice(f.length + 1);
    }
  });
  return v;
}

const BRAND_FLAGS = ['--brand', '--brand-id'];
const BRANCH_FLAGS = ['--branch', '--branch-id', '--branch-ids'];

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

type Values = (string | Candidate)[] | undefined;

/** The server's ids for a line, with what the line already says (profile, base URL, brand). */
function idsFor(
  kind: IdRequest['kind'],
  words: readonly string[],
  ctx: CompletionContext,
): Promise<Candidate[]> {
  if (!ctx.ids) return Promise.resolve([]);
  const brand = kind === 'branch' ? Number(flagValue(words, BRAND_FLAGS)) : Number.NaN;
  const profile = flagValue(words, ['--profile']);
  const baseUrl = flagValue(words, ['--base-url']);
  return ctx.ids({
    kind,
    ...(Number.isInteger(brand) ? { brand } : {}),
    ...(profile !== undefined ? { profile } : {}),
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(words.includes('--insecure') ? { insecure: true } : {}),
  });
}

/** Values of an option (`--status` on `orders patch`…), or undefined when any text goes. */
async function optionValues(
  cmd: Command,
  flag: string,
  words: readonly string[],
  ctx: CompletionContext,
): Promise<Values> {
  if (flag === '--profile') return ctx.profiles();
  const path = pathOf(cmd);
  if (flag === '--status') {
    if (path === 'orders patch') return PARTNER_STATUSES;
    if (path === 'orders list' || path === 'orders watch') return ALL_STATUSES;
  }
  if (flag === '--status' && path === 'trigger') return ALL_STATUSES;
  if (flag === '--status' && path === 'logs tail') return ['2xx', '3xx', '4xx', '5xx'];
  if (flag === '--events' && path === 'listen') return EVENT_TYPES;
  if (flag === '--event' && path === 'operator webhooks add') return [...EVENT_TYPES, 'all'];
  // Ids of the credential's own business: not for operator commands, which name any business.
  const partnerCommand = !path.startsWith('operator') && !path.startsWith('profiles');
  if (partnerCommand && BRAND_FLAGS.includes(flag)) return idsFor('brand', words, ctx);
  if (partnerCommand && BRANCH_FLAGS.includes(flag)) return idsFor('branch', words, ctx);
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag);
    if (o?.argChoices) return o.argChoices;
  }
  return undefined;
}

/** Values of the positional argument at `index` of `cmd`. */
async function argumentValues(
  cmd: Command,
  index: number,
  words: readonly string[],
  ctx: CompletionContext,
): Promise<Values> {
  const path = pathOf(cmd);
  if (index === 0 && ['profiles use', 'profiles remove', 'profiles show', 'profiles move'].includes(path))
    return ctx.profiles();
  if (index === 0 && path === 'completion') return Object.keys(SCRIPTS);
  if (index === 1 && path === 'operator orders status') return ALL_STATUSES;
  if (index === 0 && path === 'trigger') return ['order.created', 'order.status', 'order.cart'];
  const api = ctx.opPath?.(path);
  if (index === 0 && api?.startsWith('/v1/partner/brands/{id}')) return idsFor('brand', words, ctx);
  if (index === 0 && api?.startsWith('/v1/partner/branches/{id}')) return idsFor('branch', words, ctx);
  return undefined;
}

/** Whether `flag` on `cmd` (or a parent) takes a value. */
function takesValue(cmd: Command, flag: string): boolean {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag || x.short === flag);
    if (o) return o.required || o.optional;
  }
  return false;
}

const isNumeric = (v: string) => /^\d+$/.test(v);

/**
 * Candidates for the last word, given the words typed after `partner`: subcommands, options,
 * and the values of options and arguments that have a known set (profiles, statuses, shells,
 * event types, the server's brand and branch ids). Nothing for free text, which shells then
 * complete as file names. Each candidate is `value` or `value<TAB>description`.
 */
export async function completeWords(
  root: Command,
  words: readonly string[],
  ctx: CompletionContext = { profiles: () => [] },
): Promise<string[]> {
  let current = words.at(-1) ?? '';
  let cmd = root;
  let positional = 0;
  const before = words.slice(0, -1);
  for (let i = 0; i < before.length; i++) {
    const w = before[i]!;
    if (w.startsWith('-')) {
      if (!w.includes('=') && takesValue(cmd, w)) i++; // its value is not a command word
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub) {
      cmd = sub;
      positional = 0;
    } else positional++;
  }
  const prev = before.at(-1);
  let out: Values;
  let values = false;
  if (prev?.startsWith('-') && !prev.includes('=') && takesValue(cmd, prev)) {
    out = (await optionValues(cmd, prev, before, ctx)) ?? [];
    values = true;
  } else if (current.startsWith('-')) {
    out = [];
    for (let c: Command | null = cmd; c; c = c.parent) {
      for (const o of c.options) if (!o.hidden && o.long) out.push(o.long);
    }
    out.push('--help');
  } else if (cmd.commands.length > 0) {
    out = [];
    for (const c of cmd.commands) if (!(c as unknown as { _hidden?: boolean })._hidden) out.push(c.name());
  } else {
    out = (await argumentValues(cmd, positional, before, ctx)) ?? [];
    values = true;
  }
  // A comma list (`--events a,b,`): complete the last item, keeping what comes before.
  let head = '';
  if (values && prev === '--events' && current.includes(',')) {
    head = current.slice(0, current.lastIndexOf(',') + 1);
    current = current.slice(head.length);
  }
  // Values match in any case (`pi` → PICKED_UP); command and option names as typed.
  const starts = values
    ? (c: string) => c.toLowerCase().startsWith(current.toLowerCase())
    : (c: string) => c.startsWith(current);
  const seen = new Map<string, Candidate>();
  for (const c of out) {
    const cand = typeof c === 'string' ? { value: c } : c;
    if (starts(cand.value) && !seen.has(cand.value)) seen.set(cand.value, cand);
  }
  return [...seen.values()]
    .sort((a, b) =>
      isNumeric(a.value) && isNumeric(b.value)
        ? Number(a.value) - Number(b.value)
        : a.value < b.value
          ? -1
          : 1,
    )
    .map((c) => {
      const text = head + c.value;
      // One line per candidate: a title with a tab or newline would break the format.
      return c.description ? `${text}\t${c.description.replace(/[\t\r\n]+/g, ' ')}` : text;
    });
}
