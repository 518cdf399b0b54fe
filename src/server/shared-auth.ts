import type { AuthThrottleLimits } from './domain/auth-throttle.js';
import { type AuthedCredential, parseBasic } from './domain/auth.js';
import { type Admitted, CredentialAuth } from './http/auth.js';
import type { RateDecision } from './domain/rate-limit.js';
import type { CredentialRow } from './store/credentials-repo.js';
import type { Begun } from './store/idempotency-repo.js';
import type { Store } from './store/store.js';
import type { SecretHasher } from './security/secrets.js';

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
  /** Keys whose last take was refused (a key forgotten from `known` goes from here too). */
  private readonly denied = new Set<string>();

  constructor(
    store: Store,
    secrets: SecretHasher,
    /** Reads a credential's row as committed now (PgStore.peek: one round trip). */
    private readonly currentRow: (key: string) => Promise<CredentialRow | undefined>,
    /**
     * Reads the row as committed now and, unless it is revoked, takes one request from its rate
     * budget at the row's limit and, given a key the take allowed, claims that Idempotency-Key,
     * in one round trip (PgRateLimits.admit).
     */
    private readonly rowAndTake: (
      key: string,
      now: number,
      idemKey?: string,
    ) => Promise<{ row: CredentialRow | undefined; rate: RateDecision | undefined; begun?: Begun }>,
    now: () => number,
    limits: Partial<AuthThrottleLimits> = {},
  ) {
    super(store, secrets, now, limits);
  }

  /**
   * The hot path: credentials this instance verified before are checked against the row and take
   * from the budget in one statement. Credentials not (or no longer) cached are verified first and
   * take after (two round trips), so a wrong guess at a key's secret never spends its budget. If
   * the row changed since the cached verification, the credentials are verified again against it
   * (a revoked or rotated-out secret then fails, having spent one request of a budget its holder
   * was using a moment ago).
   */
  override async admit(
    header: string | undefined,
    client: string,
    now: number,
    idemKey?: string,
  ): Promise<Admitted> {
    const parsed = parseBasic(header);
    if (!parsed || !this.cached(header!)) return super.admit(header, client, now);
    const { row, rate, begun } = await this.rowAndTake(parsed.key, now, idemKey);
    if (rate?.allowed === false) this.denied.add(parsed.key);
    else this.denied.delete(parsed.key);
    let cred: AuthedCredential;
    try {
      cred = await this.against(parsed.key, row, header, client);
    } catch (err) {
      // The row changed and no longer admits these credentials: the claim its statement took
      // (if any) goes back at once, or the key would answer in_flight until the claim's lease ran out.
      if (begun?.kind === 'claimed') await this.store.claims.release(parsed.key, idemKey!);
      throw err;
    }
    return rate ? { cred, rate, begun } : { cred, rate: (await super.admit(header, client, now)).rate };
  }

  /**
   * A cached verification stands until this request's admit has read the row: a read may go
   * ahead as it meanwhile, its answer held until the admit agrees (read-ahead.ts). Not while the
   * key's last take was refused: a client past its budget would make the server read for nothing.
   */
  override provisional(header: string | undefined): AuthedCredential | undefined {
    const parsed = parseBasic(header);
    return parsed && !this.denied.has(parsed.key) ? this.cached(header!) : undefined;
  }

  protected override async credentialOf(
    header: string | undefined,
    client: string,
  ): Promise<AuthedCredential> {
    const parsed = parseBasic(header);
    if (!parsed) return super.credentialOf(header, client);
    return this.against(parsed.key, await this.currentRow(parsed.key), header, client);
  }

  /** Authenticates against the credential's row as just read. */
  private async against(
    key: string,
    row: CredentialRow | undefined,
    header: string | undefined,
    client: string,
  ): Promise<AuthedCredential> {
    const state = stateOf(row);
    const seen = this.known.get(key);
    if (seen !== undefined && seen !== state) super.invalidate(key);
    const cred = await super.credentialOf(header, client);
    if (seen !== state) {
      this.known.delete(key);
      this.known.set(key, state);
      // A key forgotten here must have nothing cached either: its next request verifies afresh.
      if (this.known.size > MAX_KNOWN) this.invalidate(this.known.keys().next().value!);
    }
    return cred;
  }

  override invalidate(key: string): void {
    this.known.delete(key);
    this.denied.delete(key);
    super.invalidate(key);
  }
}
