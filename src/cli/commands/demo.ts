import type { Command } from 'commander';
import type { Action } from './action.js';
import { duration, type OptionsOf } from './options.js';

// `partner demo`: a tour against a throw-away local server (demo-run.ts).

const demoOptions = { timeout: duration('must be a duration of at least 1ms, such as 10s', 1) };
export type DemoOptions = OptionsOf<typeof demoOptions>;

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
  action(cmd, {
    options: demoOptions,
    run: async (ctx, opts) => (await import('./demo-run.js')).runDemo(ctx, opts),
  });
}
