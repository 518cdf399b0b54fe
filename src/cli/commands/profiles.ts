import { type Command, Option } from 'commander';
import type { Action } from './action.js';
import { int, oneOf, on, type OptionsOf, optional, text } from './options.js';

// `partner profiles add|list|use|remove|show|move` (docs/cli.md): registration only; the bodies
// (profiles-run.ts) load when one runs, so start-up does not parse them.

const run = () => import('./profiles-run.js');

const profilesAddOptions = {
  key: optional(text),
  /** `-` reads it from stdin. */
  secret: optional(text),
  webhookSecret: optional(text),
  defaultBrand: optional(int()),
  defaultBranch: optional(int()),
  default: on,
  storage: optional(oneOf(['keyring', 'file'])),
};
export type ProfilesAddOptions = OptionsOf<typeof profilesAddOptions>;
const profilesMoveOptions = { to: oneOf(['keyring', 'file']) };

/**
 * `summaryOnly`: the group without its subcommands, for runs of another command, where it only
 * appears in help (each registered command costs start-up time).
 */
export function registerProfiles(root: Command, action: Action, summaryOnly = false): void {
  const profiles = root
    .command('profiles')
    .summary('Stored credentials (key, secret, base URL) per profile')
    .description(
      'Stored credentials per profile, in a mode-0600 JSON file in $PARTNER_CONFIG_DIR or the per-user config folder; the secrets in the OS keyring where one can be reached (else in that file).\n\n' +
        'Precedence: flags (--profile, --base-url) > environment (PARTNER_PROFILE, PARTNER_BASE_URL, PARTNER_KEY, PARTNER_SECRET) > the default profile.',
    );
  if (summaryOnly) return;

  const addCmd = profiles
    .command('add')
    .summary('Add or replace a profile')
    .description(
      'Add or replace a profile. The secret comes from --secret, --secret - (stdin), PARTNER_SECRET, or a hidden prompt. The secrets go to the OS keyring where one can be reached, else to the config file (mode 0600); --storage chooses.',
    )
    .argument('<NAME>', 'profile name')
    .option('--key <key>', 'partner key (or PARTNER_KEY)')
    .option(
      '--secret <secret>',
      'partner secret; - reads it from stdin (or PARTNER_SECRET, or a hidden prompt)',
    )
    .option('--webhook-secret <secret>', 'webhook signing secret, for `partner listen`')
    .option('--default-brand <id>', 'brand used when a command needs one and none is given')
    .option('--default-branch <id>', 'branch used when a command needs one and none is given')
    .option('--default', 'make it the default profile')
    .addOption(
      new Option(
        '--storage <where>',
        'where the secrets go (default: the OS keyring when one can be reached, else the file)',
      ).choices(['keyring', 'file']),
    );
  addCmd.addHelpText(
    'after',
    '\nThe base URL comes from the global --base-url (or PARTNER_BASE_URL).\n\nExample:\n  $ printf %s "$SECRET" | partner profiles add prod --key pk_live_1a2b --secret - --base-url https://api.example.com --default\n',
  );
  action(addCmd, {
    options: profilesAddOptions,
    run: async (ctx, opts, args) => (await run()).add(ctx, args[0]!, opts),
  });

  const listCmd = profiles
    .command('list')
    .summary('List profiles (secrets masked)')
    .description('List profiles (secrets masked).');
  listCmd.addHelpText('after', '\nExample:\n  $ partner profiles list --json\n');
  action(listCmd, { options: {}, run: async (ctx) => (await run()).list(ctx) });

  const useCmd = profiles
    .command('use')
    .summary('Make a profile the default')
    .argument('<NAME>', 'profile name');
  useCmd
    .description('Make a profile the default.')
    .addHelpText('after', '\nExample:\n  $ partner profiles use prod\n');
  action(useCmd, { options: {}, run: async (ctx, _opts, args) => (await run()).use(ctx, args[0]!) });

  const removeCmd = profiles
    .command('remove')
    .summary('Remove a profile and its secret')
    .description('Remove a profile and its secret.')
    .argument('<NAME>', 'profile name')
    .option('-y, --yes', 'do not ask for confirmation');
  removeCmd.addHelpText('after', '\nExample:\n  $ partner profiles remove staging --yes\n');
  action(removeCmd, {
    options: { yes: on },
    run: async (ctx, opts, args) => (await run()).remove(ctx, args[0]!, opts.yes),
  });

  const showCmd = profiles
    .command('show')
    .summary('Show a profile (default: the active one), secret masked')
    .description('Show a profile (default: the one commands would use), secret masked.')
    .argument('[NAME]', 'profile name');
  showCmd.addHelpText('after', '\nExample:\n  $ partner profiles show local\n');
  action(showCmd, { options: {}, run: async (ctx, _opts, args) => (await run()).show(ctx, args[0]) });

  const moveCmd = profiles
    .command('move')
    .summary("Move a profile's secrets to the OS keyring or to the file")
    .description(
      "Move a profile's secrets (the secret and the webhook secret) to the OS keyring or to the mode-0600 file. The other place no longer holds them afterwards.",
    )
    .argument('<NAME>', 'profile name')
    .addOption(
      new Option('--to <where>', 'keyring or file').choices(['keyring', 'file']).makeOptionMandatory(),
    );
  moveCmd.addHelpText('after', '\nExample:\n  $ partner profiles move prod --to keyring\n');
  action(moveCmd, {
    options: profilesMoveOptions,
    run: async (ctx, opts, args) => (await run()).move(ctx, args[0]!, opts.to),
  });
}
