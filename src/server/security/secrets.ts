import crypto, { randomBytes, scrypt, scryptSync, timingSafeEqual, createHash } from 'node:crypto';

// Secrets at rest: scrypt with a per-secret salt. Verification is slow on purpose; the auth
// layer caches successful verifications so hashing is never on the hot path.

const N = 16384;
const R = 8;
const P = 1;
const LEN = 32;

function scryptAsync(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, LEN, { N, r: R, p: P }, (err, out) => (err ? reject(err) : resolve(out))),
  );
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(secret, salt);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/**
 * A stored hash of a random secret nobody knows: verifying a guess for an unknown key against it
 * costs what a wrong secret for a known key costs, so timing does not tell which keys exist.
 */
export function dummyHash(): string {
  const salt = randomBytes(16);
  const hash = scryptSync(randomBytes(24), salt, LEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash || Number(n) !== N || Number(r) !== R || Number(p) !== P)
    return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64'));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function newToken(prefix: string, bytes = 24): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

// One-shot hashing (Node ≥ 20.12) is half the cost of a Hash object: it runs on every request.
const oneShot = (crypto as { hash?: (alg: string, data: string, enc: 'buffer') => Buffer }).hash;

export function sha256(text: string): Buffer {
  return oneShot ? oneShot('sha256', text, 'buffer') : createHash('sha256').update(text).digest();
}

/** Constant-time equality of two strings of any length (compares their digests). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}
