import { createHmac, timingSafeEqual } from 'node:crypto';

/** Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the UTF-8 bytes of the secret (spec §6.4). */
export function sign(secret: string, body: Uint8Array | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Constant-time check of a received `x-partner-signature` against the raw body. */
export function verify(
  secret: string,
  body: Uint8Array | string,
  signature: string | undefined | null,
): boolean {
  if (typeof signature !== 'string') return false;
  const given = signature.trim().toLowerCase();
  if (!HEX64.test(given)) return false;
  return timingSafeEqual(Buffer.from(sign(secret, body), 'hex'), Buffer.from(given, 'hex'));
}
