import { createServer, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.js';
import { openPool } from './pool.js';
import { asUnavailable } from './unavailable.js';

// A database host that takes the connection and then says nothing (a failover target that drops
// packets looks the same to the client): the pool gives up after its connect timeout, and the
// error is the API's 502, instead of a request that hangs.
const sockets = new Set<Socket>();
let accepted = 0;
const silent = createServer((s) => {
  accepted++;
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', () => ok()));
const port = (silent.address() as { port: number }).port;
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((ok) => silent.close(() => ok()));
});

describe('the pool against a host that never answers', () => {
  it('fails a connect after its timeout, as 502 downstream_unavailable', async () => {
    const pool = openPool(`postgres://partner@127.0.0.1:${port}/partner`, { connectTimeoutMs: 200 });
    try {
      const err = await pool.connect().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      const answered = asUnavailable(err);
      expect(answered).toBeInstanceOf(ApiError);
      expect((answered as ApiError).code).toBe('downstream_unavailable');
      // The host took the connection: the timeout, not a refusal, ended the attempt.
      expect(accepted).toBeGreaterThanOrEqual(1);
      expect((err as Error).message).toMatch(/timeout/);
    } finally {
      await pool.end();
    }
  });
});
