import type { Command } from 'commander';
import type { Action } from './action.js';

export function registerOpenApi(root: Command, action: Action): void {
  const cmd = root
    .command('openapi')
    .summary('Print the OpenAPI 3.1 document (offline)')
    .description(
      'Print the OpenAPI 3.1 document of the partner API, derived from the operation table (no server needed).',
    );
  cmd.addHelpText('after', '\nExample:\n  $ partner openapi > openapi.json\n');
  action(cmd, {
    options: {},
    async run(ctx) {
      const { buildOpenApi } = await import('../../contract/openapi.js');
      ctx.io.stdout.write(`${JSON.stringify(buildOpenApi(__PARTNER_VERSION__), null, 2)}\n`);
      return 0;
    },
  });
}
