import type { Command } from 'commander';
import type { Ctx } from '../context.js';

/** A command body: receives the context, positional args (variadics flattened) and options. */
export type ActionFn = (
  ctx: Ctx,
  args: string[],
  opts: Record<string, unknown>,
  cmd: Command,
) => Promise<number | undefined>;

/** Attaches an ActionFn to a commander command (program.ts supplies the implementation). */
export type Action = (cmd: Command, fn: ActionFn) => void;
