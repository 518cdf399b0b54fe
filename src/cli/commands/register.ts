import { type Command, Option } from 'commander';
import type { Manifest, ManifestOp } from '../manifest/types.js';
import { deriveCommand, type OperationCommand } from './derive.js';
import { OVERRIDES } from './overrides.js';
import type { Action } from './action.js';

// Puts the derived commands into the commander tree. Cheap on purpose: no zod, no client, the
// run step is imported when a command actually runs.

// What each group holds, by its path: shown in the parent's command list and atop its help.
const GROUPS: Readonly<Record<string, string>> = {
  brands: 'Brands of your business: list, create, update, visibility',
  branches: 'Branches (stores): list, get, create, update, visibility',
  providers: 'Marketplaces and aggregators; their ids key prices and visibilities',
  'price-groups': 'Price groups (price tiers of branches): list, create, replace, update, delete',
  dictionaries: 'Reference data: countries, cities, currencies, payment types',
  orders: 'Orders: the status dictionary, list, get, change status, comment, watch',
  menu: 'Menus: read, push a menu file, author, sync and publish',
  'menu sections': 'Sections of the business menu: create, edit, delete, enable in bulk',
  'menu categories':
    'Categories of the business menu: create, edit, delete, link to sections, enable in bulk',
  'menu items':
    'Items and modifiers of the business menu: create, edit, delete, put into categories, enable in bulk',
  'menu modifier-groups': 'Modifier groups: create, edit, delete, add or remove modifiers, offer on items',
  items: 'Live item state at a branch: availability, snooze, stock',
  'oos-activity': 'Out-of-stock history (up to 90 days): summaries and every change',
  webhooks: 'Webhooks: the URLs registered for your business, and offline sign/verify',
  operator:
    'Operator API of a local server: businesses, credentials, webhooks, simulated orders, request log',
  'operator businesses': 'Businesses (tenants) of the local server: list, create',
  'operator credentials': 'Partner credentials: issue, list, rotate, revoke, change scopes and rate limit',
  'operator orders': 'Simulated marketplace orders: create one, replace its cart, set any status',
  'operator webhooks': 'Webhook registrations, secrets, the delivery log and replays',
  'operator requests': "The local server's request log: recent requests, one in full with its bodies",
};

/** The description of the group at `path` (a plain fallback for a group added without one). */
function groupDescription(path: readonly string[]): string {
  return GROUPS[path.join(' ')] ?? `${path.at(-1)}: ${path.join(' ')} operations`;
}

/**
 * A command's one-line summary from an operation's summary: its first clause (up to a `;` or a
 * sentence end outside parentheses and backticks), without parentheticals when still long. The
 * old cut at the first `;` split "… (ISO 8601, inclusive; default …)" inside the parenthesis.
 */
function shortSummary(text: string, max = 60): string {
  let depth = 0;
  let tick = false;
  let end = text.length;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '`') tick = !tick;
    else if (tick) continue;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && (ch === ';' || (ch === '.' && /\s/.test(text[i + 1] ?? '')))) {
      end = i;
      break;
    }
  }
  let out = text.slice(0, end).trim();
  if (out.length > max) {
    const bare = out
      .replace(/\s*\([^()]*\)/g, '')
      .replace(/\s+,/g, ',')
      .trim();
    if (bare) out = bare;
  }
  return out;
}

const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

/** Names from the root (excluded) down to `cmd`. */
function pathOf(cmd: Command): string[] {
  const out: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) out.unshift(c.name());
  return out;
}

/** Finds or creates the group command for `path` under `root`. */
export function group(root: Command, path: readonly string[]): Command {
  let cur = root;
  for (const name of path) {
    let next = cur.commands.find((c) => c.name() === name);
    if (!next) {
      const text = groupDescription([...pathOf(cur), name]);
      next = cur.command(name).summary(text);
      next.description(text);
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

function registerOperation(parent: Command, spec: OperationCommand, action: Action): Command {
  const { op } = spec;
  const name = spec.path.at(-1)!;
  const cmd = parent.command(name).summary(shortSummary(op.summary));
  const scopes = op.scopes.length ? ` · scope ${op.scopes.join(' or ')}` : '';
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
  if (spec.all) cmd.option('--all', 'fetch every page (paced under the rate limit), printed as one page');
  if (spec.confirm) cmd.option('-y, --yes', 'do not ask for confirmation');
  if (spec.idempotencyKey)
    cmd.option('--idempotency-key <key>', 'Idempotency-Key to send (default: a fresh UUID)');
  if (op.cli) cmd.addHelpText('after', `\nExample:\n  $ ${op.cli.example}\n`);
  // A derived command's flags come from its operation: run-operation reads them through the
  // FlagSpecs derive.ts made from the contract, not through a schema of ours.
  action(cmd, {
    options: {},
    async run(ctx, _opts, args, c) {
      const { runOperation } = await import('./run-operation.js');
      return runOperation(ctx, spec, args, c.optsWithGlobals());
    },
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
