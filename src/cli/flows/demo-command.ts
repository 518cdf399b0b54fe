import type { Command } from 'commander';
import type { Action } from '../commands/action.js';

// `partner demo`: a tour against a throw-away local server (src/cli/flows/demo.ts).

export function registerDemo(root: Command, action: Action): void {
  const cmd = root
    .command('demo')
    .summary('A tour against a throw-away local server: bootstrap, menu push, an order and its webhooks')
    .description(
      'Starts a local server in a temp dir (demo seed; your profiles and data are not touched), bootstraps, ' +
        'pushes the sample menu, registers an in-process webhook listener, simulates an order and walks it ' +
        'PLACED → ACCEPTED → READY → DELIVERED while printing the signed events as they arrive, then cleans up. ' +
        '--json prints the events as JSON lines (the narration goes to stderr).',
    )
    .option('--timeout <duration>', 'longest wait for each webhook event', '10s');
  cmd.addHelpText('after', '\nExamples:\n  $ partner demo\n  $ partner demo --json | jq .event_type\n');
  action(cmd, async (ctx, _args, opts) => {
    const { runDemo } = await import('./demo.js');
    return runDemo(ctx, opts);
  });
}
