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

/** Candidates for the last word, given the words typed after `partner`. */
export function completeWords(root: Command, words: readonly string[]): string[] {
  const current = words.at(-1) ?? '';
  let cmd = root;
  for (const w of words.slice(0, -1)) {
    if (w.startsWith('-')) continue;
    const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub) cmd = sub;
  }
  const out: string[] = [];
  if (current.startsWith('-')) {
    for (let c: Command | null = cmd; c; c = c.parent) {
      for (const o of c.options) if (!o.hidden && o.long) out.push(o.long);
    }
    out.push('--help');
  } else {
    for (const c of cmd.commands) if (!(c as unknown as { _hidden?: boolean })._hidden) out.push(c.name());
  }
  return [...new Set(out)].filter((c) => c.startsWith(current)).sort();
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
