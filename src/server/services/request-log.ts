// The local server's request log (docs/api.md, "Request log"): a bounded in-memory ring of the
// requests answered under /v1/, for `partner logs tail` and the inspect page. It never shows a
// secret: the Authorization header and cookies are never kept; fields named like a secret are
// masked in request bodies and operator answers (which carry issued secrets) before they are kept,
// and in partner answers (which never carry one) when they are read; a credential appears only as
// its key (the half that is safe to log).

import type { z } from 'zod';
import type {
  LoggedMessage as LoggedMessageSchema,
  LoggedRequestDetail as LoggedRequestDetailSchema,
  LoggedRequest as LoggedRequestSchema,
} from '../../contract/schemas/operator.js';

export interface RequestLogLimits {
  /** Requests kept; the oldest goes first. */
  maxEntries: number;
  /** Characters kept of each body (request and answer); the rest is cut off. */
  maxBodyChars: number;
  /** Characters of headers and bodies kept over all entries; beyond it the oldest entries lose theirs. */
  maxDetailChars: number;
  /** Long polls waiting at once; more than this answer at once instead of waiting. */
  maxWaiters: number;
  /**
   * Requests a second that keep their headers and bodies (a token bucket of this size); beyond
   * it, under a load test say, they keep only their summary. Capturing bodies costs CPU (measured
   * ~30 µs a request for a 5.5 KB answer, most of it the GC moving kept strings), which a
   * developer's few requests never notice and a load of thousands a second would.
   */
  maxDetailsPerSecond: number;
}

/**
 * With these, the log holds at most 5,000 summaries (the path is cut at 2,048 characters) and
 * 8 Mi characters of headers and bodies: about 19 MiB of heap when every path is 2 KiB long and
 * every body is cut at 64 KiB (measured in request-log.test.ts), a few MiB in practice.
 */
const DEFAULT_REQUEST_LOG_LIMITS: RequestLogLimits = Object.freeze({
  maxEntries: 5_000,
  maxBodyChars: 64 * 1024,
  maxDetailChars: 8 * 1024 * 1024,
  maxWaiters: 64,
  maxDetailsPerSecond: 200,
});

const MAX_PATH_CHARS = 2048;
export const MAX_KEY_CHARS = 100;

/** Field and header names whose values are never kept. */
const SECRET_NAME = /secret|password|passwd|passphrase|token|authorization|cookie/i;
const MASK = '***';

// The shapes the log answers with are the contract's (GET /v1/operator/requests), not a copy.
type LoggedMessage = z.infer<typeof LoggedMessageSchema>;
type LoggedRequest = z.infer<typeof LoggedRequestSchema>;
type LoggedRequestDetail = z.infer<typeof LoggedRequestDetailSchema>;

/** What the HTTP layer hands over for one answered request. */
export interface RequestRecord {
  requestId: string;
  atMs: number;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  credentialKey: string | null;
  errorCode: string | null;
}

/**
 * A body as kept: its text, or the buffers an answer was written from. Those are decoded (and cut
 * at `maxBodyChars`) only when the entry is read: a page answered from shared bytes is kept by
 * reference, where a copy of it as text cost a busy server more than anything else of the log.
 */
export type KeptBody = string | readonly Uint8Array[];

/** One side as kept: the headers as `name: value` lines, one string (cheap for the GC to hold). */
export interface KeptMessage<Body extends KeptBody = string> {
  headers: string;
  body: Body | null;
  size: number;
  truncated: boolean;
}

export const lengthOf = (b: readonly Uint8Array[]) => b.reduce((n, x) => n + x.length, 0);
const charsIn = (b: KeptBody) => (typeof b === 'string' ? b.length : lengthOf(b));

/** Headers and bodies of one request, and the characters they count against the budget. */
interface Detail {
  request: KeptMessage;
  response: KeptMessage<KeptBody>;
  chars: number;
}

/**
 * An entry as read: built from the ring's columns when someone reads the log (a page, a long
 * poll's match), never when a request is recorded.
 */
interface Entry extends RequestRecord {
  seq: number;
  /** Its headers and bodies; `dropped` once the budget took them back (their sizes stay). */
  detail: (Detail & { dropped?: true }) | undefined;
}

interface RequestLogQuery {
  after?: number | undefined;
  since?: string | undefined;
  /** `404`, `4xx`, comma-separated. */
  status?: string | undefined;
  path?: string | undefined;
  method?: string | undefined;
  limit: number;
}

interface RequestLogPage {
  results: LoggedRequest[];
  next_after: number;
  missed: number;
}

// ─── Masking and cutting ────────────────────────────────────────────────────────────────────

/**
 * A copy of `s` that does not share memory with a longer string: V8 makes a slice of 13 or more
 * characters a view into its parent, which would keep a whole 1 MiB answer alive for 64 KiB of it.
 */
function flat(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** At most `max` characters of `s`, and whether something was cut off. */
export function cut(s: string, max: number): { text: string; truncated: boolean } {
  if (s.length <= max) return { text: s, truncated: false };
  return { text: flat(s.slice(0, max)), truncated: true };
}

const replacer = (key: string, value: unknown) =>
  key !== '' && value !== null && SECRET_NAME.test(key) ? MASK : value;

/**
 * JSON text of a parsed body with every field named like a secret masked. With `maxChars`, no
 * string is taken longer than that (the text is cut there anyway): a 900 KiB field is not copied
 * whole into a second string only to be cut.
 */
export function maskedJson(value: unknown, maxChars?: number): string {
  const r =
    maxChars === undefined
      ? replacer
      : (key: string, v: unknown) =>
          typeof v === 'string' && v.length > maxChars ? v.slice(0, maxChars) : replacer(key, v);
  return JSON.stringify(value, r) ?? 'null';
}

// A string-valued member whose name looks like a secret, in JSON text that may be cut off.
const SECRET_MEMBER =
  /("(?:[^"\\]|\\.)*(?:secret|password|passwd|passphrase|token|authorization|cookie)(?:[^"\\]|\\.)*"\s*:\s*)"(?:[^"\\]|\\.)*("?)/gi;

/**
 * JSON text (an answer) with secret-named fields masked. Whole JSON is parsed and re-serialised;
 * text that does not parse (cut off, or not JSON) has the string values of such fields replaced.
 */
export function maskJsonText(text: string): string {
  if (!SECRET_NAME.test(text)) return text;
  try {
    return maskedJson(JSON.parse(text));
  } catch {
    return text.replace(SECRET_MEMBER, (_, name: string, close: string) => `${name}"${MASK}${close}`);
  }
}

/** Headers as `name: value` lines, without credentials, cookies or anything named like a secret. */
export function headerLines(h: Record<string, unknown>): string {
  let out = '';
  for (const name in h) {
    const v = h[name];
    if (v === undefined || SECRET_NAME.test(name)) continue;
    out += `${name}: ${Array.isArray(v) ? v.join(', ') : String(v)}\n`;
  }
  return out;
}

function parseHeaderLines(text: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of (text ?? '').split('\n')) {
    const i = line.indexOf(': ');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 2);
  }
  return out;
}

/** One side: its headers, and its body cut at `maxBodyChars`. */
export function kept(
  headers: Record<string, unknown>,
  body: string | null,
  size: number,
  maxBodyChars: number,
): KeptMessage {
  const lines = headerLines(headers);
  if (body === null) return { headers: lines, body: null, size, truncated: false };
  const c = cut(body, maxBodyChars);
  return { headers: lines, body: c.text, size, truncated: c.truncated };
}

/** What a side counts against the budget: its headers and all it holds of its body. */
export const charsOf = (m: KeptMessage<KeptBody>) =>
  m.headers.length + (m.body === null ? 0 : charsIn(m.body));

// ─── Filters ────────────────────────────────────────────────────────────────────────────────

type Match = (e: Entry) => boolean;

function statusMatcher(list: string): (status: number) => boolean {
  const exact = new Set<number>();
  const classes = new Set<number>();
  for (const part of list.split(',')) {
    const p = part.trim().toLowerCase();
    if (p.endsWith('xx')) classes.add(Number(p[0]));
    else exact.add(Number(p));
  }
  return (s) => exact.has(s) || classes.has(Math.floor(s / 100));
}

function matcher(q: Omit<RequestLogQuery, 'limit' | 'after'>): Match {
  const status = q.status ? statusMatcher(q.status) : undefined;
  const since = q.since ? Date.parse(q.since) : undefined;
  const { path, method } = q;
  return (e) =>
    (status === undefined || status(e.status)) &&
    (since === undefined || e.atMs >= since) &&
    (path === undefined || e.path.startsWith(path)) &&
    (method === undefined || e.method === method);
}

function summary(e: Entry): LoggedRequest {
  return {
    seq: e.seq,
    request_id: e.requestId,
    at: new Date(e.atMs).toISOString(),
    method: e.method,
    path: e.path,
    status: e.status,
    duration_ms: e.durationMs,
    credential_key: e.credentialKey,
    error_code: e.errorCode,
  };
}

/** A detail given back to the budget: its headers and bodies go, their sizes stay. */
function dropped(d: Detail): Detail & { dropped: true } {
  const gone = (m: KeptMessage<KeptBody>) => ({
    headers: '',
    body: null,
    size: m.size,
    truncated: m.truncated,
  });
  return { request: gone(d.request), response: gone(d.response), chars: 0, dropped: true };
}

function message(
  headers: string | null,
  body: string | null,
  size: number,
  truncated: boolean,
): LoggedMessage {
  return { headers: parseHeaderLines(headers), body, body_size: size, body_truncated: truncated };
}

// ─── The ring ───────────────────────────────────────────────────────────────────────────────

interface Waiter {
  after: number;
  match: Match;
  done: () => void;
}

/**
 * The ring is kept as columns, one slot per entry: numbers in typed arrays, strings and the rare
 * detail in plain arrays. A busy server records every request here, and each lives on for the
 * next 5,000 requests: long enough to be copied by the young generation's collections, whose
 * pauses grow with what survives them. Held as an object of its own (and two boxed numbers),
 * an entry was five objects to copy; as columns it is its id and path strings.
 */
export class RequestLog {
  readonly limits: RequestLogLimits;
  private readonly ids: string[];
  private readonly methods: string[];
  private readonly paths: string[];
  private readonly keys: (string | null)[];
  private readonly errors: (string | null)[];
  private readonly atMs: Float64Array;
  private readonly durations: Float64Array;
  private readonly statuses: Uint16Array;
  private readonly details: Entry['detail'][];
  /** Seq of the oldest entry held, and of the next one. */
  private firstSeq = 1;
  private nextSeq = 1;
  /** No entry older than this still holds its detail. */
  private detailFrom = 1;
  private detailChars = 0;
  private readonly waiters = new Set<Waiter>();
  private isClosed = false;
  private detailTokens: number;
  private detailRefilled: number;

  /** `clock`: milliseconds, monotonic; for the detail rate only. */
  constructor(
    limits: Partial<RequestLogLimits> = {},
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.limits = { ...DEFAULT_REQUEST_LOG_LIMITS, ...limits };
    const n = this.limits.maxEntries;
    if (!(n >= 1)) throw new Error('the request log keeps at least one entry');
    this.ids = new Array(n);
    this.methods = new Array(n);
    this.paths = new Array(n);
    this.keys = new Array(n);
    this.errors = new Array(n);
    this.details = new Array(n);
    this.atMs = new Float64Array(n);
    this.durations = new Float64Array(n);
    this.statuses = new Uint16Array(n);
    this.detailTokens = this.limits.maxDetailsPerSecond;
    this.detailRefilled = clock();
  }

  /** Whether the next request may keep its headers and bodies (spends a token when it may). */
  private takeDetail(): boolean {
    const { maxDetailChars, maxDetailsPerSecond: rate } = this.limits;
    if (maxDetailChars <= 0 || rate <= 0) return false;
    const t = this.clock();
    this.detailTokens = Math.min(rate, this.detailTokens + ((t - this.detailRefilled) * rate) / 1000);
    this.detailRefilled = t;
    if (this.detailTokens < 1) return false;
    this.detailTokens--;
    return true;
  }

  /** Requests held, and characters of headers and bodies held (the memory budget's measure). */
  get size(): { entries: number; detailChars: number } {
    return { entries: this.nextSeq - this.firstSeq, detailChars: this.detailChars };
  }

  /** The slot of a seq held, or -1. */
  private slot(seq: number): number {
    return seq >= this.firstSeq && seq < this.nextSeq ? (seq - 1) % this.limits.maxEntries : -1;
  }

  private at(seq: number): Entry | undefined {
    const i = this.slot(seq);
    if (i < 0) return undefined;
    return {
      seq,
      requestId: this.ids[i]!,
      atMs: this.atMs[i]!,
      method: this.methods[i]!,
      path: this.paths[i]!,
      status: this.statuses[i]!,
      durationMs: this.durations[i]!,
      credentialKey: this.keys[i]!,
      errorCode: this.errors[i]!,
      detail: this.details[i],
    };
  }

  /** Adds one answered request; `detail` builds its headers and bodies (skipped when no budget). */
  record(r: RequestRecord, detail?: () => Detail | undefined): void {
    const { maxEntries, maxDetailChars } = this.limits;
    if (this.nextSeq - this.firstSeq === maxEntries) {
      const oldest = (this.firstSeq - 1) % maxEntries;
      this.detailChars -= this.details[oldest]?.chars ?? 0;
      this.details[oldest] = undefined;
      this.firstSeq++;
      this.detailFrom = Math.max(this.detailFrom, this.firstSeq);
    }
    const seq = this.nextSeq++;
    const i = (seq - 1) % maxEntries;
    this.ids[i] = r.requestId;
    this.methods[i] = r.method;
    this.paths[i] = r.path.length > MAX_PATH_CHARS ? flat(r.path.slice(0, MAX_PATH_CHARS)) : r.path;
    this.keys[i] = r.credentialKey;
    this.errors[i] = r.errorCode;
    this.atMs[i] = r.atMs;
    this.durations[i] = r.durationMs;
    this.statuses[i] = r.status;
    this.details[i] = undefined;
    const d = detail && this.takeDetail() ? detail() : undefined;
    if (d) {
      this.details[i] = d;
      this.detailChars += d.chars;
      // Over budget: the oldest entries give up their headers and bodies first (this one last).
      while (this.detailChars > maxDetailChars && this.detailFrom < this.nextSeq) {
        const j = this.slot(this.detailFrom++);
        const old = j < 0 ? undefined : this.details[j];
        if (old && !old.dropped) {
          this.detailChars -= old.chars;
          this.details[j] = dropped(old);
        }
      }
    }
    if (this.waiters.size === 0) return;
    const e = this.at(seq)!;
    for (const w of this.waiters) {
      if (e.seq > w.after && w.match(e)) w.done();
    }
  }

  /**
   * With `after`: the matching requests after that seq, oldest first, up to `limit`. Without: the
   * newest `limit` matching requests (oldest first). `next_after` continues either.
   */
  list(q: RequestLogQuery): RequestLogPage {
    const match = matcher(q);
    const last = this.nextSeq - 1;
    const results: LoggedRequest[] = [];
    if (q.after === undefined) {
      for (let seq = last; seq >= this.firstSeq && results.length < q.limit; seq--) {
        const e = this.at(seq)!;
        if (match(e)) results.push(summary(e));
      }
      return { results: results.reverse(), next_after: last, missed: 0 };
    }
    let seq = Math.max(q.after + 1, this.firstSeq);
    for (; seq <= last && results.length < q.limit; seq++) {
      const e = this.at(seq)!;
      if (match(e)) results.push(summary(e));
    }
    return {
      results,
      next_after: Math.max(q.after, seq - 1),
      missed: Math.max(0, Math.min(this.firstSeq, last + 1) - (q.after + 1)),
    };
  }

  /** One request in full, by its request id (a scan: this is a person clicking, not a hot path). */
  get(requestId: string): LoggedRequestDetail | undefined {
    for (let seq = this.nextSeq - 1; seq >= this.firstSeq; seq--) {
      if (this.ids[this.slot(seq)] !== requestId) continue;
      const e = this.at(seq)!;
      const req = e.detail?.request;
      const res = e.detail?.response;
      const body = res?.body ?? null;
      const answer =
        body === null
          ? null
          : cut(
              typeof body === 'string' ? body : Buffer.concat(body).toString('utf8'),
              this.limits.maxBodyChars,
            );
      return {
        ...summary(e),
        request: message(req?.headers ?? null, req?.body ?? null, req?.size ?? 0, req?.truncated ?? false),
        response: message(
          res?.headers ?? null,
          answer === null ? null : maskJsonText(answer.text),
          res?.size ?? 0,
          (res?.truncated ?? false) || (answer?.truncated ?? false),
        ),
        detail_dropped: e.detail === undefined || e.detail.dropped === true,
      };
    }
    return undefined;
  }

  /**
   * Resolves when a request after seq `after` matching `q` is recorded, after `ms`, or when the
   * log closes (server shutdown), whichever comes first. Never rejects; holds one timer.
   */
  waitFor(q: Omit<RequestLogQuery, 'limit'> & { after: number }, ms: number): Promise<void> {
    if (this.isClosed || ms <= 0 || this.waiters.size >= this.limits.maxWaiters) return Promise.resolve();
    return new Promise((resolve) => {
      const w: Waiter = {
        after: q.after,
        match: matcher(q),
        done: () => {
          clearTimeout(timer);
          this.waiters.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(w.done, ms);
      timer.unref();
      this.waiters.add(w);
    });
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Ends every long poll now, and any later one at once (the server is closing). */
  close(): void {
    this.isClosed = true;
    for (const w of [...this.waiters]) w.done();
  }
}
