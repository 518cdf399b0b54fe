import { Chalk, type ChalkInstance } from 'chalk';
import type { PartnerClient } from '../../client/client.js';
import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';
import { canPrompt } from '../io.js';
import type { Profile } from '../profile-file.js';
import { displayWidth } from '../output/display-width.js';
import { wrapText } from '../output/text-width.js';
import type { BootstrapOptions } from './bootstrap.js';

// `partner bootstrap` (docs/flows.md): the spec's bootstrap sequence — brands, branches,
// providers, the order-status dictionary — plus a check of which scopes the credential lacks,
// shown for a person or as one JSON object, and an offer to save a default brand and branch
// on the profile.

type Rec = Record<string, unknown>;

interface ScopeCheck {
  scope: string;
  /** The operation that was called to find out. */
  operation: string;
  /** true: held (the call got past the scope check); false: 403 auth_forbidden; null: could not tell. */
  held: boolean | null;
  /** The error code when the call failed. */
  code?: string;
  note?: string;
}

interface BootstrapFound {
  profile: string | null;
  base_url: string;
  key: string;
  scopes: { checked: ScopeCheck[]; missing: string[]; unknown: string[] };
  business: Rec | null;
  brands: Rec[];
  branches: (Rec & { opening_hours: string | null })[];
  providers: Rec[];
  statuses: Rec[];
  /** Reads that failed, by section (`"auth_forbidden: credential is not scoped for …"`). */
  errors: Record<string, string>;
  defaults: { brand_id?: number; branch_id?: number };
}

// ─── Opening hours ───────────────────────────────────────────────────────────────────────────

const DAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** Monday first, as people read a week. */
const WEEK = [1, 2, 3, 4, 5, 6, 0];

function hhmm(v: unknown): string {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) return '?';
  return `${String(Math.floor(n / 100)).padStart(2, '0')}:${String(n % 100).padStart(2, '0')}`;
}

/** Runs of consecutive days (in WEEK order) as `Mon–Fri, Sun`. */
function dayRuns(days: number[]): string {
  const idx = days.map((d) => WEEK.indexOf(d)).sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1] === idx[j]! + 1) j++;
    const a = DAY[WEEK[idx[i]!]!]!;
    const b = DAY[WEEK[idx[j]!]!]!;
    parts.push(i === j ? a : `${a}–${b}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/**
 * `available_times` (spec §2.6, `startTime`/`endTime` or `start_time`/`end_time`) in words:
 * `Mon–Fri 07:00–22:00, Sat–Sun 08:00–23:00; closed Wed`. Days with the same slots are grouped,
 * split shifts read `10:00–15:00 & 17:00–22:00`, a day that is `disabled` (or has no slot) is
 * closed. Null when there is no schedule.
 */
export function formatOpeningHours(times: unknown): string | null {
  if (!times || typeof times !== 'object' || Array.isArray(times)) return null;
  const byKey = new Map<string, number[]>();
  const closed: number[] = [];
  for (const d of WEEK) {
    const day = (times as Rec)[String(d)] as { disabled?: unknown; slots?: unknown } | undefined;
    const slots = Array.isArray(day?.slots) ? (day.slots as Rec[]) : [];
    if (!day || day.disabled === true || slots.length === 0) {
      closed.push(d);
      continue;
    }
    const key = slots
      .map((s) => {
        const start = s.startTime ?? s.start_time;
        const end = s.endTime ?? s.end_time;
        return Number(start) === 0 && Number(end) === 2359 ? '24 h' : `${hhmm(start)}–${hhmm(end)}`;
      })
      .join(' & ');
    byKey.set(key, [...(byKey.get(key) ?? []), d]);
  }
  if (byKey.size === 0) return 'closed every day';
  const groups = [...byKey].map(([key, days]) =>
    days.length === 7 ? `daily ${key}` : `${dayRuns(days)} ${key}`,
  );
  return `${groups.join(', ')}${closed.length ? `; closed ${dayRuns(closed)}` : ''}`;
}

// ─── Collecting ──────────────────────────────────────────────────────────────────────────────

interface Probe {
  scope: string;
  operation: string;
  input?: Rec;
  note?: string;
}

/**
 * Scope probes: a read of each capability the CLI's flows need, and for write scopes a write
 * with a deliberately empty body. The server checks the scope before it validates the body, so
 * `403 auth_forbidden` means the scope is missing and `400 request_invalid` means it is held —
 * and nothing is written (validation failures are not even stored against the Idempotency-Key).
 */
function probes(brandId: number | undefined): Probe[] {
  return [
    { scope: 'orders:read', operation: 'listOrders', input: { query: { size: 1 } } },
    { scope: 'orders:update', operation: 'patchOrderStatus', input: { body: {} }, note: 'empty body' },
    {
      scope: 'menus:read',
      operation: 'getMenu',
      input: { query: { brand_id: brandId ?? 1 } },
      note: 'brand_id without branch_id',
    },
    { scope: 'menus:create', operation: 'createSection', input: { body: {} }, note: 'empty body' },
    { scope: 'menus:update', operation: 'syncMenuToStores', input: { body: {} }, note: 'empty body' },
    { scope: 'menus:oos', operation: 'setItemsAvailability', input: { body: {} }, note: 'empty body' },
    { scope: 'webhooks:read', operation: 'listWebhooks' },
  ];
}

function errInfo(err: unknown): {
  name?: string;
  status?: number;
  code?: string;
  message?: string;
  details?: unknown;
} {
  return (err ?? {}) as {
    name?: string;
    status?: number;
    code?: string;
    message?: string;
    details?: unknown;
  };
}

/** A failure that ends the bootstrap: bad credential (401), revoked (403 auth_revoked), network, 5xx. */
function isFatal(err: unknown): boolean {
  const e = errInfo(err);
  if (e.name === 'ApiError') return e.status === 401 || e.code === 'auth_revoked' || (e.status ?? 0) >= 500;
  return true;
}

function check(scope: string, operation: string, err: unknown, note?: string): ScopeCheck {
  const base = { scope, operation, ...(note ? { note } : {}) };
  if (err === undefined) return { ...base, held: true };
  const e = errInfo(err);
  if (e.name === 'ApiError' && e.status === 403 && e.code === 'auth_forbidden') {
    const required = (e.details as { required_scope?: string } | undefined)?.required_scope;
    return { ...base, scope: required ?? scope, held: false, code: 'auth_forbidden' };
  }
  // The request got past authentication and the scope check, and was refused for what it said.
  if (e.name === 'ApiError' && [400, 404, 409, 422].includes(e.status ?? 0))
    return { ...base, held: true, ...(e.code ? { code: e.code } : {}) };
  return { ...base, held: null, code: e.code ?? e.name ?? 'error' };
}

async function attempt<T>(fn: () => Promise<T>): Promise<{ value?: T; err?: unknown }> {
  try {
    return { value: await fn() };
  } catch (err) {
    if (isFatal(err)) throw err;
    return { err };
  }
}

/** Runs the bootstrap sequence and the scope probes with `client`. */
export async function collectBootstrap(
  client: PartnerClient,
  meta: { profile: string | null; base_url: string; key: string },
): Promise<BootstrapFound> {
  const errors: Record<string, string> = {};
  const failed = (section: string, err: unknown) => {
    const e = errInfo(err);
    errors[section] = `${e.code ?? e.name}: ${e.message ?? ''}`;
  };
  // Brands first: it is also the credential check (401 ends here).
  const brandsRes = await attempt(() => client.call('listBrands') as Promise<Rec[]>);
  if (brandsRes.err) failed('brands', brandsRes.err);
  const entries = Array.isArray(brandsRes.value) ? brandsRes.value : [];
  const business = (entries[0]?.business as Rec | undefined) ?? null;
  const brands = entries.flatMap((e) => (Array.isArray(e.brands) ? (e.brands as Rec[]) : []));

  const branchesP = attempt(async () => {
    const out: Rec[] = [];
    for await (const b of client.paginate<Rec>('listBranches', { size: 100, maxPages: 100 })) out.push(b);
    return out;
  });
  const providersP = attempt(() => client.call('listProviders') as Promise<Rec[]>);
  const statusesP = attempt(() => client.call('listOrderStatuses') as Promise<Rec[]>);
  const probeList = probes(brands[0]?.id as number | undefined);
  const probeP = probeList.map(async (p) => {
    const r = await attempt(() => client.call(p.operation, p.input ?? {}));
    return check(p.scope, p.operation, r.err, p.note);
  });
  const [branchesRes, providersRes, statusesRes, ...probed] = await Promise.all([
    branchesP,
    providersP,
    statusesP,
    ...probeP,
  ]);
  if (branchesRes.err) failed('branches', branchesRes.err);
  if (providersRes.err) failed('providers', providersRes.err);
  if (statusesRes.err) failed('statuses', statusesRes.err);

  const checked: ScopeCheck[] = [
    check('brands:read', 'listBrands', brandsRes.err),
    check('branches:read', 'listBranches', branchesRes.err, 'brands:read also grants branch reads'),
    ...(probed as ScopeCheck[]),
  ];
  const missing = [...new Set(checked.filter((c) => c.held === false).map((c) => c.scope))];
  const unknown = [...new Set(checked.filter((c) => c.held === null).map((c) => c.scope))];
  return {
    ...meta,
    scopes: { checked, missing, unknown },
    business,
    brands,
    branches: (branchesRes.value ?? []).map((b) => ({
      ...b,
      opening_hours: formatOpeningHours(b.available_times),
    })),
    providers: providersRes.value ?? [],
    statuses: statusesRes.value ?? [],
    errors,
    defaults: {},
  };
}

// ─── Output ──────────────────────────────────────────────────────────────────────────────────

/**
 * A borderless table; when wider than `width`, the last column (free text such as opening hours)
 * wraps inside its own column instead of the terminal wrapping the whole line.
 */
function table(c: ChalkInstance, head: string[], rows: string[][], width: number, indent = '  '): string[] {
  const widths = head.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const last = head.length - 1;
  const before = indent.length + widths.slice(0, last).reduce((a, w) => a + w + 2, 0);
  const room = width - before;
  const line = (cells: string[]) =>
    cells
      .map((x, i) => (i === last ? x : x + ' '.repeat(Math.max(0, widths[i]! - displayWidth(x)))))
      .join('  ')
      .trimEnd();
  const out = [`${indent}${c.bold(line(head))}`];
  for (const r of rows) {
    const tail = r[last] ?? '';
    const parts = room >= 12 && before + displayWidth(tail) > width ? wrapText(tail, room) : [tail];
    out.push(`${indent}${line([...r.slice(0, last), parts[0]!])}`);
    for (const p of parts.slice(1)) out.push(`${' '.repeat(before)}${p}`);
  }
  return out;
}

const text = (v: unknown) =>
  v === undefined || v === null ? '' : Array.isArray(v) ? v.join(', ') : String(v);

/** The report, laid out for `width` columns (the terminal's; Infinity when not a terminal). */
function renderBootstrap(found: BootstrapFound, color: boolean, width = Number.POSITIVE_INFINITY): string {
  const c = new Chalk({ level: color ? 1 : 0 });
  const out: string[] = [];
  const LABEL = 12;
  const label = (s: string) => c.bold(s.padEnd(LABEL));
  /** `Label      main (note)`: the dim note goes under the label's column when the line is too long. */
  const labeled = (name: string, main: string, mainPlain: string, note = '') => {
    const room = width - LABEL;
    if (!note || LABEL + displayWidth(mainPlain) + 1 + displayWidth(note) <= width) {
      out.push(`${label(name)}${main}${note ? ` ${c.dim(note)}` : ''}`);
      return;
    }
    out.push(`${label(name)}${main}`);
    for (const l of wrapText(note, room)) out.push(`${' '.repeat(LABEL)}${c.dim(l)}`);
  };
  labeled(
    'Credential',
    found.key,
    found.key,
    `(${found.profile ? `profile ${found.profile}` : 'from PARTNER_KEY'}) at ${found.base_url}`,
  );
  const { missing, unknown, checked } = found.scopes;
  if (missing.length === 0 && unknown.length === 0) {
    const held = 'every scope checked is held';
    labeled('Scopes', c.green(held), held, `(${checked.map((x) => x.scope).join(', ')})`);
  } else {
    if (missing.length) {
      const m = `missing ${missing.join(', ')}`;
      labeled('Scopes', c.yellow(m), m, '— commands that need them answer 403 auth_forbidden');
    }
    if (unknown.length)
      out.push(`${label(missing.length ? '' : 'Scopes')}${c.dim(`could not check ${unknown.join(', ')}`)}`);
  }
  const b = found.business;
  if (b) {
    const main = `#${text(b.id)} ${text(b.title)}`;
    labeled('Business', main, main, b.address ? `· ${text(b.address)}` : '');
  } else out.push(`${label('Business')}${c.dim('unknown (no brands:read)')}`);
  out.push('');
  out.push(c.bold(`Brands (${found.brands.length})`));
  if (found.brands.length)
    out.push(
      ...table(
        c,
        ['ID', 'TITLE'],
        found.brands.map((x) => [text(x.id), text(x.title)]),
        width,
      ),
    );
  else out.push(c.dim(`  ${found.errors.brands ?? 'none'}`));
  out.push('');
  out.push(c.bold(`Branches (${found.branches.length})`));
  if (found.branches.length)
    out.push(
      ...table(
        c,
        ['ID', 'TITLE', 'BRANDS', 'CURRENCY', 'TIME ZONE', 'OPENING HOURS'],
        found.branches.map((x) => [
          text(x.id),
          text(x.title),
          text(x.brand_ids),
          text(x.currency_code),
          text(x.time_zone),
          x.opening_hours ?? '',
        ]),
        width,
      ),
    );
  else out.push(c.dim(`  ${found.errors.branches ?? 'none'}`));
  out.push('');
  out.push(
    c.bold(`Providers (${found.providers.length})`) + c.dim(' — their ids key PriceMap and VisibilitiesMap'),
  );
  if (found.providers.length)
    out.push(
      ...table(
        c,
        ['ID', 'TITLE', 'TYPE', 'COUNTRIES'],
        found.providers.map((x) => [text(x.id), text(x.title), text(x.type), text(x.countries)]),
        width,
      ),
    );
  else out.push(c.dim(`  ${found.errors.providers ?? 'none'}`));
  out.push('');
  out.push(c.bold(`Order statuses (${found.statuses.length})`));
  if (found.statuses.length) {
    const list = found.statuses.map((s) => `${text(s.id)} ${text(s.status)}`).join(' · ');
    for (const l of wrapText(list, width - 2, ' · ')) out.push(`  ${l}`);
  } else out.push(c.dim(`  ${found.errors.statuses ?? 'none'}`));
  return `${out.join('\n')}\n`;
}

// ─── Defaults on the profile ─────────────────────────────────────────────────────────────────

/** Checks --brand/--branch against what the credential sees. */
function checkDefaults(found: BootstrapFound, brand: number | undefined, branch: number | undefined): void {
  if (brand !== undefined && found.brands.length > 0 && !found.brands.some((b) => b.id === brand))
    throw new UsageError(
      `--brand ${brand}: not a brand of this business (brands: ${found.brands.map((b) => text(b.id)).join(', ')})`,
    );
  if (branch !== undefined && found.branches.length > 0) {
    const br = found.branches.find((b) => b.id === branch);
    if (!br)
      throw new UsageError(
        `--branch ${branch}: not a branch of this business (branches: ${found.branches.map((b) => text(b.id)).join(', ')})`,
      );
    if (brand !== undefined && Array.isArray(br.brand_ids) && !br.brand_ids.includes(brand))
      throw new UsageError(
        `--branch ${branch} does not carry brand ${brand} (its brands: ${text(br.brand_ids)})`,
      );
  }
}

/** Saves default_brand_id / default_branch_id on a profile of `configDir`. */
export async function saveDefaults(
  configDir: string,
  profile: Profile,
  d: { brand_id?: number; branch_id?: number },
): Promise<void> {
  const { openProfiles } = await import('../profiles.js');
  const store = openProfiles({ configDir });
  const current = store.get(profile.name) ?? profile;
  store.save({
    ...current,
    ...(d.brand_id !== undefined ? { default_brand_id: d.brand_id } : {}),
    ...(d.branch_id !== undefined ? { default_branch_id: d.branch_id } : {}),
  });
}

async function promptDefaults(
  ctx: Ctx,
  found: BootstrapFound,
  profile: Profile,
): Promise<{ brand_id?: number; branch_id?: number } | undefined> {
  const { prompter } = ctx.io;
  if (found.brands.length === 0) return undefined;
  const now =
    profile.default_brand_id !== undefined || profile.default_branch_id !== undefined
      ? ` (now: brand ${profile.default_brand_id ?? '–'}, branch ${profile.default_branch_id ?? '–'})`
      : '';
  const yes = await prompter.confirm({
    message: `Save a default brand and branch on profile "${profile.name}"?${now}`,
    default: now === '',
  });
  if (!yes) return undefined;
  const brand = Number(
    await prompter.select({
      message: 'Default brand:',
      choices: found.brands.map((b) => ({ name: `${text(b.title)} (#${text(b.id)})`, value: String(b.id) })),
    }),
  );
  const carrying = found.branches.filter((b) => Array.isArray(b.brand_ids) && b.brand_ids.includes(brand));
  if (carrying.length === 0) return { brand_id: brand };
  const branch = await prompter.select({
    message: 'Default branch:',
    choices: [
      ...carrying.map((b) => ({ name: `${text(b.title)} (#${text(b.id)})`, value: String(b.id) })),
      { name: '(no default branch)', value: '' },
    ],
  });
  return branch === '' ? { brand_id: brand } : { brand_id: brand, branch_id: Number(branch) };
}

export async function runBootstrap(ctx: Ctx, opts: BootstrapOptions): Promise<number> {
  const { io } = ctx;
  const { brand: brandFlag, branch: branchFlag } = opts;
  const { client, target } = await ctx.partner();
  // With PARTNER_KEY/PARTNER_SECRET the credential is not the profile's (the default profile is
  // still read, for its base URL): its defaults are not this credential's to set, nor to show.
  const profile = target.source === 'env' ? undefined : target.profile;
  if ((brandFlag !== undefined || branchFlag !== undefined) && !profile)
    throw new UsageError(
      'the credential comes from PARTNER_KEY/PARTNER_SECRET, so there is no profile to save defaults on; pass --profile NAME',
    );
  const found = await ctx.spin('Checking the credential and reading the business…', () =>
    collectBootstrap(client, { profile: profile?.name ?? null, base_url: target.baseUrl, key: target.key }),
  );
  checkDefaults(found, brandFlag, branchFlag);

  let chosen: { brand_id?: number; branch_id?: number } | undefined;
  if (brandFlag !== undefined || branchFlag !== undefined) {
    chosen = {
      ...(brandFlag !== undefined ? { brand_id: brandFlag } : {}),
      ...(branchFlag !== undefined ? { branch_id: branchFlag } : {}),
    };
  }
  // On a terminal the report fits its width (one column short: no terminal wraps early).
  const columns = (io.stdout as { columns?: number }).columns;
  const width = io.stdoutIsTTY && columns ? columns - 1 : Number.POSITIVE_INFINITY;
  if (!ctx.json) io.stdout.write(renderBootstrap(found, ctx.color, width));
  // Prompts only on a terminal, never with --json (a script reads that output).
  if (!chosen && profile && !ctx.json && canPrompt(io)) {
    io.stdout.write('\n');
    chosen = await promptDefaults(ctx, found, profile);
  }
  if (chosen && profile && (chosen.brand_id !== undefined || chosen.branch_id !== undefined)) {
    await saveDefaults(io.configDir, profile, chosen);
  }
  found.defaults = {
    ...(profile?.default_brand_id !== undefined ? { brand_id: profile.default_brand_id } : {}),
    ...(profile?.default_branch_id !== undefined ? { branch_id: profile.default_branch_id } : {}),
    ...(chosen ?? {}),
  };
  if (ctx.json) {
    io.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
    return 0;
  }
  const c = new Chalk({ level: ctx.color ? 1 : 0 });
  const d = found.defaults;
  if (chosen && profile) {
    io.stdout.write(
      `\n${c.green('Saved')} on profile ${profile.name}: default brand ${d.brand_id ?? '–'}, default branch ${d.branch_id ?? '–'}\n`,
    );
  } else if (profile) {
    const has = d.brand_id !== undefined || d.branch_id !== undefined;
    io.stdout.write(
      `\n${c.dim(
        has
          ? `Defaults on profile ${profile.name}: brand ${d.brand_id ?? '–'}, branch ${d.branch_id ?? '–'} (change with --brand ID --branch ID)`
          : 'Save a default brand and branch on the profile with: partner bootstrap --brand ID --branch ID',
      )}\n`,
    );
  }
  return 0;
}
