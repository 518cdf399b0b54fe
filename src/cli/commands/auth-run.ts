import { Chalk } from 'chalk';
import { parseRateLimitHeaders } from '../../client/pacer.js';
import type { Ctx } from '../context.js';
import { maskSecret } from '../mask.js';
import { configFilePath } from '../paths.js';
import {
  type FlowReadiness,
  flowReadiness,
  isCredentialFailure,
  probeScopes,
  SCOPE_PROBES,
  type ScopeCheck,
} from '../auth/scope-probes.js';
import { EXIT, UsageError } from '../errors.js';
import { readStdin } from '../input.js';
import { canPrompt, wrapColumns } from '../io.js';
import { wrapForTerminal, wrapText } from '../output/text-width.js';
import type { Profile } from '../profile-file.js';
import type { AuthLoginOptions } from './auth.js';
import { chosenStorage, profileView, storageLine } from './profiles-run.js';

// `partner auth status` (docs/cli.md): the credential commands would use, checked against the
// server: valid or not (exit 3), the business, the rate limit, the scopes (probed), and what the
// guided flows lack.

interface AuthStatus {
  profile: string | null;
  base_url: string;
  key: string;
  /** Where the secret is read: `keyring`, `file` (the config file, mode 0600) or `env` (PARTNER_SECRET). */
  secret_storage: 'keyring' | 'file' | 'env';
  secret: string;
  valid: boolean;
  error?: { code: string; message: string; request_id: string };
  business: { id: number; title: string } | null;
  rate_limit: { limit: number; remaining: number; reset_seconds: number | null } | null;
  scopes: {
    granted: string[];
    missing: string[];
    unknown: string[];
    /** Why the scopes were not probed (too few requests left this minute), when they were not. */
    not_checked?: string;
    checked: ScopeCheck[];
  };
  flows: FlowReadiness[];
}

type Rec = Record<string, unknown>;

/** The business: from the brand list, or from a branch (brands:read missing). */
function businessOf(data: Record<string, unknown>): AuthStatus['business'] {
  const entries = data.listBrands;
  const b = Array.isArray(entries)
    ? ((entries[0] as Rec | undefined)?.business as Rec | undefined)
    : undefined;
  if (b && typeof b.id === 'number') return { id: b.id, title: String(b.title ?? '') };
  const branches = (data.listBranches as { results?: Rec[] } | undefined)?.results;
  const br = branches?.[0];
  if (br && typeof br.business_id === 'number')
    return { id: br.business_id, title: String(br.business_title ?? '') };
  return null;
}

function errorInfo(err: unknown): { code: string; message: string; request_id: string } {
  const e = err as { code?: string; wireCode?: string; message?: string; request_id?: string };
  return { code: e.wireCode ?? e.code ?? 'error', message: e.message ?? '', request_id: e.request_id ?? '' };
}

async function collectAuthStatus(ctx: Ctx): Promise<{ status: AuthStatus; failure?: unknown }> {
  const { client, target } = await ctx.partner();
  const base: Omit<AuthStatus, 'valid' | 'business' | 'rate_limit' | 'scopes' | 'flows'> = {
    profile: target.source === 'env' ? null : (target.profile?.name ?? null),
    base_url: client.baseUrl,
    key: target.key,
    secret_storage: target.secretFrom,
    secret: maskSecret(target.secret),
  };
  const empty = { granted: [], missing: [], unknown: [], checked: [] };
  // 1. Any valid credential may read the status dictionary: the credential check, and the rate limit.
  let first: Awaited<ReturnType<typeof client.callRaw>>;
  try {
    first = await ctx.spin('Checking the credential…', () => client.callRaw('listOrderStatuses'));
  } catch (err) {
    if (!isCredentialFailure(err)) throw err;
    return {
      status: {
        ...base,
        valid: false,
        error: errorInfo(err),
        business: null,
        rate_limit: null,
        scopes: empty,
        flows: [],
      },
      failure: err,
    };
  }
  const rl = parseRateLimitHeaders((n) => first.headers[n]);
  const rate_limit = rl
    ? { limit: rl.limit, remaining: rl.remaining, reset_seconds: rl.reset ?? null }
    : null;
  // 2. The scopes, when the minute's budget allows it (a credential near its limit is left alone).
  const needed = SCOPE_PROBES.length;
  if (rl && rl.remaining < needed + 1) {
    const notChecked = `only ${rl.remaining} request${rl.remaining === 1 ? '' : 's'} left this minute and the check takes ${needed}; run it again${rl.reset ? ` in ${Math.ceil(rl.reset)} s` : ' later'}`;
    const checked = SCOPE_PROBES.map((p) => ({ scope: p.scope, operation: p.operation, held: null }));
    return {
      status: {
        ...base,
        valid: true,
        business: null,
        rate_limit,
        scopes: { ...empty, unknown: checked.map((c) => c.scope), not_checked: notChecked, checked },
        flows: flowReadiness(checked),
      },
    };
  }
  let probed: Awaited<ReturnType<typeof probeScopes>>;
  try {
    probed = await ctx.spin('Checking scopes…', () => probeScopes(client));
  } catch (err) {
    // Revoked or rotated out between the two steps.
    if (!isCredentialFailure(err)) throw err;
    return {
      status: {
        ...base,
        valid: false,
        error: errorInfo(err),
        business: null,
        rate_limit,
        scopes: empty,
        flows: [],
      },
      failure: err,
    };
  }
  const { checks, data } = probed;
  return {
    status: {
      ...base,
      valid: true,
      business: businessOf(data),
      rate_limit,
      scopes: {
        granted: checks.filter((c) => c.held === true).map((c) => c.scope),
        missing: checks.filter((c) => c.held === false).map((c) => c.scope),
        unknown: checks.filter((c) => c.held === null).map((c) => c.scope),
        checked: checks,
      },
      flows: flowReadiness(checks),
    },
  };
}

function secretWhere(s: AuthStatus, configDir: string): string {
  if (s.secret_storage === 'env') return 'environment (PARTNER_SECRET)';
  if (s.secret_storage === 'keyring') return 'keyring';
  return `file (0600) ${configFilePath(configDir)}`;
}

/** On a terminal: labelled lines; piped: `key<TAB>value` lines (docs/cli.md). */
function renderAuthStatus(
  s: AuthStatus,
  o: { tty: boolean; color: boolean; configDir: string; isDefault: boolean; width?: number },
): string {
  const c = new Chalk({ level: o.color ? 1 : 0 });
  const where = secretWhere(s, o.configDir);
  const flowText = (f: FlowReadiness) =>
    f.ready === true
      ? `ready${f.limited.length ? ` (without ${f.limited.map((l) => `${l.scope}: no ${l.for}`).join('; ')})` : ''}`
      : f.ready === false
        ? `missing ${f.missing.join(', ')}`
        : `unknown (could not check ${f.unknown.join(', ')})`;
  if (!o.tty) {
    const rows: [string, string][] = [
      ['profile', s.profile ?? ''],
      ['base_url', s.base_url],
      ['key', s.key],
      ['secret', s.secret_storage],
      ['valid', String(s.valid)],
    ];
    if (s.error) rows.push(['error', `${s.error.code}: ${s.error.message}`]);
    if (s.valid) {
      rows.push(['business_id', s.business ? String(s.business.id) : '']);
      rows.push(['business_title', s.business?.title ?? '']);
      rows.push(['rate_limit', s.rate_limit ? String(s.rate_limit.limit) : '']);
      rows.push(['rate_limit_remaining', s.rate_limit ? String(s.rate_limit.remaining) : '']);
      rows.push(['scopes_granted', s.scopes.granted.join(',')]);
      rows.push(['scopes_missing', s.scopes.missing.join(',')]);
      rows.push(['scopes_unknown', s.scopes.unknown.join(',')]);
      for (const f of s.flows) rows.push([f.name.replace(/ /g, '_'), flowText(f)]);
    }
    return rows.map(([k, v]) => `${k}\t${v}\n`).join('');
  }
  const L = 12;
  const line = (label: string, value: string) => `${c.bold(label.padEnd(L))}${value}\n`;
  // Words under a label, wrapped within the terminal's width (continuation lines indented).
  const words = (label: string, text: string, paint: (t: string) => string) =>
    wrapText(text, Math.max(20, (o.width ?? 80) - L))
      .map((part, i) => line(i === 0 ? label : '', paint(part)))
      .join('');
  let out = '';
  out += line(
    'Profile',
    s.profile
      ? `${s.profile}${o.isDefault ? c.dim(' (default)') : ''}`
      : c.dim('none: PARTNER_KEY/PARTNER_SECRET'),
  );
  out += line('Server', s.base_url);
  out += line('Key', s.key);
  out += words('Secret', `${where} · ${s.secret}`, (t) => t);
  if (!s.valid) {
    out += line('Credential', c.red(`refused: ${s.error?.code ?? 'error'}`));
    return out;
  }
  out += line(
    'Credential',
    `${c.green('valid')}${s.business ? ` · business ${s.business.id} "${s.business.title}"` : c.dim(' · business unknown (needs brands:read)')}`,
  );
  if (s.rate_limit)
    out += line('Rate limit', `${s.rate_limit.limit} requests per minute, ${s.rate_limit.remaining} left`);
  const { granted, missing, not_checked } = s.scopes;
  if (not_checked) out += line('Scopes', c.yellow(`not checked: ${not_checked}`));
  else {
    out += line('Scopes', `${granted.length} of ${s.scopes.checked.length} held`);
    out += words('', granted.join(' '), c.green);
    if (missing.length) out += words('', `missing: ${missing.join(' ')}`, c.yellow);
    const notes = s.scopes.checked.filter((x) => x.held === null);
    if (notes.length)
      out += words(
        '',
        `cannot tell: ${notes.map((x) => `${x.scope}${x.note ? ` (${x.note})` : ` (${x.code ?? 'no answer'})`}`).join(', ')}`,
        c.dim,
      );
  }
  for (const [i, f] of s.flows.entries()) {
    const text = flowText(f);
    const shown = f.ready === true ? c.green(text) : f.ready === false ? c.yellow(text) : c.dim(text);
    out += line(i === 0 ? 'Flows' : '', `${f.name.padEnd(13)}${shown}`);
  }
  return out;
}

export async function runAuthStatus(ctx: Ctx): Promise<number> {
  const { status, failure } = await collectAuthStatus(ctx);
  const { io } = ctx;
  if (ctx.json) io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  else {
    const { readConfigFile } = await import('../profile-file.js');
    let isDefault = false;
    try {
      isDefault = status.profile !== null && readConfigFile(io.configDir).default === status.profile;
    } catch {
      // The profile was read a moment ago; a file broken since then only loses "(default)".
    }
    const cols = (io.stdout as { columns?: number }).columns;
    io.stdout.write(
      renderAuthStatus(status, {
        tty: io.stdoutIsTTY,
        color: ctx.color,
        configDir: io.configDir,
        isDefault,
        ...(cols && cols >= 20 ? { width: cols } : {}),
      }),
    );
  }
  if (failure) {
    // The usual error line and hint on stderr (for --json the object above says it already).
    if (!ctx.json) throw failure;
    return EXIT.auth;
  }
  return EXIT.ok;
}

// `partner auth login` (docs/cli.md): the friendly path to `profiles add`. On a terminal it asks
// for what the flags did not give (name, base URL, key, secret hidden); it checks the credential
// against the server before saving anything; without a terminal every input is a flag (or the
// environment), and a missing one is a usage error naming all of them at once.

const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;

function urlProblem(v: string): string | undefined {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'use an http(s) URL';
  } catch {
    return 'not a URL';
  }
}

export async function runAuthLogin(ctx: Ctx, opts: AuthLoginOptions): Promise<number> {
  const { io } = ctx;
  const ask = canPrompt(io);
  const { openProfiles, isValidProfileName } = await import('../profiles.js');
  const store = openProfiles({ configDir: io.configDir, env: io.env });

  let name = opts.name;
  let baseUrl = str(ctx.globals.baseUrl) ?? str(io.env.PARTNER_BASE_URL);
  let key = opts.key ?? str(io.env.PARTNER_KEY);
  let secret =
    opts.secret === '-'
      ? str(await readStdin(io, '--secret -'))
      : (str(opts.secret) ?? str(io.env.PARTNER_SECRET));
  if (!ask) {
    const missing = [
      name ? '' : '--name',
      baseUrl ? '' : '--base-url (or PARTNER_BASE_URL)',
      key ? '' : '--key (or PARTNER_KEY)',
      secret ? '' : '--secret (or --secret - to read stdin, or PARTNER_SECRET)',
    ].filter(Boolean);
    if (missing.length)
      throw new UsageError(`auth login: missing ${missing.join(', ')}; there is no terminal to ask on`);
  }
  if (name && !isValidProfileName(name))
    throw new UsageError(`--name: invalid profile name "${name}" (letters, digits, . _ -, up to 64)`);
  if (baseUrl && urlProblem(baseUrl))
    throw new UsageError(`--base-url: ${urlProblem(baseUrl)} ("${baseUrl}")`);

  // On a terminal: ask for the rest, in the order a person thinks of them.
  const { prompter } = io;
  if (!name) {
    const suggested = store.defaultName() ?? 'default';
    name = (
      await prompter.input({
        message: 'Profile name:',
        default: suggested,
        validate: (v) => isValidProfileName(v.trim()) || 'letters, digits, . _ - (up to 64)',
      })
    ).trim();
  }
  const existing = store.get(name);
  if (!baseUrl)
    baseUrl = (
      await prompter.input({
        message: 'Base URL:',
        default: existing?.base_url ?? 'http://127.0.0.1:8787',
        validate: (v) => urlProblem(v.trim()) ?? true,
      })
    ).trim();
  if (!key)
    key = (
      await prompter.input({
        message: 'Partner key (pk_…):',
        ...(existing ? { default: existing.key } : {}),
        validate: (v) => v.trim() !== '' || 'the key is required',
      })
    ).trim();
  if (!secret) secret = (await prompter.password({ message: 'Partner secret (hidden):' })).trim();
  if (!secret) throw new UsageError('missing the secret (--secret, --secret -, or PARTNER_SECRET)');
  baseUrl = baseUrl.replace(/\/+$/, '');

  if (existing && ask && !opts.yes) {
    const ok = await prompter.confirm({
      message: `Replace profile ${name} (key ${existing.key} at ${existing.base_url})?`,
      default: true,
    });
    if (!ok) {
      io.stderr.write('Cancelled.\n');
      return EXIT.other;
    }
  }

  // Checked before anything is saved: a wrong key, secret or URL leaves the profiles as they were.
  const client = await ctx.clientFor({ baseUrl, credential: { key, secret } });
  try {
    await ctx.spin(`Checking the credential with ${baseUrl}…`, () => client.callRaw('listOrderStatuses'));
  } catch (err) {
    // Say what happened: only a 401/403 is the key refused; no answer or a 5xx is the server.
    const e = err as { name?: string; status?: number };
    const why =
      e.name === 'ApiError' && (e.status === 401 || e.status === 403)
        ? `the server at ${baseUrl} did not accept key ${key}`
        : e.name === 'ApiError'
          ? `the server at ${baseUrl} answered ${e.status}, so key ${key} could not be checked`
          : `could not reach the server at ${baseUrl}, so key ${key} could not be checked`;
    io.stderr.write(`Nothing was saved: ${why}.\n`);
    throw err;
  }
  let business = '';
  try {
    const brands = (await client.call('listBrands')) as { business?: { id?: number; title?: string } }[];
    const b = brands[0]?.business;
    if (b?.id !== undefined) business = ` (business ${b.id} "${b.title ?? ''}")`;
  } catch {
    // Without brands:read the business stays unnamed; the credential itself was accepted.
  }

  const where = await chosenStorage(ctx, opts.storage);
  let makeDefault = opts.default === true;
  const current = store.defaultName();
  if (opts.default === undefined && current && current !== name) {
    makeDefault =
      opts.yes ||
      (ask &&
        (await prompter.confirm({
          message: `Make ${name} the default profile (now ${current})?`,
          default: true,
        })));
  }
  // Logging in again with the same key keeps the profile's default brand and branch.
  const kept = existing && existing.key === key ? existing : undefined;
  const profile: Profile = {
    name,
    base_url: baseUrl,
    key,
    secret,
    ...(opts.webhookSecret ? { webhook_secret: opts.webhookSecret } : {}),
    ...(kept?.default_brand_id !== undefined ? { default_brand_id: kept.default_brand_id } : {}),
    ...(kept?.default_branch_id !== undefined ? { default_branch_id: kept.default_branch_id } : {}),
  };
  const saved = store.save(profile, { makeDefault, storage: where.storage });
  const isDefault = store.defaultName() === name;
  if (ctx.json) {
    const view = profileView(
      { ...profile, ...(saved.storage === 'keyring' ? { storage: 'keyring' } : {}) },
      isDefault,
    );
    io.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
  }
  io.stderr.write(
    wrapForTerminal(
      `Logged in to ${baseUrl} as ${key}${business}.\nSaved profile ${name} (key ${key}, secret ${maskSecret(secret)})${isDefault ? ' as the default' : ''} to ${store.path}\n${storageLine(saved, store.path, where.reason)}\n`,
      wrapColumns(io, 'stderr'),
    ),
  );
  for (const w of saved.warnings) io.stderr.write(`warning: ${w}\n`);
  return EXIT.ok;
}
