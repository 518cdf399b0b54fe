import { afterAll, beforeAll, expect, it } from 'vitest';
import { ERROR_CATALOGUE, isErrorCode } from '../../src/contract/errors.js';
import { OPERATION_LIST } from '../../src/contract/operations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FULL, mode, percentile, pool, SEED, scale } from './config.js';
import { type Answer, describeRequest, type FuzzRequest, fuzzRequests, send } from './fuzz-requests.js';

// Suite 1, fuzzing: generated valid and invalid requests for every operation of the contract
// table. Every answer is an envelope with a catalogue code, none is a 5xx, and every 2xx carries
// data that fits the operation's response schema.

const N = scale(1_500, 12_000);

let s: TestServer;
const internal: unknown[] = [];
beforeAll(async () => {
  s = await startTestServer({
    rateLimit: 1_000_000,
    // Wrong credentials are part of the mix: keep guessing budgets out of the way of coverage.
    authThrottle: {
      failuresPerKeyPerMinute: 1_000_000,
      failuresPerAddressPerMinute: 1_000_000,
      maxQueuedHashes: 10_000,
    },
    logErrors: (e) => internal.push(e),
  });
});
afterAll(() => s.close());

/** What is wrong with an answer, or undefined. */
export function envelopeProblem(r: FuzzRequest, a: Answer): string | undefined {
  if (a.status >= 500) return `answered ${a.status}`;
  let body: { request_id?: unknown; data?: unknown; error?: { code?: unknown; message?: unknown } };
  try {
    body = JSON.parse(a.text);
  } catch {
    return `not JSON: ${a.text.slice(0, 120)}`;
  }
  if (r.op.raw && a.status === 200) return undefined;
  if (typeof body.request_id !== 'string' || body.request_id !== a.headers['x-request-id'])
    return 'request_id missing or not the X-Request-Id';
  if (a.status < 300) {
    if (!('data' in body) || 'error' in body) return 'a 2xx without data';
    const parsed = r.op.response.safeParse(body.data);
    if (!parsed.success)
      return `data does not fit ${r.op.id}'s response schema: ${parsed.error.message.slice(0, 300)}`;
    return undefined;
  }
  const code = body.error?.code;
  if (typeof code !== 'string' || !isErrorCode(code))
    return `error code ${String(code)} is not in the catalogue`;
  if (ERROR_CATALOGUE[code].status !== a.status) return `${code} with HTTP ${a.status}`;
  if (typeof body.error?.message !== 'string') return 'error without a message';
  if ('data' in body) return 'an error with data';
  return undefined;
}

it(
  `every answer to ${N} generated requests is an envelope with a catalogue code, never a 5xx`,
  async () => {
    const reqs = fuzzRequests(
      OPERATION_LIST,
      { cred: s.credential, operatorToken: s.operatorToken },
      N,
      SEED,
    );
    const failures: string[] = [];
    const byStatus = new Map<number, number>();
    const byKind = new Map<string, number>();
    const ok2xxOps = new Set<string>();
    const times: number[] = [];
    const t0 = performance.now();
    await pool(reqs, 8, async (r) => {
      const a = await send(s.baseUrl, r);
      times.push(a.ms);
      byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
      byKind.set(r.kind, (byKind.get(r.kind) ?? 0) + 1);
      if (a.status < 300) ok2xxOps.add(r.op.id);
      const problem = envelopeProblem(r, a);
      if (problem && failures.length < 20)
        failures.push(`${problem}\n    ${describeRequest(r)}\n    → ${a.text.slice(0, 300)}`);
    });
    const secs = (performance.now() - t0) / 1000;
    times.sort((a, b) => a - b);
    console.log(
      `fuzz (${mode()}): ${reqs.length} requests over ${OPERATION_LIST.length} operations in ${secs.toFixed(1)} s ` +
        `(${(reqs.length / secs).toFixed(0)}/s, p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms); ` +
        `statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort((a, b) => a[0] - b[0])))}; ` +
        `operations answered 2xx: ${ok2xxOps.size}; kinds ${byKind.size}; 5xx ${[...byStatus].filter(([c]) => c >= 500).reduce((n, [, v]) => n + v, 0)}`,
    );
    expect(failures, failures.join('\n')).toEqual([]);
    expect(internal).toEqual([]);
    // The mix reaches far: many operations succeed, every kind of request was sent.
    expect(ok2xxOps.size).toBeGreaterThan(scale(30, 50));
    expect(byKind.size).toBe(26);
  },
  FULL ? 600_000 : 60_000,
);
