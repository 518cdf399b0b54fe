import type { Scope } from '../../contract/scopes.js';

// Pure rules of Basic auth, scopes and rotation. Hashing lives in ../security/secrets.ts.

/** A verified partner credential, as handlers see it. */
export interface AuthedCredential {
  key: string;
  businessId: number;
  scopes: readonly string[];
  rateLimit: number;
}

interface BasicCredentials {
  key: string;
  secret: string;
}

/** `Basic base64(key:secret)` → parts, or undefined when missing or malformed (→ auth_missing). */
export function parseBasic(header: string | undefined): BasicCredentials | undefined {
  if (!header) return undefined;
  const m = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i <= 0 || i === decoded.length - 1) return undefined;
  return { key: decoded.slice(0, i), secret: decoded.slice(i + 1) };
}

/** The first scope of `required` the credential lacks all of, or undefined when any one grants. */
export function missingScope(held: readonly string[], required: readonly Scope[]): Scope | undefined {
  if (required.length === 0) return undefined;
  return required.some((s) => held.includes(s)) ? undefined : required[0];
}

export const DEFAULT_ROTATION_GRACE_S = 900;

/** Whether the previous secret of a rotated credential still works at `now`. */
export function previousSecretValid(prevValidUntil: number | null, now: number): boolean {
  return prevValidUntil !== null && now < prevValidUntil;
}
