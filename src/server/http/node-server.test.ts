import type { Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS, malformedRequestAnswer, nodeServer } from './node-server.js';

// Node's server with the malformed-request answer, on a loopback port, fed raw bytes: what its
// parser refuses still answers in the envelope, with an id, and the connection closes.

/** Listens on a loopback port for the tests of this file's block; the port, once listening. */
function listening(server: Server): () => number {
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
  return () => port;
}

/**
 * Sends raw bytes, then half-closes unless told to stay open; the whole answer once the server
 * closes the connection.
 */
function raw(port: number, bytes: string, halfClose = true): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d) => {
      got += d;
    });
    s.on('end', () => resolve(got));
    s.on('error', reject);
    if (halfClose) s.end(bytes);
    else s.write(bytes);
  });
}

const server = nodeServer(DEFAULT_TIMEOUTS, (_req, res) => res.end('reached the handler'));
server.on('clientError', malformedRequestAnswer(DEFAULT_TIMEOUTS));
const port = listening(server);

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
    const a = parse(await raw(port(), 'NOT HTTP AT ALL\r\n\r\n'));
    expect(a.status).toBe(400);
    expect(a.headers.connection).toBe('close');
    expect(a.body.error.code).toBe('request_invalid');
    expect(a.body.request_id).toMatch(/^req_/);
    expect(a.headers['x-request-id']).toBe(a.body.request_id);
    expect(Number(a.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(a.body)));
  });

  it('a header block past Node’s limit: 413 request_too_large', async () => {
    const a = parse(
      await raw(port(), `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`),
    );
    expect(a.status).toBe(413);
    expect(a.body.error.code).toBe('request_too_large');
  });

  it('a well-formed request reaches the handler', async () => {
    expect(await raw(port(), 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(
      /reached the handler$/,
    );
  });
});

describe('answers held to the end of the turn', () => {
  // What the handler saw of its socket right after `end()`, and once the turn's check phase ran.
  const seen: { afterEnd: number; atCheck: number }[] = [];
  const held = nodeServer(DEFAULT_TIMEOUTS, (req, res) => {
    // A pipelined request's answer waits for the one before it, without a socket yet.
    const socket = res.socket;
    res.end(`answer to ${req.url}`);
    if (!socket) return;
    const afterEnd = socket.writableLength;
    setImmediate(() => seen.push({ afterEnd, atCheck: socket.writableLength }));
  });
  const heldPort = listening(held);

  it('an answer is still in the socket after end(), and handed to the kernel in the check phase', async () => {
    seen.length = 0;
    const r = await fetch(`http://127.0.0.1:${heldPort()}/one`);
    expect(await r.text()).toBe('answer to /one');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.afterEnd).toBeGreaterThan(0);
    expect(seen[0]!.atCheck).toBe(0);
  });

  const abc = (last = '') =>
    ['a', 'b', 'c'].map((p, i) => `GET /${p} HTTP/1.1\r\nHost: x\r\n${i === 2 ? last : ''}\r\n`).join('');

  it('pipelined requests on one connection are answered whole and in order, then it closes', async () => {
    const answers = await raw(heldPort(), abc('Connection: close\r\n'), false);
    expect(answers.match(/answer to \/\w/g)).toEqual(['answer to /a', 'answer to /b', 'answer to /c']);
  });

  it('pipelined requests of a client that half-closes after them are all answered', async () => {
    const answers = await raw(heldPort(), abc());
    expect(answers.match(/answer to \/\w/g)).toEqual(['answer to /a', 'answer to /b', 'answer to /c']);
  });

  it('many connections at once: every answer whole', async () => {
    const paths = Array.from({ length: 40 }, (_, i) => `/c${i}`);
    const bodies = await Promise.all(
      paths.map((p) => fetch(`http://127.0.0.1:${heldPort()}${p}`).then((r) => r.text())),
    );
    expect(bodies).toEqual(paths.map((p) => `answer to ${p}`));
  });
});
