import { type Command, Option } from 'commander';
import type { Manifest, ManifestOp } from '../manifest/types.js';
import { deriveCommand, type OperationCommand } from './derive.js';
import { OVERRIDES } from './overrides.js';
import type { Action } from './action.js';

// Puts the derived commands into the commander tree. Cheap on purpose: no zod, no client, the
// run step is imported when a command actually runs.

const GROUPS: Readonly<Record<string, string>> = {
  brands: 'Brands of your business',
  branches: 'Branches (stores)',
  providers: 'Marketplaces and aggregators',
  'price-groups': 'Price groups',
  dictionaries: 'Reference data: countries, cities, currencies, payment types',
  orders: 'Orders: list, read, change status, comment',
  menu: 'Menus: read, author, sync and publish',
  items: 'Live item state at a branch: availability, snooze, stock',
  'oos-activity': 'Out-of-stock history',
  webhooks: 'Webhooks',
  operator: 'Operator API of a local server: businesses, credentials, webhooks, simulated orders',
};

const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

/** Finds or creates the group command for `path` under `root`. */
export function group(root: Command, path: readonly string[]): Command {
  let cur = root;
  for (const name of path) {
    let next = cur.commands.find((c) => c.name() === name);
    if (!next) {
      next = cur.command(name).summary(GROUPS[name] ?? `${name} commands`);
      next.description(GROUPS[name] ?? `${name} commands`);
      if (name === 'operator' && cur === root) {
        next
          .option(
            '--data <dir>',
            'data dir of the local server (default $PARTNER_DATA_DIR or the per-user data folder)',
          )
          .option('--server <url>', 'operator API base URL (with --token)')
          .option('--token <token>', 'operator token (with --server)');
      }
    }
    cur = next;
  }
  return cur;
}

function usageArg(name: string): string {
  return name.toUpperCase();
}

export function registerOperation(parent: Command, spec: OperationCommand, action: Action): Command {
  const { op } = spec;
  const name = spec.path.at(-1)!;
  const cmd = parent.command(name).summary(op.summary.split(/(?<=\.)\s|;\s/)[0]!);
  const scopes = op.scopes.length ? `\nScope: ${op.scopes.join(' or ')}` : '';
  cmd.description(`${op.summary}\n\n${op.method} ${op.path}${scopes}`);
  for (const a of spec.args) cmd.argument(`<${a.label}>`, a.field.description ?? a.name);
  for (const a of spec.override?.args ?? []) {
    const n = `${usageArg(a.name)}${a.variadic ? '...' : ''}`;
    cmd.argument(a.optional ? `[${n}]` : `<${n}>`, a.description);
  }
  for (const f of spec.flags) {
    if (f.kind === 'boolean') {
      cmd.option(`--${f.name}`, `${f.description}`);
      cmd.option(`--no-${f.name}`, `set ${f.field.name} to false`);
    } else if (f.kind === 'list') {
      cmd.option(`--${f.name} <${f.valueName}>`, f.description, collect);
    } else {
      cmd.option(`--${f.name} <${f.valueName}>`, f.description);
    }
    for (const alias of f.aliases) {
      const o = new Option(`--${alias} <${f.valueName}>`).hideHelp();
      if (f.kind === 'list') o.argParser(collect);
      cmd.addOption(o);
    }
  }
  for (const o of spec.override?.options ?? []) cmd.option(o.flags, o.description);
  if (spec.bodyOption === 'data')
    cmd.option(
      '--data <json>',
      'the whole request body: JSON, @FILE or - for stdin (flags override its fields)',
    );
  if (spec.bodyOption === 'body')
    cmd.option(
      '--body <json>',
      'the whole request body: JSON, @FILE or - for stdin (flags override its fields)',
    );
  if (spec.all) cmd.option('--all', 'fetch every page (paced under the rate limit); --json prints one array');
  if (spec.confirm) cmd.option('-y, --yes', 'do not ask for confirmation');
  if (spec.idempotencyKey)
    cmd.option('--idempotency-key <key>', 'Idempotency-Key to send (default: a fresh UUID)');
  if (op.cli) cmd.addHelpText('after', `\nExample:\n  $ ${op.cli.example}\n`);
  action(cmd, async (ctx, args, opts) => {
    const { runOperation } = await import('./run-operation.js');
    return runOperation(ctx, spec, args, opts);
  });
  return cmd;
}

/** Registers a command for every operation of the manifest that has a CLI name. */
export function registerOperations(
  root: Command,
  manifest: Manifest,
  action: Action,
  only?: (op: ManifestOp) => boolean,
): void {
  for (const op of manifest.ops) {
    if (!op.cli || (only && !only(op))) continue;
    const override = OVERRIDES[op.id];
    const parent = group(root, op.cli.command.slice(0, -1));
    if (override?.replace) {
      override.replace(parent, op, action);
      continue;
    }
    const spec = deriveCommand(op, override);
    if (spec) registerOperation(parent, spec, action);
  }
}
