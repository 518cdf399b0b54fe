import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Io } from './io.js';
import { resolvePartnerTarget } from './target.js';

// Brand and branch ids for shell completion, asked of the active profile's server. A shell
// waits on this at every Tab, so it is bounded: one round of two requests (brands, first page of
// branches) within BUDGET_MS, after which every connection is torn down and nothing is offered.
// Answers are cached briefly in the config dir (ids and titles only, keyed by server and key,
// never the secret), and so is a server that did not answer, so a second Tab costs no wait.

const BUDGET_MS = 350;
/** How long an answer is reused: long enough for the Tabs of one command line. */
export const CACHE_TTL_MS = 60_000;
/** How long an unreachable server is not asked again. */
const DOWN_TTL_MS = 15_000;

interface Candidate {
  value: string;
  description?: string;
}

interface Entry {
  at: number;
  down?: boolean;
  brands?: { id: number; title: string }[];
  branches?: { id: number; title: string; brand_ids: number[] }[];
}

type Cache = Record<string, Entry>;

export const CACHE_FILE = 'completion-cache.json';

function readCache(dir: string): Cache {
  try {
    const c = JSON.parse(readFileSync(join(dir, CACHE_FILE), 'utf8')) as unknown;
    return c && typeof c === 'object' && !Array.isArray(c) ? (c as Cache) : {};
  } catch {
    return {};
  }
}

function writeCache(dir: string, cache: Cache, now: number): void {
  try {
    // Old entries (other servers, other keys) go; the file stays small.
    const kept = Object.fromEntries(Object.entries(cache).filter(([, e]) => now - e.at < CACHE_TTL_MS));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `${CACHE_FILE}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(kept), { mode: 0o600 });
    renameSync(tmp, join(dir, CACHE_FILE));
  } catch {
    // A cache that cannot be written only costs the next Tab a request.
  }
}

const asRecords = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];

/** Asks the server for brands and branches, within the budget; undefined when it did not answer. */
async function fetchIds(
  baseUrl: string,
  credential: { key: string; secret: string },
  insecure: boolean,
  budgetMs: number,
): Promise<Pick<Entry, 'brands' | 'branches'> | undefined> {
  // The budget counts from here, loading the client included.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), budgetMs);
  });
  let agent: { destroy(): Promise<void> } | undefined;
  const work = (async () => {
    const [{ PartnerClient }, { default: Agent }] = await Promise.all([
      import('../client/client.js'),
      import('undici/lib/dispatcher/agent.js'),
    ]);
    // Our own dispatcher: at the deadline it is destroyed, which ends every socket at once (a
    // connect to a silent host would otherwise keep the process, and the shell, waiting).
    const dispatcher = new Agent({
      connect: { timeout: budgetMs },
      headersTimeout: budgetMs,
      bodyTimeout: budgetMs,
    });
    agent = dispatcher;
    const client = new PartnerClient({
      baseUrl,
      credential,
      insecure,
      dispatcher,
      pace: false,
      retry: { maxRetries: 0 },
      timeoutMs: budgetMs,
      userAgent: `partner-cli/${__PARTNER_VERSION__} (completion)`,
    });
    const [brands, branches] = (
      await Promise.all([
        client.request('GET', '/v1/partner/brands'),
        client.request('GET', '/v1/partner/branches', { query: { size: 100 } }),
      ])
    ).map((r) => r.data);
    return {
      brands: asRecords(brands).flatMap((e) =>
        asRecords(e.brands).map((b) => ({ id: Number(b.id), title: String(b.title ?? '') })),
      ),
      branches: asRecords((branches as { results?: unknown } | undefined)?.results).map((b) => ({
        id: Number(b.id),
        title: String(b.title ?? ''),
        brand_ids: Array.isArray(b.brand_ids) ? b.brand_ids.map(Number) : [],
      })),
    };
  })().catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    (agent as { destroy(): Promise<void> } | undefined)?.destroy().catch(() => undefined);
  }
}

interface IdQuery {
  kind: 'brand' | 'branch';
  /** Only branches of this brand (a `--brand N` typed earlier on the line). */
  brand?: number;
  /** --profile / --base-url typed on the line being completed. */
  profile?: string;
  baseUrl?: string;
  insecure?: boolean;
  budgetMs?: number;
}

/**
 * The wait for ids: BUDGET_MS, or PARTNER_COMPLETION_BUDGET_MS (milliseconds, 1–10,000) for a
 * slow link or a busy machine, where 350 ms can pass before a local server answers.
 */
function budgetOf(env: NodeJS.ProcessEnv): number {
  const n = Number(env.PARTNER_COMPLETION_BUDGET_MS);
  return Number.isInteger(n) && n >= 1 && n <= 10_000 ? n : BUDGET_MS;
}

/** Brand or branch ids with their titles; [] when there is no profile or no answer in time. */
export async function remoteIds(io: Io, q: IdQuery): Promise<Candidate[]> {
  let target: ReturnType<typeof resolvePartnerTarget>;
  try {
    target = resolvePartnerTarget({
      configDir: io.configDir,
      env: io.env,
      profile: q.profile,
      baseUrl: q.baseUrl,
    });
  } catch {
    return [];
  }
  const now = io.clock.now();
  const key = `${target.baseUrl} ${target.key}`;
  const cache = readCache(io.configDir);
  let entry = cache[key];
  const fresh = entry && now - entry.at < (entry.down ? DOWN_TTL_MS : CACHE_TTL_MS) && now >= entry.at;
  if (!fresh) {
    const got = await fetchIds(
      target.baseUrl,
      { key: target.key, secret: target.secret },
      q.insecure === true,
      q.budgetMs ?? budgetOf(io.env),
    );
    entry = got ? { at: now, ...got } : { at: now, down: true };
    cache[key] = entry;
    writeCache(io.configDir, cache, now);
  }
  if (!entry || entry.down) return [];
  if (q.kind === 'brand')
    return (entry.brands ?? []).map((b) => ({ value: String(b.id), description: b.title }));
  return (entry.branches ?? [])
    .filter((b) => q.brand === undefined || b.brand_ids.includes(q.brand))
    .map((b) => ({ value: String(b.id), description: b.title }));
}
