import type { Command } from 'commander';
import type { Action } from './action.js';
import { int, type OptionsOf, optional } from './options.js';

// `partner bootstrap`: the spec's bootstrap sequence as a guided flow (bootstrap-run.ts).

const bootstrapOptions = { brand: optional(int()), branch: optional(int()) };
export type BootstrapOptions = OptionsOf<typeof bootstrapOptions>;

export function registerBootstrap(root: Command, action: Action): void {
  const cmd = root
    .command('bootstrap')
    .summary('Check the credential and show the business, brands, branches, providers and statuses')
    .description(
      'The bootstrap sequence of the spec as a guided flow: checks which scopes the credential lacks, then shows ' +
        'the business, its brands, branches (with opening hours), providers and the order-status dictionary. ' +
        'On a terminal it offers to save a default brand and branch on the profile; --brand/--branch save them ' +
        'without asking. --json prints everything found as one object.',
    )
    .option('--brand <id>', 'save this brand as the default of the profile')
    .option('--branch <id>', 'save this branch as the default of the profile');
  cmd.addHelpText(
    'after',
    '\nExamples:\n  $ partner bootstrap\n  $ partner bootstrap --brand 1 --branch 2\n  $ partner bootstrap --json | jq .scopes.missing\n',
  );
  action(cmd, {
    options: bootstrapOptions,
    run: async (ctx, opts) => (await import('./bootstrap-run.js')).runBootstrap(ctx, opts),
  });
}
