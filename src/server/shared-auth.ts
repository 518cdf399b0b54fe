import type { AuthThrottleLimits } from './domain/auth-throttle.js';
import { type AuthedCredential, parseBasic } from './domain/auth.js';
import { CredentialAuth } from './http/auth.js';
import type { CredentialRow } from './store/credentials-repo.js';
import type { Store } from './store/store.js';

const MAX_KNOWN = 10_000;

/** What of a credential row decides whether a cached verification still stands. */
const stateOf = (r: CredentialRow | undefined): string =>
  r === undefined
    ? ''
    : JSON.stringify([
        r.secret_hash,
        r.prev_secret_hash,
        r.prev_valid_until,
        r.revoked_at,
        r.scopes,
        r.rate_limit,
        r.business_id,
      ]);

/**
 * CredentialAuth for N instances on one store. An operator change (revoke, rotate, scopes, rate
 * limit) is made on one instance and invalidates only that instance's cache; here every request
 * reads the credential's row first (one indexed read, no hashing), and when it differs from the
 * row the cached verification was made against, the cache entry goes and the credential is
 * verified again against the row as it is now. So a change takes effect on the next request on
 * every instance, with no window for a notification to arrive in.
 */
export class SharedCredentialAuth extends CredentialAuth {
  /**
   * Credential key → the row state its cached verifications were made against. Every entry the
   * parent caches passes through `authenticate` below, so a key missing here has none cached.
   */
  private readonly known = new Map<string, string>();

  constructor(
    store: Store,
    /** Reads a credential's row as committed now (PgStore.peek: one round trip). */
    private readonly currentRow: (key: string) => Promise<CredentialRow | undefined>,
    now: () => number,
    limits: Partial<AuthThrottleLimits> = {},
  ) {
    super(store, now, limits);
  }

  override async authenticate(header: string | undefined, client = ''): Promise<AuthedCredential> {
    const parsed = parseBasic(header);
    if (!parsed) return super.authenticate(header, client);
    const state = stateOf(await this.currentRow(parsed.key));
    const seen = this.known.get(parsed.key);
    if (seen !== undefined && seen !== state) super.invalidate(parsed.key);
    const cred = await super.authenticate(header, client);
    if (seen !== state) {
      this.known.delete(parsed.key);
      this.known.set(parsed.key, state);
      // A key forgotten here must have nothing cached either: its next request verifies afresh.
      if (this.known.size > MAX_KNOWN) this.invalidate(this.known.keys().next().value!);
    }
    return cred;
  }

  override invalidate(key: string): void {
    this.known.delete(key);
    super.invalidate(key);
  }
}
