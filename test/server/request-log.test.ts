import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, call, type Envelope, startTestServer, type TestServer } from '../helpers/server.js';

// The local server's request log, through the operator API, against the real server: every
// request under /v1/ with the id its answer carried, never a secret, bounded, long-polled.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
});
afterAll(() => s?.close());

// biome-ignore lint/suspicious/noExplicitAny: log entries as read off the wire
type Entry = Record<string, any>;

async function requests(query = ''): Promise<{ results: Entry[]; next_after: number; missed: number }> {
  const r = await s.operator('GET', `/v1/operator/requests${query ? `?${query}` : ''}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
}

async function entry(requestId: string): Promise<Entry> {
  const r = await s.operator('GET', `/v1/operator/requests/${requestId}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
}

async function latestSeq(): Promise<number> {
  return (await requests('limit=1')).next_after;
}

describe('what is logged', () => {
  it('every request under /v1/ once, with the request id of its answer', async () => {
    const from = await latestSeq();
    const ok = await call(s, 'GET', '/v1/partner/brands');
    const missing = await call(s, 'GET', '/v1/partner/orders/999999');
    const noRoute = await call(s, 'GET', '/v1/partner/nowhere?x=1');
    const wrongMethod = await call(s, 'DELETE', '/v1/partner/brands');
    const unauth = await call(s, 'GET', '/v1/partner/brands', { cred: null });
    const op = await s.operator('GET', '/v1/operator/businesses');
    await fetch(`${s.baseUrl}/healthz`);
    const page = await requests(`after=${from}`);
    expect(page.results.map((e) => [e.method, e.path, e.status, e.request_id])).toEqual([
      ['GET', '/v1/partner/brands', 200, ok.body.request_id],
      ['GET', '/v1/partner/orders/999999', 404, missing.body.request_id],
      ['GET', '/v1/partner/nowhere?x=1', 404, noRoute.body.request_id],
      ['DELETE', '/v1/partner/brands', 405, wrongMethod.body.request_id],
      ['GET', '/v1/partner/brands', 401, unauth.body.request_id],
      ['GET', '/v1/operator/businesses', 200, op.body.request_id],
    ]);
    // The same id in the header as in the envelope and the log.
    expect(ok.headers.get('x-request-id')).toBe(ok.body.request_id);
    const [a, b, , , e, f] = page.results;
    expect(a).toMatchObject({ credential_key: s.credential.key, error_code: null });
    expect(b).toMatchObject({ credential_key: s.credential.key, error_code: 'resource_not_found' });
    expect(e).toMatchObject({ credential_key: null, error_code: 'auth_missing' });
    expect(f).toMatchObject({ credential_key: 'operator', error_code: null });
    for (const x of page.results) {
      expect(x.duration_ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(x.at)).not.toBeNaN();
    }
    expect(page.results.map((x) => x.seq)).toEqual(page.results.map((_, i) => from + 1 + i));
  });

  it('a wrong secret logs the key that was tried, never the secret', async () => {
    const from = await latestSeq();
    const r = await call(s, 'GET', '/v1/partner/brands', {
      cred: { key: s.credential.key, secret: 'sk_wrong_guess_123' },
    });
    expect(r.status).toBe(401);
    const [e] = (await requests(`after=${from}`)).results;
    expect(e).toMatchObject({ credential_key: s.credential.key, error_code: 'auth_invalid_credential' });
    const full = JSON.stringify(await entry(e!.request_id));
    expect(full).not.toContain('sk_wrong_guess_123');
    expect(full.toLowerCase()).not.toContain('authorization');
  });

  it("the log's own reads are not logged, so tailing it does not feed itself", async () => {
    const from = await latestSeq();
    await requests();
    await requests(`after=${from}`);
    await s.operator('GET', '/v1/operator/requests/req_nothing');
    expect((await requests(`after=${from}`)).results).toEqual([]);
  });
});

describe('one request in full', () => {
  it('headers without credentials, bodies with secrets masked', async () => {
    const from = await latestSeq();
    const issued = await s.operator('POST', '/v1/operator/credentials', {
      business_id: s.credential.businessId,
      scopes: ['brands:read'],
    });
    const secret = issued.body.data.secret as string;
    expect(secret).toMatch(/^sk_/);
    const hook = await s.operator('POST', '/v1/operator/webhook-secrets', {
      business_id: s.credential.businessId,
    });
    const whsec = hook.body.data.webhook_secret_key as string;
    const [created, secretRead] = (await requests(`after=${from}`)).results;
    const full = await entry(created!.request_id);
    expect(full.request.headers['content-type']).toBe('application/json');
    expect(full.request.headers.authorization).toBeUndefined();
    expect(JSON.parse(full.request.body)).toEqual({
      business_id: s.credential.businessId,
      scopes: ['brands:read'],
    });
    expect(full.response.headers['x-request-id']).toBe(created!.request_id);
    const answer = JSON.parse(full.response.body) as Envelope;
    expect(answer.request_id).toBe(created!.request_id);
    expect(answer.data.key).toBe(issued.body.data.key);
    expect(answer.data.secret).toBe('***');
    expect(full.detail_dropped).toBe(false);
    const second = JSON.stringify(await entry(secretRead!.request_id));
    expect(second).toContain('"webhook_secret_key\\":\\"***\\"');
    // Nowhere in either entry, nor in the operator token.
    for (const text of [JSON.stringify(full), second]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(whsec);
      expect(text).not.toContain(s.operatorToken);
    }
  });

  it("a partner's own secret-named fields are masked in both bodies too", async () => {
    const from = await latestSeq();
    const patched = await call(s, 'PATCH', '/v1/partner/branches/1', { body: { wifi_password: 'hunter2' } });
    expect(patched.status).toBe(200);
    expect(patched.text).toContain('hunter2'); // the branch record passes extra fields through
    const read = await call(s, 'GET', '/v1/partner/branches/1');
    expect(read.text).toContain('hunter2');
    const [a, b] = (await requests(`after=${from}`)).results;
    for (const e of [await entry(a!.request_id), await entry(b!.request_id)]) {
      expect(JSON.stringify(e)).not.toContain('hunter2');
      expect(JSON.parse(e.response.body).data.wifi_password).toBe('***');
    }
    expect(JSON.parse((await entry(a!.request_id)).request.body)).toEqual({ wifi_password: '***' });
  });

  it('a body over 64 KiB is cut, with its whole size', async () => {
    const from = await latestSeq();
    const title = 'x'.repeat(100_000);
    const r = await call(s, 'POST', '/v1/partner/brands', { body: { title } });
    expect(r.status).toBe(400);
    const doc = await fetch(`${s.baseUrl}/v1/partner/openapi.json`);
    const docText = await doc.text();
    expect(docText.length).toBeGreaterThan(64 * 1024);
    const [write, read] = (await requests(`after=${from}`)).results;
    const sent = await entry(write!.request_id);
    expect(sent.request.body.length).toBe(64 * 1024);
    expect(sent.request.body_truncated).toBe(true);
    expect(sent.request.body_size).toBe(Buffer.byteLength(JSON.stringify({ title })));
    expect(sent.response.body_truncated).toBe(false);
    expect(sent.response.body_size).toBe(Buffer.byteLength(r.text));
    const answered = await entry(read!.request_id);
    expect(read!.request_id).toBe(doc.headers.get('x-request-id'));
    expect(answered.response.body).toBe(docText.slice(0, 64 * 1024));
    expect(answered.response.body_truncated).toBe(true);
    expect(answered.response.body_size).toBe(Buffer.byteLength(docText));
  });

  it('an unknown request id is a 404 that says how much the log keeps', async () => {
    const r = await s.operator('GET', '/v1/operator/requests/req_unknown');
    expect(r.status).toBe(404);
    expect(r.body.error?.code).toBe('resource_not_found');
    expect(r.body.error?.message).toMatch(/newest 5000 requests/);
  });
});

describe('the operator API of the log', () => {
  it('filters by status, path and method; refuses malformed filters', async () => {
    const from = await latestSeq();
    await call(s, 'GET', '/v1/partner/orders/999998');
    await call(s, 'GET', '/v1/partner/brands');
    await call(s, 'PATCH', '/v1/partner/orders/status', {
      body: { id: 999998, status: 'READY', platform: 'enterprise' },
    });
    const st = async (q: string) => (await requests(`after=${from}&${q}`)).results.map((e) => e.status);
    expect(await st('status=4xx')).toEqual([404, 404]);
    expect(await st('status=200,5xx')).toEqual([200]);
    expect(await st('path=/v1/partner/orders')).toEqual([404, 404]);
    expect(await st('method=PATCH')).toEqual([404]);
    for (const q of [
      'status=4x',
      'status=600',
      'limit=0',
      'limit=1001',
      'wait=31',
      'method=get',
      'after=-1',
    ]) {
      const r = await s.operator('GET', `/v1/operator/requests?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error?.code).toBe('request_invalid');
    }
  });

  it('wait=S answers as soon as a matching request arrives', async () => {
    const from = await latestSeq();
    const t0 = performance.now();
    const polled = requests(`after=${from}&wait=30&status=404`);
    // A pause so the poll is usually waiting when the requests arrive; the assertions below hold
    // either way (a poll that starts late finds the matching request in the log).
    await new Promise((r) => setTimeout(r, 150));
    await call(s, 'GET', '/v1/partner/brands'); // does not match: the poll goes on
    const missing = await call(s, 'GET', '/v1/partner/orders/999997');
    const page = await polled;
    const took = performance.now() - t0;
    expect(page.results.map((e) => e.request_id)).toEqual([missing.body.request_id]);
    // Answered on the request, not when the 30 s wait ran out. (Compared with the wait itself,
    // not with a speed figure: the poll's latency is the inspect bench's subject.)
    expect(took).toBeLessThan(30_000);
    expect(page.next_after).toBe(from + 2);
  });

  it('wait=S with nothing new answers an empty page after S seconds', async () => {
    const from = await latestSeq();
    const t0 = performance.now();
    const page = await requests(`after=${from}&wait=1&path=/v1/partner/never`);
    const took = performance.now() - t0;
    expect(page.results).toEqual([]);
    // Not before S seconds (a timer fires late under load, never early); how late is no rule.
    expect(took).toBeGreaterThanOrEqual(950);
  });

  it('a server closing ends the long polls at once', async () => {
    const own = await startTestServer({ seed: 'none' });
    const t0 = performance.now();
    const polled = fetch(`${own.baseUrl}/v1/operator/requests?after=0&wait=30&path=/never`, {
      headers: { authorization: `Bearer ${own.operatorToken}` },
    });
    await new Promise((r) => setTimeout(r, 200));
    await own.close();
    const r = await polled;
    expect(r.status).toBe(200);
    expect(((await r.json()) as Envelope).data.results).toEqual([]);
    // Ended by the close, not by the 30 s wait running out.
    expect(performance.now() - t0).toBeLessThan(30_000);
  });

  it('keeps the number of requests ServerOptions says, and says what a reader missed', async () => {
    const own = await startTestServer({ seed: 'demo', requestLog: { maxEntries: 3 } });
    try {
      const auth = { authorization: basic(own.credential) };
      for (let i = 0; i < 5; i++)
        await fetch(`${own.baseUrl}/v1/partner/branches?page=${i + 1}`, { headers: auth });
      const r = await own.operator('GET', '/v1/operator/requests?after=0');
      expect(r.body.data.results.map((e: Entry) => e.path)).toEqual([
        '/v1/partner/branches?page=3',
        '/v1/partner/branches?page=4',
        '/v1/partner/branches?page=5',
      ]);
      expect(r.body.data.missed).toBe(2);
    } finally {
      await own.close();
    }
  });
});
