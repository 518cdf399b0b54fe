import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';
import { readStdin } from '../input.js';
import { canPrompt, wrapColumns } from '../io.js';
import { wrapForTerminal } from '../output/text-width.js';
import { maskSecret } from '../mask.js';
import { type Profile, storageOf } from '../profile-file.js';
import type { SaveResult, SecretStorage } from '../profiles.js';
import type { ProfilesAddOptions } from './profiles.js';

// The bodies of `partner profiles add|list|use|remove|show|move` (docs/cli.md), loaded when one
// runs (profiles.ts registers them). Secrets are never printed: the secret and the webhook secret
// appear masked (`sk_…x9f2`) in every output, --json included. They live in the OS keyring where
// one can be reached, else in the mode-0600 config file; never in both (src/cli/profiles.ts).

interface ProfileView {
  name: string;
  base_url: string;
  key: string;
  /** Masked; null for a keyring profile when the keyring was not read (`profiles list`). */
  secret: string | null;
  webhook_secret?: string;
  default_brand_id?: number;
  default_branch_id?: number;
  default: boolean;
  storage: SecretStorage;
}

export function profileView(
  p: Profile,
  isDefault: boolean,
  secrets: { secret?: string | undefined; webhook_secret?: string | undefined } = p,
): ProfileView {
  const masked = secrets.secret ? maskSecret(secrets.secret) : null;
  return {
    name: p.name,
    base_url: p.base_url,
    key: p.key,
    secret: masked,
    ...(secrets.webhook_secret ? { webhook_secret: maskSecret(secrets.webhook_secret) } : {}),
    ...(p.default_brand_id !== undefined ? { default_brand_id: p.default_brand_id } : {}),
    ...(p.default_branch_id !== undefined ? { default_branch_id: p.default_branch_id } : {}),
    default: isDefault,
    storage: storageOf(p),
  };
}

/** A name that is not a profile: the error lists the ones there are. */
function noSuchProfile(s: { list(): { name: string }[] }, name: string): UsageError {
  const names = s.list().map((p) => p.name);
  return new UsageError(
    names.length === 0
      ? `no profile named "${name}": there are no profiles yet (\`partner profiles add NAME …\`)`
      : `no profile named "${name}"; the profiles are: ${names.join(', ')}`,
  );
}

async function store(ctx: Ctx) {
  const { openProfiles } = await import('../profiles.js');
  return openProfiles({ configDir: ctx.io.configDir, env: ctx.io.env });
}

/** `--storage`, or where a keyring can be reached, the keyring (loading the binding only then). */
export async function chosenStorage(
  ctx: Ctx,
  flag: 'keyring' | 'file' | undefined,
): Promise<{ storage: SecretStorage; reason?: string }> {
  if (flag === 'keyring' || flag === 'file') return { storage: flag };
  const { defaultStorage } = await import('../profiles.js');
  return defaultStorage(ctx.io.env);
}

/** The line after `Saved profile …`: where the secret went, and why not the keyring when not. */
export function storageLine(saved: SaveResult, path: string, noKeyring?: string): string {
  if (saved.storage === 'keyring') return `secret: keyring (${saved.keyring ?? 'OS keyring'})`;
  return `secret: file (0600) ${path}${noKeyring ? `; no OS keyring here: ${noKeyring}` : ''}`;
}

async function required(
  ctx: Ctx,
  value: unknown,
  flag: string,
  ask: () => Promise<string>,
  alt = '',
): Promise<string> {
  if (typeof value === 'string' && value !== '') return value;
  if (canPrompt(ctx.io)) {
    const v = (await ask()).trim();
    if (v) return v;
  }
  throw new UsageError(`missing required flag ${flag}${alt}`);
}

function validUrl(v: string): true | string {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? true : 'use an http(s) URL';
  } catch {
    return 'not a URL';
  }
}

export async function add(ctx: Ctx, name: string, opts: ProfilesAddOptions): Promise<number> {
  const { io } = ctx;
  const { isValidProfileName } = await import('../profiles.js');
  if (!isValidProfileName(name))
    throw new UsageError(`invalid profile name "${name}" (letters, digits, . _ -, up to 64)`);
  const key = await required(
    ctx,
    opts.key ?? io.env.PARTNER_KEY,
    '--key',
    () => io.prompter.input({ message: 'Partner key (pk_…):' }),
    ' (or PARTNER_KEY)',
  );
  let secret: string | undefined;
  if (opts.secret === '-') secret = (await readStdin(io, '--secret -')).trim();
  else if (opts.secret !== undefined) secret = opts.secret;
  else if (io.env.PARTNER_SECRET) secret = io.env.PARTNER_SECRET;
  else if (canPrompt(io))
    secret = (await io.prompter.password({ message: 'Partner secret (hidden):' })).trim();
  if (!secret)
    throw new UsageError('missing required flag --secret (or PARTNER_SECRET, or --secret - to read stdin)');
  const baseUrl = await required(
    ctx,
    ctx.globals.baseUrl ?? io.env.PARTNER_BASE_URL,
    '--base-url',
    () => io.prompter.input({ message: 'Base URL:', default: 'http://127.0.0.1:8787', validate: validUrl }),
    ' (or PARTNER_BASE_URL)',
  );
  const urlOk = validUrl(baseUrl);
  if (urlOk !== true) throw new UsageError(`--base-url: ${urlOk} ("${baseUrl}")`);
  const profile: Profile = {
    name,
    base_url: baseUrl.replace(/\/+$/, ''),
    key,
    secret,
    ...(opts.webhookSecret !== undefined ? { webhook_secret: opts.webhookSecret } : {}),
  };
  if (opts.defaultBrand !== undefined) profile.default_brand_id = opts.defaultBrand;
  if (opts.defaultBranch !== undefined) profile.default_branch_id = opts.defaultBranch;
  const where = await chosenStorage(ctx, opts.storage);
  const s = await store(ctx);
  const saved = s.save(profile, { makeDefault: opts.default, storage: where.storage });
  const isDefault = s.defaultName() === name;
  const view = profileView(
    { ...profile, ...(saved.storage === 'keyring' ? { storage: 'keyring' } : {}) },
    isDefault,
  );
  if (ctx.json) io.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
  io.stderr.write(
    wrapForTerminal(
      `Saved profile ${name} (key ${key}, secret ${maskSecret(secret)})${isDefault ? ' as the default' : ''} to ${s.path}\n${storageLine(saved, s.path, where.reason)}\n`,
      wrapColumns(io, 'stderr'),
    ),
  );
  for (const w of saved.warnings) io.stderr.write(`warning: ${w}\n`);
  return 0;
}

export async function list(ctx: Ctx): Promise<number> {
  const s = await store(ctx);
  const def = s.defaultName();
  const views = s.list().map((p) => profileView(p, p.name === def));
  const { io } = ctx;
  if (ctx.json) {
    io.stdout.write(`${JSON.stringify(views, null, 2)}\n`);
    return 0;
  }
  if (!io.stdoutIsTTY) {
    for (const v of views)
      io.stdout.write(
        `${v.name}\t${v.base_url}\t${v.key}\t${v.secret ?? ''}\t${v.default ? 'default' : ''}\t${v.storage}\n`,
      );
    return 0;
  }
  if (views.length === 0) {
    io.stdout.write(
      'No profiles. Add one with `partner profiles add NAME --key K --secret S --base-url URL`.\n',
    );
    return 0;
  }
  const { renderHuman } = await import('../output/human.js');
  const cols = (io.stdout as { columns?: number }).columns;
  renderHuman(io.stdout, views, {
    json: false,
    tty: true,
    color: ctx.color,
    now: io.clock.now(),
    opId: 'profilesList',
    width: cols && cols > 20 ? cols - 1 : undefined,
  });
  const inKeyring = views.some((v) => v.storage === 'keyring');
  io.stdout.write(
    `storage: file = ${s.path} (mode 0600)${inKeyring ? '; keyring = the OS keyring, service "partner"' : ''}\n`,
  );
  return 0;
}

export async function show(ctx: Ctx, name: string | undefined): Promise<number> {
  const s = await store(ctx);
  const wanted = name ?? ctx.globals.profile ?? (ctx.io.env.PARTNER_PROFILE || undefined) ?? s.defaultName();
  if (!wanted)
    throw new UsageError(
      'no profiles yet: add one with `partner profiles add NAME --key K --secret S --base-url URL`',
    );
  const p = s.get(wanted);
  if (!p) throw noSuchProfile(s, wanted);
  // A keyring profile's entry is read to show it masked (and to show that it is there).
  let secrets: { secret?: string | undefined; webhook_secret?: string | undefined } = p;
  let unreadable: string | undefined;
  if (storageOf(p) === 'keyring') {
    try {
      secrets = s.secrets(p.name);
    } catch (err) {
      unreadable = (err as Error).message;
      secrets = {};
    }
  }
  const view = profileView(p, s.defaultName() === p.name, secrets);
  const { io } = ctx;
  if (ctx.json) {
    io.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
  } else {
    const { renderHuman } = await import('../output/human.js');
    // On a terminal one line says where the secret lives: `secret  keyring · sk_…x9f2`.
    const { storage, ...rest } = view;
    const where = storage === 'keyring' ? 'keyring' : 'file (0600)';
    const shown = io.stdoutIsTTY
      ? { ...rest, secret: view.secret ? `${where} · ${view.secret}` : `${where} · (cannot be read here)` }
      : view;
    renderHuman(io.stdout, shown, {
      json: false,
      tty: io.stdoutIsTTY,
      color: ctx.color,
      now: io.clock.now(),
    });
  }
  if (unreadable) io.stderr.write(`warning: ${unreadable}\n`);
  if (
    name === undefined &&
    (io.env.PARTNER_KEY || io.env.PARTNER_BASE_URL) &&
    ctx.globals.profile === undefined
  ) {
    io.stderr.write('note: PARTNER_KEY / PARTNER_BASE_URL are set and take precedence over this profile\n');
  }
  return 0;
}

export async function move(ctx: Ctx, name: string, to: 'keyring' | 'file'): Promise<number> {
  if (to !== 'keyring' && to !== 'file') throw new UsageError('--to must be keyring or file');
  const s = await store(ctx);
  if (!s.get(name)) throw noSuchProfile(s, name);
  const moved = s.move(name, to);
  const { io } = ctx;
  if (ctx.json) {
    const p = s.get(name)!;
    io.stdout.write(
      `${JSON.stringify(profileView(p, s.defaultName() === name, s.secrets(name)), null, 2)}\n`,
    );
  }
  if (!moved.changed) io.stderr.write(`Profile ${name}: the secret is already in the ${to}\n`);
  else
    io.stderr.write(
      `Moved the secret of profile ${name} to the ${to === 'keyring' ? `OS keyring (${moved.keyring})` : `file ${s.path} (mode 0600)`}; the ${to === 'keyring' ? 'file' : 'keyring'} no longer holds it\n`,
    );
  for (const w of moved.warnings) io.stderr.write(`warning: ${w}\n`);
  return 0;
}

export async function use(ctx: Ctx, name: string): Promise<number> {
  const s = await store(ctx);
  if (!s.get(name)) throw noSuchProfile(s, name);
  s.use(name);
  ctx.io.stderr.write(`Default profile is now ${name}\n`);
  return 0;
}

export async function remove(ctx: Ctx, name: string, yes: boolean): Promise<number> {
  const s = await store(ctx);
  if (!s.get(name)) throw noSuchProfile(s, name);
  if (!yes) {
    if (!canPrompt(ctx.io))
      throw new UsageError(`remove profile ${name}: pass --yes to confirm (no terminal to ask on)`);
    if (
      !(await ctx.io.prompter.confirm({
        message: `Remove profile ${name} and its stored secret?`,
        default: false,
      }))
    ) {
      ctx.io.stderr.write('Cancelled.\n');
      return 1;
    }
  }
  s.remove(name, { onKeyringError: (m) => ctx.io.stderr.write(`warning: ${m}\n`) });
  ctx.io.stderr.write(`Removed profile ${name}\n`);
  return 0;
}
