import type { Command } from 'commander';
import type { Action } from './action.js';
import { type OptionsOf, text, trimmed } from './options.js';
import { group } from './register.js';

// `partner webhooks sign|verify` (docs/webhooks.md): the declarations; the runs (webhooks-run.ts)
// load when one runs.

/** --secret: default the profile's webhook secret. */
const webhooksSignOptions = { secret: trimmed };
export type WebhooksSignOptions = OptionsOf<typeof webhooksSignOptions>;
const webhooksVerifyOptions = { secret: trimmed, signature: text };
export type WebhooksVerifyOptions = OptionsOf<typeof webhooksVerifyOptions>;

export function registerWebhookTools(root: Command, action: Action): void {
  const webhooks = group(root, ['webhooks']);
  const sign = webhooks
    .command('sign')
    .summary('Print the x-partner-signature of a file (offline)')
    .description(
      'Print the lowercase hex HMAC-SHA256 of the exact bytes of FILE (- for stdin), as x-partner-signature.',
    )
    .argument('<FILE>', 'the delivery body, byte for byte')
    .option('--secret <secret>', 'webhook_secret_key (default: the profile’s webhook secret)');
  sign.addHelpText('after', '\nExample:\n  $ partner webhooks sign --secret "$WEBHOOK_SECRET" body.json\n');
  action(sign, {
    options: webhooksSignOptions,
    run: async (ctx, opts, args) => (await import('./webhooks-run.js')).runWebhooksSign(ctx, args[0]!, opts),
  });

  const verify = webhooks
    .command('verify')
    .summary('Check an x-partner-signature against a file (offline); exit 1 when it does not match')
    .description(
      'Check a signature against the exact bytes of FILE (- for stdin), in constant time. Exit 0 valid, 1 invalid.',
    )
    .argument('<FILE>', 'the delivery body, byte for byte')
    .option('--secret <secret>', 'webhook_secret_key (default: the profile’s webhook secret)')
    .option('--signature <hex>', 'the x-partner-signature header value');
  verify.addHelpText(
    'after',
    '\nExample:\n  $ partner webhooks verify --secret "$WEBHOOK_SECRET" --signature 5f2b…c1 body.json\n',
  );
  action(verify, {
    options: webhooksVerifyOptions,
    run: async (ctx, opts, args) =>
      (await import('./webhooks-run.js')).runWebhooksVerify(ctx, args[0]!, opts),
  });
}
