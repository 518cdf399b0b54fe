import type { Command } from 'commander';
import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';
import { readStdin } from '../input.js';
import { profileWebhookSecret } from '../profile-file.js';
import type { Action } from './action.js';
import { group } from './register.js';

// `partner webhooks sign|verify` (docs/webhooks.md): offline signatures over the exact bytes of a file.

async function bytes(ctx: Ctx, file: string): Promise<Buffer> {
  if (file === '-') return Buffer.from(await readStdin(ctx.io, 'FILE -'));
  const { readFile } = await import('node:fs/promises');
  const { resolve } = await import('node:path');
  try {
    return await readFile(resolve(ctx.io.cwd, file));
  } catch (err) {
    throw new UsageError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    );
  }
}

function secretOf(ctx: Ctx, opts: Record<string, unknown>): string {
  if (typeof opts.secret === 'string' && opts.secret !== '') return opts.secret;
  const name = ctx.globals.profile ?? (ctx.io.env.PARTNER_PROFILE || undefined);
  const fromProfile = profileWebhookSecret(ctx.io.configDir, ctx.io.env, name);
  if (fromProfile) return fromProfile;
  throw new UsageError('missing required flag --secret (or a profile saved with --webhook-secret)');
}

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
  action(sign, async (ctx, args, opts) => {
    const { sign: hmac } = await import('../../webhooks/signature.js');
    const signature = hmac(secretOf(ctx, opts), await bytes(ctx, args[0]!));
    ctx.io.stdout.write(ctx.json ? `${JSON.stringify({ signature }, null, 2)}\n` : `${signature}\n`);
    return 0;
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
  action(verify, async (ctx, args, opts) => {
    if (typeof opts.signature !== 'string') throw new UsageError('missing required flag --signature');
    const { verify: check } = await import('../../webhooks/signature.js');
    const valid = check(secretOf(ctx, opts), await bytes(ctx, args[0]!), opts.signature);
    ctx.io.stdout.write(
      ctx.json ? `${JSON.stringify({ valid }, null, 2)}\n` : `${valid ? 'valid' : 'invalid signature'}\n`,
    );
    return valid ? 0 : 1;
  });
}
