import { connect } from 'node:net';
import type { Begun } from '../../src/server/store/idempotency-repo.js';
import { basic, type TestServer } from './server.js';

// A write held in flight, for the tests of what the server does meanwhile (idempotency.test.ts,
// slow-body.test.ts): its headers and the first bytes of its body go out on a raw socket, the rest
// is held back, and the helper resolves once the server has *claimed* the request's
// Idempotency-Key. The claim is seen through a spy on the in-process server's own claims (it calls
// through; nothing is faked), on either backend. Before this, the tests probed with a second request
// until it was told in_flight, and on a loaded PostgreSQL run the probe sometimes reached the claim
// first and took the key (retried with fresh keys, bounded): waiting on the claim itself leaves
// no such race.

export interface HalfSent {
  /** What the server has answered so far on the socket ('' while it waits for the body). */
  readonly answer: string;
  /** Sends the rest of the body; resolves with the whole answer once the server closes the socket. */
  finish(): Promise<string>;
  /** Resolves with the whole answer once the server closes the socket (the body still held back). */
  readonly closed: Promise<string>;
}

/**
 * Resolves once a request of `credentialKey` claims `key` on this server (its own claims, spied
 * on). On PostgreSQL a claim is taken by `begin` or by the admit's statement, and either way
 * settled by PgClaims.settle, which is spied on there; on SQLite by `begin`.
 */
function claimOf(s: TestServer, credentialKey: string, key: string): { seen: Promise<void>; stop(): void } {
  const claims = s.server.services.store.claims as unknown as Record<
    'begin' | 'settle',
    (c: string, k: string, ...rest: unknown[]) => Promise<Begun>
  >;
  const spied = 'settle' in claims ? 'settle' : 'begin';
  const original = claims[spied];
  let seen!: () => void;
  const p = new Promise<void>((r) => {
    seen = r;
  });
  claims[spied] = async function (this: unknown, c, k, ...rest) {
    const begun = await original.call(this, c, k, ...rest);
    if (c === credentialKey && k === key && begun.kind === 'claimed') seen();
    return begun;
  };
  return {
    seen: p,
    stop: () => {
      claims[spied] = original;
    },
  };
}

/**
 * Sends `method path` with `key` and `body`, all but its last bytes, on a raw socket, and resolves
 * once the server holds the key for it. Throws with the answer if the server answers instead (a
 * refused credential, a key already in flight). Nothing here is timed: the wait ends on the claim
 * or on the answer, within the test's own timeout.
 */
export async function halfSentWrite(
  s: TestServer,
  o: { method: string; path: string; cred: { key: string; secret: string }; key: string; body: string },
): Promise<HalfSent> {
  const held = Math.min(5, Buffer.byteLength(o.body) - 1);
  const claim = claimOf(s, o.cred.key, o.key);
  const sock = connect(Number(new URL(s.baseUrl).port), '127.0.0.1');
  let answer = '';
  sock.on('data', (d) => {
    answer += d.toString();
  });
  sock.on('error', () => {});
  const closed = new Promise<string>((r) => sock.once('close', () => r(answer)));
  try {
    await new Promise<void>((r) => sock.once('connect', () => r()));
    sock.write(
      `${o.method} ${o.path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic(o.cred)}\r\nIdempotency-Key: ${o.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(o.body)}\r\nConnection: close\r\n\r\n${o.body.slice(0, held)}`,
    );
    const first = await Promise.race([claim.seen.then(() => 'claimed' as const), closed]);
    if (first !== 'claimed') throw new Error(`answered before it claimed its key: ${first}`);
  } finally {
    claim.stop();
  }
  return {
    get answer() {
      return answer;
    },
    closed,
    finish() {
      sock.write(o.body.slice(held));
      return closed;
    },
  };
}
