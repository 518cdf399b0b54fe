import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';
import { readStdin } from '../input.js';
import { profileWebhookSecret } from '../profile-file.js';
import type { WebhooksSignOptions, WebhooksVerifyOptions } from './webhooks.js';

// The runs of `partner webhooks sign|verify` (docs/webhooks.md): offline signatures over the
// exact bytes of a file.

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

function secretOf(ctx: Ctx, opts: { secret: string | undefined }): string {
  if (opts.secret) return opts.secret;
  const name = ctx.globals.profile ?? (ctx.io.env.PARTNER_PROFILE || undefined);
  const fromProfile = profileWebhookSecret(ctx.io.configDir, ctx.io.env, name);
  if (fromProfile) return fromProfile;
  throw new UsageError('missing required flag --secret (or a profile saved with --webhook-secret)');
}

export async function runWebhooksSign(ctx: Ctx, file: string, opts: WebhooksSignOptions): Promise<number> {
  const { sign: hmac } = await import('../../webhooks/signature.js');
  const signature = hmac(secretOf(ctx, opts), await bytes(ctx, file));
  ctx.io.stdout.write(ctx.json ? `${JSON.stringify({ signature }, null, 2)}\n` : `${signature}\n`);
  return 0;
}

export async function runWebhooksVerify(
  ctx: Ctx,
  file: string,
  opts: WebhooksVerifyOptions,
): Promise<number> {
  const { verify: check } = await import('../../webhooks/signature.js');
  const valid = check(secretOf(ctx, opts), await bytes(ctx, file), opts.signature);
  ctx.io.stdout.write(
    ctx.json ? `${JSON.stringify({ valid }, null, 2)}\n` : `${valid ? 'valid' : 'invalid signature'}\n`,
  );
  return valid ? 0 : 1;
}
