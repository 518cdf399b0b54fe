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
  const body = JSON.stringify({ title: 'Stalled brand' });
  // The stalled request takes its key once its credential check is done. A probe that reaches the
  // store first takes the key itself and the stalled request is told in_flight at once: that
  // attempt proves nothing and starts again with a fresh key (bounded). The probe's body is
  // invalid, so it never stores an answer against the key.
  let key = '';
  let pending: ReturnType<typeof stall> | undefined;
  for (let attempt = 1; attempt <= 20 && !pending; attempt++) {
    key = `stall-${Date.now()}-${attempt}`;
    const head =
      'POST /v1/partner/brands HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Authorization: ${basic(s.credential)}\r\nIdempotency-Key: ${key}\r\nContent-Length: ${body.length}\r\n\r\n` +
      body.slice(0, 5);
    const tried = stall(head, 5_000);
    let answered = false;
    void tried.then(() => {
      answered = true;
    });
    await new Promise((r) => setTimeout(r, 100));
    let meanwhile = await call(s, 'POST', '/v1/partner/brands', { body: { title: '' }, key });
    for (let i = 0; i < 50 && meanwhile.status !== 409 && !answered; i++) {
      await new Promise((r) => setTimeout(r, 20));
      meanwhile = await call(s, 'POST', '/v1/partner/brands', { body: { title: '' }, key });
    }
    if (answered) {
      expect((await tried).text).toMatch(/^HTTP\/1\.1 409 /);
      continue;
    }
    // While the body is pending the key is in flight, as before.
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body.error?.details).toEqual({ reason: 'in_flight' });
    pending = tried;
  }
  if (!pending) expect.fail('in 20 attempts the stalled request never held its key before a probe took it');

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
