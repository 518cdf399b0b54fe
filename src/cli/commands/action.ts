import type { Command } from 'commander';
import type { Ctx } from '../context.js';
import type { OptionsOf, OptionsSchema } from './options.js';

/**
 * What a command's declaration gives `action`: the schema of its options (commands/options.ts),
 * read before anything runs, and the run function, which receives them typed, with the
 * positional arguments (variadics flattened).
 */
interface CommandSpec<S extends OptionsSchema> {
  options: S;
  run(ctx: Ctx, opts: OptionsOf<S>, args: string[], cmd: Command): Promise<number | undefined>;
}

/** Attaches a CommandSpec to a commander command (program.ts supplies the implementation). */
export type Action = <S extends OptionsSchema>(cmd: Command, spec: CommandSpec<S>) => void;
