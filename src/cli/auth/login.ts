import type { Ctx } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { readStdin } from '../input.js';
import { canPrompt, wrapColumns } from '../io.js';
import { wrapForTerminal } from '../output/text-width.js';
import { maskSecret } from '../mask.js';
import type { Profile } from '../profile-file.js';
import { chosenStorage, profileView, storageLine } from '../commands/profiles-run.js';

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

export async function runAuthLogin(ctx: Ctx, opts: Record<string, unknown>): Promise<number> {
  const { io } = ctx;
  const ask = canPrompt(io);
  const { openProfiles, isValidProfileName } = await import('../profiles.js');
  const store = openProfiles({ configDir: io.configDir, env: io.env });

  let name = str(opts.name);
  let baseUrl = str(ctx.globals.baseUrl) ?? str(io.env.PARTNER_BASE_URL);
  let key = str(opts.key) ?? str(io.env.PARTNER_KEY);
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

  if (existing && ask && opts.yes !== true) {
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
      opts.yes === true ||
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
    ...(str(opts.webhookSecret) ? { webhook_secret: str(opts.webhookSecret) } : {}),
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
