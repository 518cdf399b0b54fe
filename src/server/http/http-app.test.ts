import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { sendData } from './envelope.js';
import { stageApp } from './harness.js';
import type { Payload } from './http-app.js';

// What the stages stand on, in-process: routing (a trailing slash, HEAD for every GET, a path
// that cannot be decoded), the order of a request's parts, a route's onSend, and closing.

const seen: string[] = [];
const written: { url: string; status: number; payload: Payload }[] = [];
const failures: unknown[] = [];
const t = stageApp([], (err) => failures.push(err));
t.app.onResponse.push((req, reply, payload) =>
  written.push({ url: req.url, status: reply.statusCode, payload }),
);
t.get('/things/:id', (req, reply) =>
  sendData(reply, 200, JSON.stringify({ id: req.params.id, q: req.query })),
);
t.post(
  '/steps',
  {
    onRequest: (req) => {
      seen.push(`step body=${String(req.body)}`);
    },
    onSend: (_req, reply) => {
      seen.push(`onSend ${reply.statusCode}`);
      if (reply.statusCode < 400) return undefined;
      return new Promise((r) => setImmediate(r)).then(() => {
        seen.push('released');
      });
    },
  },
  (req) => {
    seen.push(`handler body=${JSON.stringify(req.body)}`);
    if ((req.body as { fail?: boolean } | undefined)?.fail) throw new ApiError('request_invalid', 'no');
    return 'ok';
  },
);
t.get('/twice', (_req, reply) => {
  sendData(reply, 200, '1');
  throw new Error('after the answer');
});
t.app.bodyReader = async (req) => {
  let text = '';
  for await (const chunk of req.raw) text += chunk;
  return text ? JSON.parse(text) : undefined;
};
afterAll(() => t.close());

describe('http-app', () => {
  it('routes with parameters and query; a trailing slash is the same route', async () => {
    const r = await t.inject({ url: '/things/a%20b/?x=1&x=2&y=' });
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toEqual({ id: 'a b', q: { x: ['1', '2'], y: '' } });
  });

  it('HEAD answers every GET route with its headers and no body', async () => {
    const get = await t.inject({ url: '/things/1' });
    const head = await t.inject({ method: 'HEAD', url: '/things/1' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });

  it('a path that cannot be decoded answers 400 request_invalid; an unknown one 404, both with an id', async () => {
    const bad = await t.inject({ url: '/things/%zz' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('request_invalid');
    expect(bad.headers['x-request-id']).toBe(bad.json().request_id);
    const none = await t.inject({ url: '/nothing' });
    expect(none.statusCode).toBe(404);
    expect(none.json().error.code).toBe('resource_not_found');
  });

  it('steps, then the body, then the handler; an error answer waits for the route’s onSend', async () => {
    seen.length = 0;
    const ok = await t.inject({ method: 'POST', url: '/steps', payload: { a: 1 } });
    expect(ok.body).toBe('ok');
    expect(seen).toEqual(['step body=undefined', 'handler body={"a":1}', 'onSend 200']);
    seen.length = 0;
    const refused = await t.inject({ method: 'POST', url: '/steps', payload: { fail: true } });
    expect(refused.statusCode).toBe(400);
    expect(seen).toEqual(['step body=undefined', 'handler body={"fail":true}', 'onSend 400', 'released']);
  });

  it('onResponse sees every answer with what was written', async () => {
    written.length = 0;
    const r = await t.inject({ url: '/things/7' });
    expect(written).toEqual([{ url: '/things/7', status: 200, payload: r.body }]);
  });

  it('an error after the answer was given is logged, and the answer stands', async () => {
    failures.length = 0;
    const r = await t.inject({ url: '/twice' });
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toBe(1);
    expect(failures).toEqual([new Error('after the answer')]);
  });

  it('closing: a request on a connection it had is answered with Connection: close, then close resolves', async () => {
    const c = stageApp();
    c.get('/slow', async (_req, reply) => {
      await closing;
      sendData(reply, 200, '"done"');
    });
    const server = createServer(c.app.handle);
    await c.app.listen(server, { host: '127.0.0.1', port: 0 });
    const { port } = server.address() as AddressInfo;
    let startClose!: () => void;
    const closing = new Promise<void>((r) => {
      startClose = r;
    });
    const answer = fetch(`http://127.0.0.1:${port}/slow`);
    // The request is in (its handler waits on `closing`) before the app starts closing.
    await new Promise<void>((r) => server.once('request', () => setImmediate(r)));
    const closed = c.app.close();
    startClose();
    const r = await answer;
    expect(r.headers.get('connection')).toBe('close');
    expect(((await r.json()) as { data: unknown }).data).toBe('done');
    await closed;
    expect(server.listening).toBe(false);
  });
});
