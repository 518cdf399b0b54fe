/** `sk_AbCdEf…x9f2` → `sk_…x9f2`: enough to tell secrets apart, never enough to use one. */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return '';
  const prefix = /^[a-z]{1,6}_/.exec(secret)?.[0] ?? '';
  const tail = secret.length - prefix.length >= 12 ? secret.slice(-4) : '';
  return `${prefix}…${tail}`;
}
