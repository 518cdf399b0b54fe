import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cut, headerLines, maskedJson, maskJsonText, type RequestRecord, RequestLog } from './request-log.js';

let n = 0;
function rec(o: Partial<RequestRecord> = {}): RequestRecord {
  n++;
  return {
    requestId: `req_t${n}`,
    atMs: Date.parse('2025-01-01T00:00:00Z') + n * 1000,
    method: 'GET',
    path: '/v1/partner/brands',
    status: 200,
    durationMs: 1.5,
    credentialKey: 'pk_test',
    errorCode: null,
    ...o,
  };
}

const detail = (bodyChars: number) => () => ({
  request: { headers: '', body: null, size: 0, truncated: false },
  response: { headers: '', body: 'x'.repeat(bodyChars), size: bodyChars, truncated: false },
  chars: bodyChars,
});

/** Records `r` and answers its request id. */
function add(log: RequestLog, r: RequestRecord = rec(), d?: Parameters<RequestLog['record']>[1]): string {
  log.record(r, d);
  return r.requestId;
}

describe('the ring', () => {
  it('keeps the newest maxEntries; a reader behind it is told how many it missed', () => {
    const log = new RequestLog({ maxEntries: 3 });
    const ids = Array.from({ length: 5 }, () => add(log));
    expect(log.size.entries).toBe(3);
    const newest = log.list({ limit: 10 });
    expect(newest.results.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(newest.next_after).toBe(5);
    const behind = log.list({ after: 0, limit: 10 });
    expect(behind.results.map((e) => e.request_id)).toEqual(ids.slice(2));
    expect(behind.missed).toBe(2);
    expect(log.get(ids[0]!)).toBeUndefined();
    expect(log.get(ids[4]!)?.seq).toBe(5);
  });

  it('pages forward with after and limit; next_after continues past what did not match', () => {
    const log = new RequestLog();
    for (let i = 0; i < 10; i++) log.record(rec({ status: i % 2 ? 404 : 200 }));
    const p1 = log.list({ after: 0, limit: 2, status: '4xx' });
    expect(p1.results.map((e) => e.seq)).toEqual([2, 4]);
    expect(p1.next_after).toBe(4);
    const p2 = log.list({ after: p1.next_after, limit: 10, status: '4xx' });
    expect(p2.results.map((e) => e.seq)).toEqual([6, 8, 10]);
    expect(p2.next_after).toBe(10);
    const p3 = log.list({ after: 10, limit: 10, status: '4xx' });
    expect(p3).toEqual({ results: [], next_after: 10, missed: 0 });
    // Nothing matches after 9 but seq 10 was looked at: the next poll starts after it.
    expect(log.list({ after: 9, limit: 10, status: '5xx' }).next_after).toBe(10);
  });

  it('filters by status (exact and classes), path prefix, method and time', () => {
    const log = new RequestLog();
    const t0 = Date.parse('2030-01-01T00:00:00Z');
    log.record(rec({ status: 200, path: '/v1/partner/orders?size=5', atMs: t0 }));
    log.record(rec({ status: 404, path: '/v1/partner/orders/9', atMs: t0 + 1000 }));
    log.record(rec({ status: 409, method: 'PATCH', path: '/v1/partner/orders/status', atMs: t0 + 2000 }));
    log.record(rec({ status: 500, path: '/v1/operator/orders', atMs: t0 + 3000 }));
    const seqs = (q: Parameters<RequestLog['list']>[0]) => log.list(q).results.map((e) => e.status);
    expect(seqs({ limit: 10, status: '404' })).toEqual([404]);
    expect(seqs({ limit: 10, status: '4xx' })).toEqual([404, 409]);
    expect(seqs({ limit: 10, status: '2xx,5XX' })).toEqual([200, 500]);
    expect(seqs({ limit: 10, path: '/v1/partner/orders' })).toEqual([200, 404, 409]);
    expect(seqs({ limit: 10, path: '/v1/partner/orders?' })).toEqual([200]);
    expect(seqs({ limit: 10, method: 'PATCH' })).toEqual([409]);
    expect(seqs({ limit: 10, since: new Date(t0 + 2000).toISOString() })).toEqual([409, 500]);
    // The newest N, still oldest first.
    expect(seqs({ limit: 2 })).toEqual([409, 500]);
  });

  it('cuts long paths', () => {
    const log = new RequestLog();
    log.record(rec({ path: `/v1/partner/brands?x=${'a'.repeat(5000)}` }));
    expect(log.list({ limit: 1 }).results[0]!.path.length).toBe(2048);
  });
});

describe('the memory budget', () => {
  it('drops headers and bodies of the oldest entries first, never over the budget', () => {
    const log = new RequestLog({ maxDetailChars: 10_000 });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      ids.push(add(log, rec(), detail(3_000)));
      expect(log.size.detailChars).toBeLessThanOrEqual(10_000);
    }
    expect(log.size.detailChars).toBe(9_000);
    expect(ids.map((id) => log.get(id)!.detail_dropped)).toEqual([
      ...Array(7).fill(true),
      false,
      false,
      false,
    ]);
    const dropped = log.get(ids[0]!)!;
    expect(dropped.response.body).toBeNull();
    expect(dropped.status).toBe(200); // the summary stays
    // An entry bigger than the whole budget keeps only its summary.
    const big = add(log, rec(), detail(20_000));
    expect(log.get(big)!.detail_dropped).toBe(true);
    expect(log.size.detailChars).toBeLessThanOrEqual(10_000);
  });

  it('under load only maxDetailsPerSecond requests a second keep their headers and bodies', () => {
    let t = 0;
    const log = new RequestLog({ maxDetailsPerSecond: 10 }, () => t);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(add(log, rec(), detail(10))); // a burst at one instant
    t += 500; // half a second later: 5 more tokens
    for (let i = 0; i < 10; i++) ids.push(add(log, rec(), detail(10)));
    const kept = ids.map((id) => !log.get(id)!.detail_dropped);
    expect(kept.filter(Boolean)).toHaveLength(15);
    expect(kept.slice(0, 10).every(Boolean)).toBe(true);
    expect(kept.slice(10, 30).some(Boolean)).toBe(false);
    expect(kept.slice(30, 35).every(Boolean)).toBe(true);
    expect(log.size.entries).toBe(40); // every request keeps its summary
  });

  it('evicted entries give their characters back', () => {
    const log = new RequestLog({ maxEntries: 2, maxDetailChars: 1_000_000 });
    for (let i = 0; i < 5; i++) log.record(rec(), detail(1_000));
    expect(log.size).toEqual({ entries: 2, detailChars: 2_000 });
  });

  it('measured: 5,000 requests with 200 KiB answers and 2 KiB paths stay within the stated bound', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const log = new RequestLog();
    const big = JSON.stringify({ data: 'y'.repeat(200 * 1024) });
    for (let i = 0; i < 5_000; i++) {
      // A fresh 200 KiB answer each time (as the server's are): a kept slice must not pin it.
      const answer = `${i}${big}`;
      const kept = cut(answer, log.limits.maxBodyChars);
      const headers = headerLines({ 'content-type': 'application/json', host: '127.0.0.1:8787' });
      log.record(rec({ path: `/v1/partner/menus?${'q'.repeat(2100)}${i}` }), () => ({
        request: { headers, body: null, size: 0, truncated: false },
        response: { headers, body: kept.text, size: answer.length, truncated: kept.truncated },
        chars: kept.text.length + 2 * headers.length,
      }));
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    console.log(`request log: 5,000 entries hold ${(grown / 1024 / 1024).toFixed(1)} MiB of heap`);
    expect(log.size.entries).toBe(5_000);
    expect(log.size.detailChars).toBeLessThanOrEqual(8 * 1024 * 1024);
    // docs/api.md states about 21 MiB for this worst case; without the budget the bodies alone
    // would be 320 MiB, and kept slices pinning their whole answers measured 38 MiB.
    expect(grown).toBeLessThan(24 * 1024 * 1024);
  });
});

describe('masking', () => {
  it('masks every field named like a secret, at any depth', () => {
    const text = maskedJson({
      key: 'pk_1',
      secret: 'sk_live',
      nested: { webhook_secret_key: 'whsec', list: [{ operator_token: 'op_x', password: 'p', title: 't' }] },
      secret_hash: null,
    });
    expect(JSON.parse(text)).toEqual({
      key: 'pk_1',
      secret: '***',
      nested: { webhook_secret_key: '***', list: [{ operator_token: '***', password: '***', title: 't' }] },
      secret_hash: null,
    });
  });

  it('masks JSON text, whole or cut off', () => {
    expect(maskJsonText('{"request_id":"r","data":{"key":"pk_1","secret":"sk_abc"}}')).toBe(
      '{"request_id":"r","data":{"key":"pk_1","secret":"***"}}',
    );
    const cutOff = '{"data":{"webhook_secret_key":"whsec_abc","x":"a\\"b","password":"hunt';
    const masked = maskJsonText(cutOff);
    expect(masked).toBe('{"data":{"webhook_secret_key":"***","x":"a\\"b","password":"***');
    expect(masked).not.toMatch(/whsec_abc|hunt/);
    const plain = '{"data":{"title":"Kopi"}}';
    expect(maskJsonText(plain)).toBe(plain);
  });

  it('headers are kept without credentials, cookies or secret-named ones', () => {
    expect(
      headerLines({
        host: 'h',
        authorization: 'Basic eA==',
        'proxy-authorization': 'x',
        cookie: 'c',
        'set-cookie': ['a', 'b'],
        'x-api-token': 't',
        'x-webhook-secret': 's',
        'x-multi': ['1', '2'],
        'content-length': 3,
      }),
    ).toBe('host: h\nx-multi: 1, 2\ncontent-length: 3\n');
  });

  it('cut keeps at most max characters and says so', () => {
    expect(cut('abc', 5)).toEqual({ text: 'abc', truncated: false });
    expect(cut('abcdef', 4)).toEqual({ text: 'abcd', truncated: true });
  });
});

describe('long polls', () => {
  // Time is the subject here, so it is a fake clock: a wait's timer fires only when the test moves
  // time on, and "at once" means settled with no time moved at all (no bound on a real clock,
  // which a loaded machine would break).
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  /** Whether `p` has settled once pending callbacks ran, without moving time. */
  async function settled(p: Promise<unknown>): Promise<boolean> {
    let done = false;
    void p.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    return done;
  }

  it('end at the first matching request, not at others', async () => {
    const log = new RequestLog();
    log.record(rec());
    const p = log.waitFor({ after: 1, status: '5xx' }, 5_000);
    log.record(rec({ status: 200 }));
    expect(await settled(p)).toBe(false);
    log.record(rec({ status: 503 }));
    expect(await settled(p)).toBe(true);
  });

  it('end after their time, or at once when the log closes', async () => {
    const log = new RequestLog();
    const timed = log.waitFor({ after: 0 }, 150);
    await vi.advanceTimersByTimeAsync(149);
    expect(await settled(timed)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(timed)).toBe(true);
    const pending = log.waitFor({ after: 0 }, 10_000);
    expect(await settled(pending)).toBe(false);
    log.close();
    expect(await settled(pending)).toBe(true);
    // Closed: a new wait answers at once.
    expect(await settled(log.waitFor({ after: 0 }, 10_000))).toBe(true);
  });

  it('beyond maxWaiters, a wait answers at once', async () => {
    const log = new RequestLog({ maxWaiters: 2 });
    const held = [log.waitFor({ after: 0 }, 10_000), log.waitFor({ after: 0 }, 10_000)];
    expect(await settled(log.waitFor({ after: 0 }, 10_000))).toBe(true);
    expect(await settled(held[0]!)).toBe(false);
    log.record(rec());
    await Promise.all(held);
  });
});

describe('maskedJson with a cut', () => {
  it('takes no string longer than the cut (a 900 KiB field is not copied whole) and still masks secrets', () => {
    const body = { title: 'x'.repeat(900 * 1024), nested: [{ secret: 'sk_live' }], short: 'ok' };
    const text = maskedJson(body, 16);
    expect(text).toBe(`{"title":"${'x'.repeat(16)}","nested":[{"secret":"***"}],"short":"ok"}`);
    expect(maskedJson(body)).toHaveLength(JSON.stringify({ ...body, nested: [{ secret: '***' }] }).length);
  });
});
