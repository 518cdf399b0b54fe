import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Action } from './action.js';

// Shell completion: the scripts are thin wrappers around a hidden `partner __complete WORDS…`
// that walks the live command tree, so completions never drift from the commands.

const SCRIPTS: Record<string, string> = {
  bash: `# partner completion for bash: eval "$(partner completion bash)"
_partner_complete() {
  local IFS=$'\\n'
  COMPREPLY=( $(partner __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
}
complete -o default -F _partner_complete partner
`,
  zsh: `#compdef partner
# partner completion for zsh: source <(partner completion zsh)
_partner() {
  local -a candidates
  candidates=("\${(@f)$(partner __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -a candidates
}
compdef _partner partner
`,
  fish: `# partner completion for fish: partner completion fish | source
function __partner_complete
  set -l tokens (commandline -opc) (commandline -ct)
  partner __complete $tokens[2..-1] 2>/dev/null
end
complete -c partner -f -a '(__partner_complete)'
`,
};

/** Where completion finds values that depend on the machine (stored profile names). */
export interface CompletionContext {
  profiles(): string[];
}

const ALL_STATUSES = [
  'PLACED',
  'ACCEPTED',
  'CANCELLED',
  'READY',
  'DELIVERED',
  'SCHEDULED',
  'DRIVER_ASSIGNED',
  'DRIVER_ARRIVED',
  'PICKED_UP',
  'PENDING',
  'VOID',
];
const PARTNER_STATUSES = ['ACCEPTED', 'READY', 'DELIVERED', 'CANCELLED'];
const EVENT_TYPES = [
  'service.order.created.v2',
  'service.order.status.updated',
  'service.order.cart.updated',
];

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Values of an option (`--status` on `orders patch`…), or undefined when any text goes. */
function optionValues(cmd: Command, flag: string, ctx: CompletionContext): string[] | undefined {
  if (flag === '--profile') return ctx.profiles();
  const path = pathOf(cmd);
  if (flag === '--status') {
    if (path === 'orders patch') return PARTNER_STATUSES;
    if (path === 'orders list' || path === 'orders watch') return ALL_STATUSES;
  }
  if (flag === '--events' && path === 'listen') return EVENT_TYPES;
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag);
    if (o?.argChoices) return o.argChoices;
  }
  return undefined;
}

/** Values of the positional argument at `index` of `cmd`. */
function argumentValues(cmd: Command, index: number, ctx: CompletionContext): string[] | undefined {
  const path = pathOf(cmd);
  if (index === 0 && ['profiles use', 'profiles remove', 'profiles show'].includes(path))
    return ctx.profiles();
  if (index === 0 && path === 'completion') return Object.keys(SCRIPTS);
  return undefined;
}

/** Whether `flag` on `cmd` (or a parent) takes a value. */
function takesValue(cmd: Command, flag: string): boolean {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag || x.short === flag);
    if (o) return o.required || o.optional;
  }
  return false;
}

/**
 * Candidates for the last word, given the words typed after `partner`: subcommands, options,
 * and the values of options and arguments that have a known set (profiles, statuses, shells…).
 * Nothing for free text, which shells then complete as file names.
 */
export function completeWords(
  root: Command,
  words: readonly string[],
  ctx: CompletionContext = { profiles: () => [] },
): string[] {
  const current = words.at(-1) ?? '';
  let cmd = root;
  let positional = 0;
  const before = words.slice(0, -1);
  for (let i = 0; i < before.length; i++) {
    const w = before[i]!;
    if (w.startsWith('-')) {
      if (!w.includes('=') && takesValue(cmd, w)) i++; // its value is not a command word
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub) {
      cmd = sub;
      positional = 0;
    } else positional++;
  }
  const prev = before.at(-1);
  let out: string[] | undefined;
  let values = false;
  if (prev?.startsWith('-') && !prev.includes('=') && takesValue(cmd, prev)) {
    out = optionValues(cmd, prev, ctx) ?? [];
    values = true;
  } else if (current.startsWith('-')) {
    out = [];
    for (let c: Command | null = cmd; c; c = c.parent) {
      for (const o of c.options) if (!o.hidden && o.long) out.push(o.long);
    }
    out.push('--help');
  } else if (cmd.commands.length > 0) {
    out = [];
    for (const c of cmd.commands) if (!(c as unknown as { _hidden?: boolean })._hidden) out.push(c.name());
  } else {
    out = argumentValues(cmd, positional, ctx) ?? [];
    values = true;
  }
  // Values match in any case (`pi` → PICKED_UP); command and option names as typed.
  const starts = values
    ? (c: string) => c.toLowerCase().startsWith(current.toLowerCase())
    : (c: string) => c.startsWith(current);
  return [...new Set(out)].filter(starts).sort();
}

export function registerCompletion(root: Command, action: Action): void {
  const cmd = root
    .command('completion')
    .summary('Print a shell completion script (bash, zsh, fish)')
    .description('Print a shell completion script.')
    .argument('<SHELL>', 'bash, zsh or fish');
  cmd.addHelpText(
    'after',
    '\nExamples:\n  $ eval "$(partner completion bash)"\n  $ source <(partner completion zsh)\n  $ partner completion fish | source\n',
  );
  action(cmd, async (ctx, args) => {
    const script = SCRIPTS[args[0]!];
    if (!script) throw new UsageError(`SHELL must be bash, zsh or fish, got "${args[0]}"`);
    ctx.io.stdout.write(script);
    return 0;
  });
}
