import { type Command, Option } from 'commander';
import type { Action } from './action.js';
import { oneOf, on, onOff, type OptionsOf, optional, text, trimmed } from './options.js';

// `partner auth status|login` (docs/cli.md). Registration only: the bodies (auth-run.ts) load
// when one of them runs.

const authLoginOptions = {
  name: trimmed,
  key: trimmed,
  /** `-` reads it from stdin (the run does, once everything else is known). */
  secret: optional(text),
  webhookSecret: trimmed,
  storage: optional(oneOf(['keyring', 'file'])),
  default: onOff,
  yes: on,
};
export type AuthLoginOptions = OptionsOf<typeof authLoginOptions>;

/** `summaryOnly`: the group without its subcommands (see registerProfiles). */
export function registerAuth(root: Command, action: Action, summaryOnly = false): void {
  const auth = root
    .command('auth')
    .summary('Check the credential in use, or save one: status, login')
    .description(
      'Check the credential commands would use against the server (status), or save a credential as a profile after checking it (login).',
    );
  if (summaryOnly) return;

  const status = auth
    .command('status')
    .summary('Check the active credential: business, scopes, rate limit, what the flows lack')
    .description(
      'Check the credential commands would use (--profile, PARTNER_KEY/PARTNER_SECRET, or the default profile) against the server: whether it is valid (exit 3 when not), its business, rate limit and scopes, where its secret is stored, and which scopes the guided flows (bootstrap, orders watch, menu push) lack. Scopes are probed without side effects: one read, or one write the server refuses before doing anything, per scope.',
    );
  status.addHelpText('after', '\nExample:\n  $ partner auth status --json | jq .scopes.missing\n');
  action(status, {
    options: {},
    run: async (ctx) => (await import('./auth-run.js')).runAuthStatus(ctx),
  });

  const login = auth
    .command('login')
    .summary('Save a credential as a profile, checked against the server first')
    .description(
      'Save a credential as a profile, after checking it against the server (nothing is saved when the server refuses it). On a terminal it asks for what the flags do not give: the profile name, the base URL, the key and the secret (hidden). Without a terminal --name, --base-url, --key and --secret (or their environment variables) are required. The secrets go to the OS keyring where one can be reached, else to the config file (mode 0600).',
    )
    .option('--name <name>', 'profile name')
    .option('--key <key>', 'partner key (or PARTNER_KEY)')
    .option(
      '--secret <secret>',
      'partner secret; - reads it from stdin (or PARTNER_SECRET, or a hidden prompt)',
    )
    .option('--webhook-secret <secret>', 'webhook signing secret, for `partner listen`')
    .addOption(
      new Option(
        '--storage <where>',
        'where the secrets go (default: the OS keyring when one can be reached, else the file)',
      ).choices(['keyring', 'file']),
    )
    .option('--default', 'make it the default profile (on a terminal you are asked when another one is)')
    .option('--no-default', 'leave the default profile as it is')
    .option('-y, --yes', 'replace a profile of that name, and make it the default, without asking');
  login.addHelpText(
    'after',
    '\nThe base URL comes from the global --base-url (or PARTNER_BASE_URL),\nor the prompt.\n\nExamples:\n  $ partner auth login\n  $ printf %s "$SECRET" | partner auth login --name prod --base-url https://api.example.com --key pk_live_1a2b --secret -\n',
  );
  action(login, {
    options: authLoginOptions,
    run: async (ctx, opts) => (await import('./auth-run.js')).runAuthLogin(ctx, opts),
  });
}
