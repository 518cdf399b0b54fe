import crypto, { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

// Secrets at rest. Partner secrets are issued by the server with 192 random bits: a slow password
// hash (meant for low-entropy human passwords) adds nothing against guessing them, so they are
// stored as HMAC-SHA-256 under a key the server holds (derived from the seal key: the data dir's
// secret.key on SQLite, the shared seal key on PostgreSQL, so every instance agrees). A copied
// database alone does not let anyone test a guess offline. Hashes of earlier versions (scrypt)
// still verify, and are rewritten as HMAC after their next successful check.

const PREFIX = 'hmac-sha256$';

/** The purpose the seal key's derived key is for (Sealer.derive): changing it orphans every hash. */
export const CREDENTIAL_SECRETS = 'partner credential secrets v1';

// The scrypt parameters of earlier versions (docs/api.md): only read, never written any more.
const SCRYPT = { N: 16384, r: 8, p: 1 } as const;
const SCRYPT_LEN = 32;

/** What `verify` found: whether the secret matched, and whether the stored hash is an old kind. */
interface Verified {
  ok: boolean;
  /** The same secret as HMAC, to store in place of an old (scrypt) hash that matched. */
  upgrade?: string;
}

export class SecretHasher {
  private readonly dummy: Buffer;

  constructor(private readonly key: Buffer) {
    this.dummy = randomBytes(32);
  }

  private mac(secret: string): Buffer {
    return createHmac('sha256', this.key).update(secret, 'utf8').digest();
  }

  hash(secret: string): string {
    return PREFIX + this.mac(secret).toString('base64');
  }

  /** Whether the hash is of the current kind (HMAC), so checking it is cheap. */
  static isCurrent(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  /**
   * Checks `secret` against a stored HMAC hash in constant time; a scrypt hash of an earlier
   * version is checked with scrypt (slow, off the event loop) and, when it matches, `upgrade`
   * holds its replacement. Anything else never matches.
   */
  async verify(secret: string, stored: string): Promise<Verified> {
    if (SecretHasher.isCurrent(stored)) return { ok: this.matches(secret, stored) };
    if (!(await verifyScrypt(secret, stored))) return { ok: false };
    return { ok: true, upgrade: this.hash(secret) };
  }

  /** The synchronous check of a current (HMAC) hash; false for any other kind. */
  matches(secret: string, stored: string): boolean {
    const expected = SecretHasher.isCurrent(stored)
      ? Buffer.from(stored.slice(PREFIX.length), 'base64')
      : undefined;
    const actual = this.mac(secret);
    if (expected === undefined || expected.length !== actual.length) {
      // Same work as a real comparison, so the time spent does not tell a malformed hash apart.
      timingSafeEqual(actual, this.dummy);
      return false;
    }
    return timingSafeEqual(actual, expected);
  }

  /**
   * For a key that does not exist: the same work as a wrong secret for one that does, so timing
   * does not tell which keys exist. Always false.
   */
  unknownKey(secret: string): false {
    timingSafeEqual(this.mac(secret), this.dummy);
    return false;
  }
}

/** Checks a scrypt hash of an earlier version (`scrypt$N$r$p$salt$hash`). */
function verifyScrypt(secret: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (
    alg !== 'scrypt' ||
    !salt ||
    !hash ||
    Number(n) !== SCRYPT.N ||
    Number(r) !== SCRYPT.r ||
    Number(p) !== SCRYPT.p
  )
    return Promise.resolve(false);
  const expected = Buffer.from(hash, 'base64');
  return new Promise((resolve, reject) =>
    scrypt(secret, Buffer.from(salt, 'base64'), SCRYPT_LEN, SCRYPT, (err, actual) =>
      err ? reject(err) : resolve(actual.length === expected.length && timingSafeEqual(actual, expected)),
    ),
  );
}

export function newToken(prefix: string, bytes = 24): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

// One-shot hashing (Node ≥ 20.12) is half the cost of a Hash object: it runs on every request.
const oneShot = (crypto as { hash?: (alg: string, data: string, enc: string) => Buffer | string }).hash;

function sha256(text: string): Buffer {
  return oneShot ? (oneShot('sha256', text, 'buffer') as Buffer) : createHash('sha256').update(text).digest();
}

/**
 * SHA-256 as base64 text, encoded by the one-shot itself: a third of the cost of a digest Buffer
 * turned into a string (240 against 770 ns for a Basic header), on every partner request.
 */
export function sha256Base64(text: string): string {
  return oneShot
    ? (oneShot('sha256', text, 'base64') as string)
    : createHash('sha256').update(text).digest('base64');
}

/** Constant-time equality of two strings of any length (compares their digests). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}
