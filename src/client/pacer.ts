// Client-side pacing under a token-bucket rate limit, fed by the `RateLimit-*` response headers.
// The server's bucket holds `limit` tokens and refills `limit/60` per second; `Remaining` is the
// whole tokens left and `Reset` the seconds until the bucket is full again. The pacer mirrors
// that bucket, spends one token per request it lets through, and makes the caller wait for a
// token instead of collecting a 429. Pure arithmetic over an injected clock, so it unit-tests.

export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  reset?: number | undefined;
}

export function parseRateLimitHeaders(
  get: (name: string) => string | undefined,
): RateLimitHeaders | undefined {
  const limit = Number(get('ratelimit-limit'));
  const remaining = Number(get('ratelimit-remaining'));
  if (!Number.isFinite(limit) || limit <= 0 || !Number.isFinite(remaining) || remaining < 0) return undefined;
  const resetRaw = get('ratelimit-reset');
  const reset = resetRaw === undefined ? undefined : Number(resetRaw);
  return {
    limit,
    remaining,
    reset: reset !== undefined && Number.isFinite(reset) && reset >= 0 ? reset : undefined,
  };
}

export class Pacer {
  private limit = 0;
  /** Estimated tokens in the server's bucket at `at`. */
  private tokens = 0;
  private at = 0;
  /** Tokens per millisecond. */
  private rate = 0;
  /** Requests let through whose answers have not come back: the server may not have counted them yet. */
  private inFlight = 0;

  /** `reserve` tokens are left for other clients of the same credential (and for clock skew). */
  constructor(private readonly reserve = 1) {}

  get known(): boolean {
    return this.limit > 0;
  }

  /** Requests per minute of the credential, once an answer said it (0 before). */
  get perMinute(): number {
    return this.limit;
  }

  /** Records what the server said after a response. */
  observe(h: RateLimitHeaders, now: number): void {
    this.limit = h.limit;
    // The other requests still in flight took tokens here that this answer may not reflect yet;
    // without this, concurrent callers are let through on a stale count and collect 429s.
    this.tokens = Math.min(h.remaining, h.limit) - Math.max(0, this.inFlight - 1);
    this.at = now;
    let perSecond = h.limit / 60;
    // A server that refills more slowly than limit/60 tells us through Reset; trust the slower rate.
    if (h.reset !== undefined && h.reset > 0 && h.remaining < h.limit) {
      perSecond = Math.min(perSecond, (h.limit - h.remaining) / h.reset);
    }
    this.rate = perSecond / 1000;
  }

  /** A request let through by `take` has its answer (or failed): call after `observe`. */
  settled(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  /** After a 429: the bucket is empty and refills no sooner than `retryAfterMs`. */
  exhausted(now: number, retryAfterMs: number): void {
    if (!this.known) return;
    this.tokens = -this.rate * retryAfterMs + 1;
    this.at = now;
  }

  /**
   * Takes one token for a request about to be sent and returns how many ms to wait first
   * (0 when the bucket has room). Successive calls queue behind each other. `reserve` overrides
   * the tokens left for others: 0 for the retry of a 429 that already waited out Retry-After,
   * which the server promised one token (keeping the reserve made it wait a second window).
   */
  take(now: number, reserve = this.reserve): number {
    this.inFlight++;
    if (!this.known || this.rate <= 0) return 0;
    const need = Math.min(1 + reserve, this.limit);
    // Requests already queued for later push this one behind them.
    const t0 = Math.max(now, this.at);
    const available = Math.min(this.limit, this.tokens + (t0 - this.at) * this.rate);
    if (available >= need) {
      this.tokens = available - 1;
      this.at = t0;
      return t0 - now;
    }
    const extra = Math.ceil((need - available) / this.rate);
    // The token we wait for is spent the moment we send.
    this.tokens = need - 1;
    this.at = t0 + extra;
    return this.at - now;
  }
}
