import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS, malformedRequestAnswer, nodeServer } from './node-server.js';

// Node's server with the malformed-request answer, on a loopback port, fed raw bytes: what its
// parser refuses still answers in the envelope, with an id, and the connection closes.

const server = nodeServer(DEFAULT_TIMEOUTS, (_req, res) => res.end('reached the handler'));
server.on('clientError', malformedRequestAnswer(DEFAULT_TIMEOUTS));
let port = 0;
beforeAll(
  () =>
    new Promise<void>((ok) =>
      server.listen(0, '127.0.0.1', () => {
        port = (server.address() as { port: number }).port;
        ok();
      }),
    ),
);
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

/** Sends raw bytes; the whole answer once the server closes the connection. */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d) => {
      got += d;
    });
    s.on('end', () => resolve(got));
    s.on('error', reject);
    s.end(bytes);
  });
}

function parse(answer: string) {
  const [head, body] = answer.split('\r\n\r\n') as [string, string];
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('malformed requests', () => {
  it('garbage: 400 request_invalid in the envelope, its id in X-Request-Id, connection closed', async () => {
    const a = parse(await raw('NOT HTTP AT ALL\r\n\r\n'));
    expect(a.status).toBe(400);
    expect(a.headers.connection).toBe('close');
    expect(a.body.error.code).toBe('request_invalid');
    expect(a.body.request_id).toMatch(/^req_/);
    expect(a.headers['x-request-id']).toBe(a.body.request_id);
    expect(Number(a.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(a.body)));
  });

  it('a header block past Node’s limit: 413 request_too_large', async () => {
    const a = parse(await raw(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`));
    expect(a.status).toBe(413);
    expect(a.body.error.code).toBe('request_too_large');
  });

  it('a well-formed request reaches the handler', async () => {
    expect(await raw('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(
      /reached the handler$/,
    );
  });
});
