import type { Command } from 'commander';
import type { Action } from './action.js';
import { ids, int, on, type OptionsOf, optional, orDefault, text } from './options.js';
import { group } from './register.js';

// `partner menu push FILE`, `partner menu diff FILE` and `partner menu schema`: registered next to the derived `menu`
// commands (neither name is an operation, so nothing collides). Only commander here: the flow
// (yaml, zod, the client) loads when the command runs.

const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

const menuDiffOptions = {
  brand: optional(int()),
  branch: optional(ids),
  state: optional(text),
  resetState: on,
  exitCode: on,
};
export type MenuDiffOptions = OptionsOf<typeof menuDiffOptions>;

const menuPushOptions = {
  brand: optional(int()),
  branch: optional(ids),
  state: optional(text),
  resetState: on,
  dryRun: on,
  yes: on,
  concurrency: orDefault(int(1, 16), 4),
  republish: on,
};
export type MenuPushOptions = OptionsOf<typeof menuPushOptions>;

export function registerMenuPush(program: Command, action: Action): void {
  const menu = group(program, ['menu']);

  const push = menu
    .command('push')
    .summary('Push a menu file (YAML or JSON) to a brand: create or fix what differs, then sync and publish')
    .description(
      'Declarative, resumable menu push (docs/menu-push.md). Validates FILE, reads the business menu, plans only\n' +
        'the missing or changed steps in the spec order (sections, categories, links, items, links, modifier groups,\n' +
        'modifiers, links, group-to-item links, sync, publish) and runs them paced under the rate limit. A state file\n' +
        'per server, brand, branch set and FILE (in $PARTNER_CONFIG_DIR/menu-push, else ~/.local/state/partner/menu-push)\n' +
        'maps its keys to ids, so an interrupted push resumes without duplicates.\n' +
        'On a terminal it shows the plan and asks first; without one it proceeds (removing links needs --yes).',
    )
    .argument('<FILE>', 'menu file, YAML or JSON (format: docs/menu-push.md, docs/menu-file.schema.json)')
    .option('--brand <id>', "brand to push to (default: the profile's default brand)")
    .option(
      '--branch <id>',
      'sync and publish only this branch (repeat, or 1,2); default every branch of the brand',
      collect,
    )
    .option('--dry-run', 'print the plan and write nothing')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--state <file>', 'keep the push state in this file instead (default: the per-user state dir)')
    .option(
      '--reset-state',
      'forget the recorded ids and any unfinished push; keys are matched again by SKU and title',
    )
    .option(
      '--concurrency <n>',
      'requests in flight at once, 1–16 (default 4); pacing keeps them under the rate limit',
    )
    .option('--republish', 'sync and publish even when nothing changed');
  push.addHelpText(
    'after',
    '\nExamples:\n  $ partner menu push menu.yaml --brand 12 --dry-run\n  $ partner menu push menu.yaml --brand 12 --branch 34 --yes --json\n\nExit codes: as every command; 130 when interrupted (run it again to resume).\n',
  );
  action(push, {
    options: menuPushOptions,
    run: async (ctx, opts, args) => (await import('./menu-run.js')).runMenuPush(ctx, args, opts),
  });

  const diff = menu
    .command('diff')
    .summary('Show what `menu push FILE` would change (same planner, no writes)')
    .description(
      'Compares FILE with the business-level menu of the brand and prints the steps a push would run:\n' +
        '+ create / link, ~ update, - unlink, » sync and publish. --json prints the plan as an object.',
    )
    .argument('<FILE>', 'menu file, YAML or JSON')
    .option('--brand <id>', "brand to compare with (default: the profile's default brand)")
    .option(
      '--branch <id>',
      'the branches a push would sync and publish (as for push: its state is per branch set)',
      collect,
    )
    .option('--state <file>', 'read the push state from this file (default: the per-user state dir)')
    .option('--reset-state', 'plan as if no push state were recorded')
    .option('--exit-code', 'exit 1 when a push would change something (for CI)');
  diff.addHelpText('after', '\nExample:\n  $ partner menu diff menu.yaml --brand 12\n');
  action(diff, {
    options: menuDiffOptions,
    run: async (ctx, opts, args) => (await import('./menu-run.js')).runMenuDiff(ctx, args, opts),
  });

  const schema = menu
    .command('schema')
    .summary('Print the JSON Schema of the menu file (for editors; docs/menu-file.schema.json)')
    .description(
      'Prints the JSON Schema (draft 2020-12) of the menu file that `menu push` and `menu diff` read.',
    );
  schema.addHelpText('after', '\nExample:\n  $ partner menu schema > menu-file.schema.json\n');
  action(schema, {
    options: {},
    async run(ctx) {
      const { menuFileJsonSchema } = await import('../../menu/schema.js');
      ctx.io.stdout.write(`${JSON.stringify(menuFileJsonSchema(), null, 2)}\n`);
      return 0;
    },
  });
}
