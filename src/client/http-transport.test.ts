import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { PartnerClient, type Route } from './client.js';
import { NetworkError } from './errors.js';
import { HttpTransport } from './http-transport.js';

// The client's transports against real servers on 127.0.0.1: the default node:http one (keep-alive,
// timeouts, a connection the server closed while idle) and a caller's undici dispatcher.

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const ROUTES: Record<string, Route> = {
  createBrand: { id: 'createBrand', method: 'POST', path: '/v1/partner/brands', auth: 'partner' },
};

const get = (timeoutMs = 5_000) => ({ method: 'GET', headers: {}, body: null, timeoutMs });

describe('HttpTransport', () => {
  it('keeps one connection alive across sequential requests and reads the whole answer', async () => {
    const sockets = new Set<Socket>();
    const { url } = await serve((req, res) => {
      sockets.add(req.socket);
      res.writeHead(200, { 'content-type': 'application/json', 'x-thing': 'a' });
      // In two chunks, one a multi-byte character split across them.
      const bytes = Buffer.from('{"t":"café"}');
      res.write(bytes.subarray(0, 10));
      setTimeout(() => res.end(bytes.subarray(10)), 5);
    });
    const t = new HttpTransport();
    for (let i = 0; i < 3; i++) {
      const r = await t.send(new URL(`${url}/x`), get());
      expect(r).toMatchObject({ statusCode: 200, text: '{"t":"café"}' });
      expect(r.headers['x-thing']).toBe('a');
    }
    expect(sockets.size).toBe(1);
    await t.close();
  });

  it('sends the body with its length', async () => {
    let seen: { method?: string; length?: string; body: string } = { body: '' };
    const { url } = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen = { method: req.method, length: req.headers['content-length'], body };
        res.end('{}');
      });
    });
    const t = new HttpTransport();
    await t.send(new URL(url), { method: 'POST', headers: {}, body: '{"a":"é"}', timeoutMs: 5_000 });
    expect(seen).toEqual({ method: 'POST', length: '10', body: '{"a":"é"}' });
    await t.close();
  });

  it('gives up on headers that do not come within the timeout', async () => {
    const { url } = await serve(() => {}); // never answers
    const t = new HttpTransport();
    const started = performance.now();
    const err = await t.send(new URL(url), get(150)).catch((e: unknown) => e);
    // Its own timer's error is the proof it gave up (the server never answers); not before the
    // timeout (a timer fires late under load, never early), and how late is no rule.
    expect(err).toMatchObject({ code: 'ETIMEDOUT', message: 'no answer within 150 ms' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    await t.close();
  });

  it('gives up on a body that stalls longer than the timeout', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200);
      res.write('{"partial":'); // and nothing more
    });
    const t = new HttpTransport();
    const err = await t.send(new URL(url), get(150)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ETIMEDOUT', message: 'the answer stalled for 150 ms' });
    await t.close();
  });

  it('fails, not hangs, when the connection drops mid-answer', async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => req.socket.destroy(), 5);
    });
    const t = new HttpTransport();
    const err = await t.send(new URL(url), get()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ECONNRESET' });
    await t.close();
  });

  it('reports a connection lost before the answer instead of sending the request again', async () => {
    // Whether the server acted on it cannot be known: the caller retries with the same
    // Idempotency-Key and says so (menu push prints "retrying"); the transport stays silent.
    let seen = 0;
    const { url } = await serve((req) => {
      seen++;
      req.socket.destroy();
    });
    const t = new HttpTransport();
    const err = await t
      .send(new URL(url), { method: 'POST', headers: {}, body: '{}', timeoutMs: 5_000 })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ECONNRESET' });
    expect(seen).toBe(1);
    await t.close();
  });

  it('close() lets a request in flight finish', async () => {
    const { url } = await serve((_req, res) => {
      setTimeout(() => res.end('{"late":true}'), 100);
    });
    const t = new HttpTransport();
    const pending = t.send(new URL(url), get());
    await new Promise((r) => setTimeout(r, 20));
    await t.close();
    await expect(pending).resolves.toMatchObject({ text: '{"late":true}' });
  });
});

describe('PartnerClient over a dispatcher of the caller', () => {
  it('sends through that undici dispatcher and leaves it open on close', async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req_1' });
      res.end(JSON.stringify({ request_id: 'req_1', data: { via: req.headers['user-agent'] } }));
    });
    const dispatcher = new Agent();
    let dispatched = 0;
    const counting = dispatcher.compose((dispatch) => (opts, handler) => {
      dispatched++;
      return dispatch(opts, handler);
    });
    const c = new PartnerClient({ baseUrl: url, routes: ROUTES, dispatcher: counting, userAgent: 'ua-test' });
    const r = await c.callRaw('createBrand', { body: { title: 'x' } });
    expect(r).toMatchObject({ status: 201, data: { via: 'ua-test' }, request_id: 'req_1' });
    expect(dispatched).toBe(1);
    await c.close();
    expect(dispatcher.closed).toBe(false);
    await dispatcher.close();
  });

  it('reports a refused connection as NetworkError through either transport', async () => {
    for (const dispatcher of [undefined, new Agent()]) {
      const c = new PartnerClient({
        baseUrl: 'http://127.0.0.1:1',
        routes: ROUTES,
        ...(dispatcher ? { dispatcher } : {}),
      });
      const err = await c.call('createBrand', { body: {} }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).code).toBe('ECONNREFUSED');
      await c.close();
      await dispatcher?.close();
    }
  });
});
