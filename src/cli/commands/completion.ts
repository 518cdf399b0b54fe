import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { Action } from './action.js';

// Shell completion: `partner completion SHELL` prints a script (completion-scripts.ts) that calls
// the hidden `partner __complete WORDS…` (completion-words.ts); both load only when used.

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
  action(cmd, {
    options: {},
    async run(ctx, _opts, args) {
      const { SCRIPTS } = await import('./completion-scripts.js');
      const script = SCRIPTS[args[0]!];
      if (!script) throw new UsageError(`SHELL must be bash, zsh or fish, got "${args[0]}"`);
      ctx.io.stdout.write(script);
      return 0;
    },
  });
}
