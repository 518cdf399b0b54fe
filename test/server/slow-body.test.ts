import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { basic, call, startTestServer, type TestServer } from '../helpers/server.js';

// Issue 12, defect 2: a body that stalls after the headers was never timed out, and its
// Idempotency-Key stayed in flight (409) for as long as the socket stayed open.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ timeouts: { headersMs: 300, requestMs: 600, keepAliveMs: 600 } });
});
afterAll(() => s.close());

/** Sends `head` then waits (bounded) for the server to answer and close; resolves with what it sent. */
function stall(head: string, limitMs: number): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const sock: Socket = connect(Number(new URL(s.baseUrl).port), '127.0.0.1');
    let text = '';
    const guard = setTimeout(() => {
      sock.destroy();
      reject(new Error(`socket still open after ${limitMs} ms`));
    }, limitMs);
    sock.on('data', (d) => {
      text += d.toString();
    });
    sock.on('close', () => {
      clearTimeout(guard);
      resolve({ text, closedAfterMs: performance.now() - t0 });
    });
    sock.on('error', () => {});
    sock.write(head);
  });
}

it('a stalled body is cut off (408 in the envelope), and its Idempotency-Key is free again', async () => {
  const key = `stall-${Date.now()}`;
  const body = JSON.stringify({ title: 'Stalled brand' });
  const head =
    'POST /v1/partner/brands HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
    `Authorization: ${basic(s.credential)}\r\nIdempotency-Key: ${key}\r\nContent-Length: ${body.length}\r\n\r\n` +
    body.slice(0, 5);
  const pending = stall(head, 5_000);
  // While the body is pending the key is in flight, as before.
  await new Promise((r) => setTimeout(r, 100));
  const meanwhile = await call(s, 'POST', '/v1/partner/brands', { body: JSON.parse(body), key });
  expect(meanwhile.status).toBe(409);
  expect(meanwhile.body.error?.details).toEqual({ reason: 'in_flight' });

  const { text, closedAfterMs } = await pending;
  expect(text).toMatch(/^HTTP\/1\.1 408 /);
  const answer = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
  expect(answer.error.code).toBe('request_timeout');
  expect(answer.request_id).toMatch(/^req_/);
  expect(closedAfterMs).toBeLessThan(2_000);
  console.log(`stalled body: closed after ${closedAfterMs.toFixed(0)} ms (bound 600 ms)`);

  const after = await call(s, 'POST', '/v1/partner/brands', { body: JSON.parse(body), key });
  expect(after.status).toBe(201);
  expect(after.body.data.title).toBe('Stalled brand');
});

it('stalled headers are cut off too', async () => {
  const { text, closedAfterMs } = await stall('GET /v1/partner/brands HTTP/1.1\r\nHost: x\r\n', 5_000);
  expect(text).toMatch(/^HTTP\/1\.1 408 /);
  expect(closedAfterMs).toBeLessThan(2_000);
});

it('a connection that never sends a byte is closed', async () => {
  const { text, closedAfterMs } = await stall('', 5_000);
  expect(closedAfterMs).toBeLessThan(2_000);
  expect(text === '' || /^HTTP\/1\.1 408 /.test(text)).toBe(true);
});
