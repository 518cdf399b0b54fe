import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Clock, PartnerClient, type RequestLog, type Route } from './client.js';
import { ApiError, ClientConfigError, NetworkError } from './errors.js';

// Client behaviour against a scripted HTTP server on 127.0.0.1: each test queues the answers.
// (The real server is exercised by test/cli.)

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Reply = (req: Seen, res: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let replies: Reply[] = [];
let seen: Seen[] = [];

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const ok = (data: unknown, headers: Record<string, string> = {}) =>
  json(200, { request_id: 'req_ok', data }, { 'x-request-id': 'req_ok', ...headers });
const fail = (status: number, code: string, headers: Record<string, string> = {}, details?: unknown) =>
  json(
    status,
    { request_id: `req_${status}`, error: { code, message: `${code} happened`, details } },
    headers,
  );

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      const next = replies.shift() ?? fail(500, 'internal_error');
      next(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
afterEach(() => {
  replies = [];
  seen = [];
});

function fakeClock(): Clock & { slept: number[]; t: number } {
  const c = {
    t: 1_000_000,
    slept: [] as number[],
    now: () => c.t,
    sleep: async (ms: number) => {
      c.slept.push(ms);
      c.t += ms;
    },
  };
  return c;
}

const ROUTES: Record<string, Route> = {
  listBranches: { id: 'listBranches', method: 'GET', path: '/v1/partner/branches', auth: 'partner' },
  getBranch: { id: 'getBranch', method: 'GET', path: '/v1/partner/branches/{id}', auth: 'partner' },
  createBrand: { id: 'createBrand', method: 'POST', path: '/v1/partner/brands', auth: 'partner' },
  operatorListBusinesses: {
    id: 'operatorListBusinesses',
    method: 'GET',
    path: '/v1/operator/businesses',
    auth: 'operator',
  },
};

function client(extra: Partial<ConstructorParameters<typeof PartnerClient>[0]> = {}) {
  return new PartnerClient({
    baseUrl,
    credential: { key: 'pk_test', secret: 'sk_secret' },
    operatorToken: 'op_token',
    routes: ROUTES,
    clock: fakeClock(),
    random: () => 0.5,
    ...extra,
  });
}

describe('PartnerClient', () => {
  it('sends Basic auth on partner operations and Bearer on operator ones', async () => {
    const c = client();
    replies.push(ok([]), ok([]));
    await c.call('listBranches');
    await c.call('operatorListBusinesses');
    expect(seen[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('pk_test:sk_secret').toString('base64')}`,
    );
    expect(seen[1]!.headers.authorization).toBe('Bearer op_token');
    await c.close();
  });

  it('fills path params, encodes the query, and returns data', async () => {
    const c = client();
    replies.push(ok({ id: 7 }));
    const data = await c.call('getBranch', { params: { id: 7 }, query: { a: 'x y', skip: undefined } });
    expect(data).toEqual({ id: 7 });
    expect(seen[0]!.url).toBe('/v1/partner/branches/7?a=x+y');
    await c.close();
  });

  it('generates an Idempotency-Key for writes only, and keeps an explicit one', async () => {
    const c = client();
    replies.push(ok({}), ok({}), ok([]));
    const r1 = await c.callRaw('createBrand', { body: { title: 'A' } });
    await c.callRaw('createBrand', { body: { title: 'A' }, idempotencyKey: 'mine-1' });
    await c.call('listBranches');
    expect(seen[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(r1.idempotencyKey).toBe(seen[0]!.headers['idempotency-key']);
    expect(seen[1]!.headers['idempotency-key']).toBe('mine-1');
    expect(seen[2]!.headers['idempotency-key']).toBeUndefined();
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({ title: 'A' });
    await c.close();
  });

  it('retries 429 honouring Retry-After, with the same Idempotency-Key', async () => {
    const clock = fakeClock();
    const c = client({ clock });
    replies.push(fail(429, 'rate_limit_exceeded', { 'retry-after': '2' }), ok({ id: 1 }));
    const r = await c.callRaw('createBrand', { body: { title: 'A' } });
    expect(r.data).toEqual({ id: 1 });
    expect(clock.slept).toEqual([2000]);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);
    await c.close();
  });

  it('retries 502 with growing backoff, bounded, then throws the ApiError', async () => {
    const clock = fakeClock();
    const logs: RequestLog[] = [];
    const c = client({ clock, onRequest: (e) => logs.push(e), retry: { maxRetries: 2, baseDelayMs: 100 } });
    replies.push(...Array.from({ length: 5 }, () => fail(502, 'downstream_unavailable')));
    const err = await c.call('listBranches').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(502);
    expect(seen).toHaveLength(3);
    expect(clock.slept).toEqual([75, 150]); // random 0.5 → 3/4 of 100·2^(n−1)
    expect(logs.map((l) => l.retryInMs)).toEqual([75, 150, undefined]);
    await c.close();
  });

  it('does not retry other errors', async () => {
    const c = client();
    replies.push(fail(500, 'internal_error'));
    await expect(c.call('listBranches')).rejects.toMatchObject({ status: 500, code: 'internal_error' });
    expect(seen).toHaveLength(1);
    await c.close();
  });

  it('gives a 429 with a Retry-After beyond the bound straight back', async () => {
    const clock = fakeClock();
    const c = client({ clock, retry: { maxRetryAfterMs: 10_000 } });
    replies.push(fail(429, 'rate_limit_exceeded', { 'retry-after': '60' }));
    await expect(c.call('listBranches')).rejects.toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(clock.slept).toEqual([]);
    await c.close();
  });

  it('waits once for a 429: the retry after Retry-After is not paced again for the same window', async () => {
    const clock = fakeClock();
    const logs: RequestLog[] = [];
    const waits: { reason: string; ms: number }[] = [];
    const c = client({ clock, onRequest: (e) => logs.push(e), onWait: (w) => waits.push(w) });
    // A 3/min credential whose bucket is empty: the server asks for 20 s.
    const rl = { 'ratelimit-limit': '3', 'ratelimit-remaining': '0', 'ratelimit-reset': '60' };
    replies.push(fail(429, 'rate_limit_exceeded', { 'retry-after': '20', ...rl }), ok([], rl));
    await c.call('listBranches');
    expect(clock.slept).toEqual([20_000]);
    expect(logs.map((l) => l.pacedMs)).toEqual([undefined, undefined]);
    expect(waits).toEqual([{ reason: 'retry', ms: 20_000, status: 429, attempt: 1 }]);
    await c.close();
  });

  it('says how long it paces, before the wait', async () => {
    const clock = fakeClock();
    const waits: { reason: string; ms: number; limit?: number }[] = [];
    const c = client({ clock, onWait: (w) => waits.push(w) });
    replies.push(ok([], { 'ratelimit-limit': '3', 'ratelimit-remaining': '0', 'ratelimit-reset': '60' }));
    replies.push(ok([]));
    await c.call('listBranches');
    await c.call('listBranches');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatchObject({ reason: 'pace', limit: 3 });
    expect(waits[0]!.ms).toBe(clock.slept[0]);
    await c.close();
  });

  it('an error after retries says how many were made and how long they waited', async () => {
    const clock = fakeClock();
    const c = client({ clock, retry: { maxRetries: 2 } });
    replies.push(
      ...Array.from({ length: 3 }, () => fail(429, 'rate_limit_exceeded', { 'retry-after': '1' })),
    );
    const err = (await c.call('listBranches').catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ status: 429, attempts: 3, waitedMs: 2000, retryAfterMs: 1000 });
    await c.close();
  });

  it('an unretried 429 says so: one attempt, and the Retry-After it did not wait out', async () => {
    const clock = fakeClock();
    const c = client({ clock, retry: { maxRetryAfterMs: 30_000 } });
    replies.push(fail(429, 'rate_limit_exceeded', { 'retry-after': '60' }));
    const err = (await c.call('listBranches').catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ attempts: 1, waitedMs: 0, retryAfterMs: 60_000 });
    await c.close();
  });

  it('throws typed errors carrying code, status, request_id and details', async () => {
    const c = client();
    replies.push(fail(404, 'resource_not_found', {}, { id: 9 }));
    const err = (await c.call('getBranch', { params: { id: 9 } }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      code: 'resource_not_found',
      status: 404,
      request_id: 'req_404',
      details: { id: 9 },
    });
    expect(err.message).toBe('resource_not_found happened');
    await c.close();
  });

  it('treats FORBIDDEN_SCOPE as auth_forbidden', async () => {
    const c = client();
    replies.push(fail(403, 'FORBIDDEN_SCOPE'));
    const err = (await c.call('listBranches').catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe('auth_forbidden');
    expect(err.wireCode).toBe('FORBIDDEN_SCOPE');
    expect(err.isAuth).toBe(true);
    await c.close();
  });

  it('reports an answer that is not an envelope', async () => {
    const c = client();
    replies.push((_q, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html>down</html>');
    });
    await expect(c.call('listBranches')).rejects.toMatchObject({
      name: 'ApiError',
      code: 'http_503',
      status: 503,
    });
    await c.close();
  });

  it('turns connection failures into NetworkError', async () => {
    const c = client({ baseUrl: 'http://127.0.0.1:1' });
    const err = await c.call('listBranches').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe('ECONNREFUSED');
    await c.close();
  });

  it('refuses credentials over http to a non-loopback host unless insecure', async () => {
    const c = client({ baseUrl: 'http://api.example.com' });
    await expect(c.call('listBranches')).rejects.toBeInstanceOf(ClientConfigError);
    await c.close();
    for (const host of ['localhost', '127.0.0.1', '[::1]']) {
      const local = new PartnerClient({
        baseUrl: `http://${host}:1`,
        credential: { key: 'k', secret: 's' },
        routes: ROUTES,
      });
      // Loopback passes the check and fails later, at the network.
      await expect(local.call('listBranches')).rejects.toBeInstanceOf(NetworkError);
      await local.close();
    }
  });

  it('paginates lazily until total', async () => {
    const c = client();
    const page = (p: number, results: number[]) => ok({ results, page: p, size: 2, total: 5 });
    replies.push(page(1, [1, 2]), page(2, [3, 4]), page(3, [5]));
    const items: unknown[] = [];
    for await (const x of c.paginate('listBranches', { size: 2 })) items.push(x);
    expect(items).toEqual([1, 2, 3, 4, 5]);
    expect(seen.map((s) => s.url)).toEqual([
      '/v1/partner/branches?page=1&size=2',
      '/v1/partner/branches?page=2&size=2',
      '/v1/partner/branches?page=3&size=2',
    ]);
    await c.close();
  });

  it('paces a sequence from the RateLimit headers instead of collecting 429s', async () => {
    const clock = fakeClock();
    const logs: RequestLog[] = [];
    const c = client({ clock, onRequest: (e) => logs.push(e) });
    // 60 per minute, one token left after this answer: the next request must wait ~1 s.
    replies.push(ok([], { 'ratelimit-limit': '60', 'ratelimit-remaining': '1', 'ratelimit-reset': '59' }));
    replies.push(ok([], { 'ratelimit-limit': '60', 'ratelimit-remaining': '1', 'ratelimit-reset': '59' }));
    await c.call('listBranches');
    await c.call('listBranches');
    expect(clock.slept.length).toBe(1);
    expect(clock.slept[0]).toBeGreaterThanOrEqual(1000);
    expect(logs[1]!.pacedMs).toBe(clock.slept[0]);
    await c.close();
  });

  it('request() takes any method and path and returns the envelope', async () => {
    const c = client();
    replies.push(ok({ x: 1 }));
    const r = await c.request('GET', '/v1/partner/anything', { query: { q: 1 } });
    expect(r.envelope).toEqual({ request_id: 'req_ok', data: { x: 1 } });
    expect(r.request_id).toBe('req_ok');
    expect(seen[0]!.url).toBe('/v1/partner/anything?q=1');
    await c.close();
  });
});
