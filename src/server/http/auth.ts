import { type AuthedCredential, missingScope, parseBasic, previousSecretValid } from '../domain/auth.js';
import {
  type AuthThrottleLimits,
  DEFAULT_AUTH_THROTTLE,
  retryAfter,
  spend,
} from '../domain/auth-throttle.js';
import type { Bucket, RateDecision } from '../domain/rate-limit.js';
import { SecretHasher, safeEqual, sha256Base64 } from '../security/secrets.js';
import type { Scope } from '../../contract/scopes.js';
import type { Begun } from '../store/idempotency-repo.js';
import type { Store } from '../store/store.js';
import { ApiError } from '../errors.js';

export type { AuthedCredential };

/** What a partner request starts with: who asks, its rate decision, and maybe its key's claim. */
export interface Admitted {
  cred: AuthedCredential;
  rate: RateDecision;
  /** The claim of the request's Idempotency-Key, when the admit took it (SharedCredentialAuth). */
  begun?: Begun;
}

interface CacheEntry {
  cred: AuthedCredential;
  revoked: boolean;
  /** Set when the header carries a rotated-out secret: it stops working then. */
  validUntil: number | null;
}

const MAX_CACHE = 10_000;
/** Failure buckets kept per key and per address; the oldest go first beyond this. */
const MAX_BUCKETS = 10_000;

function remember(map: Map<string, Bucket>, id: string, b: Bucket): void {
  map.delete(id);
  map.set(id, b);
  if (map.size > MAX_BUCKETS) map.delete(map.keys().next().value!);
}

/**
 * Verifies Basic credentials against their stored keyed hashes (security/secrets.ts) and caches
 * successes by a digest of the header: a cached request costs one one-shot SHA-256 and no store
 * read. Every operator change to a credential calls `invalidate`, so a revoke, rotation or scope
 * change takes effect on the next request.
 *
 * Guessing is bounded: failed verifications spend a budget per key and per client address, and
 * while either is spent requests answer 429 before any verification. A cached credential never
 * reaches it, so a flood of wrong guesses does not slow it down. A hash of an earlier version
 * (scrypt, tens of ms and a 16 MiB buffer) is checked at most `maxConcurrentHashes` at a time (a
 * bounded queue waits, beyond it 429) and rewritten as HMAC once it matches.
 */
export class CredentialAuth {
  private readonly cache = new Map<string, CacheEntry>();
  /** Bumped by every operator change to a credential key. */
  private readonly generations = new Map<string, number>();
  private readonly keyFailures = new Map<string, Bucket>();
  private readonly addressFailures = new Map<string, Bucket>();
  private readonly limits: AuthThrottleLimits;
  private hashing = 0;
  private readonly waiting: (() => void)[] = [];
  /** What tests and operators can read: verifications run, scrypt checks at once at most, 429s. */
  readonly stats = { verifications: 0, maxConcurrent: 0, throttled: 0 };

  constructor(
    protected readonly store: Store,
    private readonly secrets: SecretHasher,
    private readonly now: () => number,
    limits: Partial<AuthThrottleLimits> = {},
  ) {
    this.limits = { ...DEFAULT_AUTH_THROTTLE, ...limits };
  }

  async authenticate(header: string | undefined, client = ''): Promise<AuthedCredential> {
    return this.credentialOf(header, client);
  }

  /**
   * Who the header's credentials are: at once from the cache, a promise when they must be verified.
   * Throws (auth_revoked) or rejects. A shared store's auth checks the credential's row first.
   */
  protected credentialOf(
    header: string | undefined,
    client: string,
  ): AuthedCredential | Promise<AuthedCredential> {
    const id = header ? sha256Base64(header) : '';
    return this.fromCache(id) ?? this.verifyHeader(id, header, client);
  }

  /**
   * A header found in the cache has been parsed and verified before: its credential, or
   * auth_revoked (thrown); undefined for a miss (verifyHeader).
   */
  private fromCache(id: string): AuthedCredential | undefined {
    const entry = this.live(id);
    if (entry?.revoked) throw new ApiError('auth_revoked');
    return entry?.cred;
  }

  /** The cache's entry for a header digest, unless its rotated-out secret has expired (then gone). */
  private live(id: string): CacheEntry | undefined {
    const entry = this.cache.get(id);
    if (entry !== undefined && entry.validUntil !== null && this.now() >= entry.validUntil) {
      this.cache.delete(id);
      return undefined;
    }
    return entry;
  }

  /** A miss: parse, throttle, verify against the stored hash, cache the result. */
  private async verifyHeader(
    id: string,
    header: string | undefined,
    client: string,
  ): Promise<AuthedCredential> {
    const parsed = parseBasic(header);
    if (!parsed) {
      throw new ApiError(
        'auth_missing',
        'Authorization header is missing or malformed; expected Basic base64(key:secret)',
        undefined,
        {
          'www-authenticate': 'Basic realm="partner"',
        },
      );
    }
    this.checkBudgets(parsed.key, client);
    // If the operator changes the credential while its row is read (generation bumped), that
    // result is stale: verify again, and never cache a result older than the latest change.
    let entry: CacheEntry | undefined;
    for (let tries = 0; ; tries++) {
      const gen = this.generation(parsed.key);
      entry = await this.verify(parsed.key, parsed.secret);
      if (this.generation(parsed.key) === gen) break;
      if (tries >= 3)
        throw new ApiError('auth_invalid_credential', 'credential changed during verification; retry');
    }
    if (!entry) {
      this.recordFailure(parsed.key, client);
      throw new ApiError('auth_invalid_credential');
    }
    if (this.cache.size >= MAX_CACHE) this.cache.clear();
    this.cache.set(id, entry);
    if (entry.revoked) throw new ApiError('auth_revoked');
    return entry.cred;
  }

  /**
   * Authenticates, then takes one request from the credential's rate budget: the two steps every
   * partner request starts with. A shared store may do both in one round trip, and with
   * `idemKey` (a partner write's valid Idempotency-Key) claim the key in it too
   * (SharedCredentialAuth); here the key is claimed by its own stage.
   *
   * Synchronous when nothing is waited for (a cached credential, a budget in memory): a local
   * request then makes no promise here. An error is thrown then, and a rejection otherwise.
   */
  admit(
    header: string | undefined,
    client: string,
    now: number,
    _idemKey?: string,
  ): Admitted | Promise<Admitted> {
    const cred = this.credentialOf(header, client);
    return cred instanceof Promise ? cred.then((c) => this.take(c, now)) : this.take(cred, now);
  }

  private take(cred: AuthedCredential, now: number): Admitted | Promise<Admitted> {
    const rate = this.store.rateLimits.take(cred.key, cred.rateLimit, now);
    return rate instanceof Promise ? rate.then((r) => ({ cred, rate: r })) : { cred, rate };
  }

  /**
   * The credential a read may go ahead as while its admission is on its way (read-ahead.ts).
   * None here: a local admit answers at once, so there is nothing to overlap.
   */
  provisional(_header: string | undefined): AuthedCredential | undefined {
    return undefined;
  }

  /** The credential these exact credentials were verified as, while that stands in the cache (not revoked, not expired). */
  protected cached(header: string): AuthedCredential | undefined {
    const entry = this.live(sha256Base64(header));
    return entry?.revoked ? undefined : entry?.cred;
  }

  /** 429 before any hashing while the key's or the address's failure budget is spent. */
  private checkBudgets(key: string, client: string): void {
    const now = this.now();
    const wait = Math.max(
      retryAfter(this.keyFailures.get(key), this.limits.failuresPerKeyPerMinute, now),
      retryAfter(this.addressFailures.get(client), this.limits.failuresPerAddressPerMinute, now),
    );
    if (wait > 0) {
      this.stats.throttled++;
      throw new ApiError(
        'rate_limit_exceeded',
        `too many failed authentications for this key or from this address; retry in ${wait} s`,
        { retry_after: wait, reason: 'auth_failures' },
        { 'retry-after': String(wait) },
      );
    }
  }

  private recordFailure(key: string, client: string): void {
    const now = this.now();
    remember(
      this.keyFailures,
      key,
      spend(this.keyFailures.get(key), this.limits.failuresPerKeyPerMinute, now),
    );
    remember(
      this.addressFailures,
      client,
      spend(this.addressFailures.get(client), this.limits.failuresPerAddressPerMinute, now),
    );
  }

  /** Runs `fn` when fewer than maxConcurrentHashes run; queues (bounded) otherwise. */
  private async withHashSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.hashing >= this.limits.maxConcurrentHashes) {
      if (this.waiting.length >= this.limits.maxQueuedHashes) {
        this.stats.throttled++;
        throw new ApiError(
          'rate_limit_exceeded',
          'too many authentications in progress; retry in 1 s',
          { retry_after: 1, reason: 'auth_busy' },
          { 'retry-after': '1' },
        );
      }
      // The slot is handed over by the verification that finishes (hashing stays counted).
      await new Promise<void>((go) => this.waiting.push(go));
    } else this.hashing++;
    this.stats.maxConcurrent = Math.max(this.stats.maxConcurrent, this.hashing);
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.hashing--;
    }
  }

  private async verify(key: string, secret: string): Promise<CacheEntry | undefined> {
    this.stats.verifications++;
    const row = await this.store.read((tx) => tx.credentials.get(key));
    if (!row) return this.secrets.unknownKey(secret) || undefined;
    const cred: AuthedCredential = {
      key: row.key,
      businessId: row.business_id,
      scopes: row.scopes,
      rateLimit: row.rate_limit,
    };
    if (await this.check(key, secret, row.secret_hash))
      return { cred, revoked: row.revoked_at !== null, validUntil: null };
    if (
      row.prev_secret_hash &&
      previousSecretValid(row.prev_valid_until, this.now()) &&
      (await this.check(key, secret, row.prev_secret_hash))
    ) {
      return { cred, revoked: row.revoked_at !== null, validUntil: row.prev_valid_until };
    }
    return undefined;
  }

  /**
   * One stored hash: HMAC at once; an earlier version's scrypt hash in a hashing slot, rewritten
   * as HMAC when it matches (a failed rewrite is tried again on the next successful check).
   */
  private async check(key: string, secret: string, stored: string): Promise<boolean> {
    if (SecretHasher.isCurrent(stored)) return this.secrets.matches(secret, stored);
    const { ok, upgrade } = await this.withHashSlot(() => this.secrets.verify(secret, stored));
    if (upgrade)
      await this.store.write((tx) => tx.credentials.upgradeHash(key, stored, upgrade)).catch(() => undefined);
    return ok;
  }

  private generation(key: string): number {
    return this.generations.get(key) ?? 0;
  }

  /** Forget every cached verification of this credential key, and any still under way. */
  invalidate(key: string): void {
    this.generations.set(key, this.generation(key) + 1);
    for (const [id, e] of this.cache) if (e.cred.key === key) this.cache.delete(id);
  }

  static requireScope(cred: AuthedCredential, required: readonly Scope[]): void {
    const missing = missingScope(cred.scopes, required);
    if (missing) {
      throw new ApiError('auth_forbidden', `credential is not scoped for ${missing}`, {
        required_scope: missing,
        ...(required.length > 1 ? { accepted_scopes: required } : {}),
      });
    }
  }
}

/** Operator API: `Authorization: Bearer <operator_token>`, compared in constant time. */
export function checkOperator(header: string | undefined, token: string): void {
  const m = header ? /^Bearer[ ]+(\S+)[ ]*$/i.exec(header) : null;
  if (!m) {
    throw new ApiError(
      'auth_missing',
      'operator API needs Authorization: Bearer <operator_token>',
      undefined,
      {
        'www-authenticate': 'Bearer realm="partner-operator"',
      },
    );
  }
  if (!safeEqual(m[1]!, token))
    throw new ApiError('auth_invalid_credential', 'operator token did not verify');
}
