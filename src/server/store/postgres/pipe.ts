import type { Socket } from 'node:net';
import type pg from 'pg';
import type { QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { openClient } from './pool.js';

/** What a unit needs of a connection, pooled or the pipe: its statements (PgTx). */
export type PgConn = Pick<PgPipe, 'query'>;

/**
 * A few connections in node-postgres's pipeline mode, shared by the instance's requests, for work
 * that is one statement outside any transaction (the credential check and rate take, the claims,
 * one-statement reads, the reads of a write unit's one-statement path). Statements of many
 * requests go out back to back, each with its own Sync: its own implicit transaction, whose
 * failure touches no other. Measured (PostgreSQL and server on one core, 50 callers each running
 * an UPDATE and a 20-row SELECT): 2,090 pairs/s on one pipelined connection, 1,168/s on a pool of
 * 10. A transaction never runs here (it would take in other requests' statements). Nothing here
 * waits for a pooled unit but a row lock, which that unit releases by itself: no deadlock.
 */
export class PgPipe {
  private readonly conns: (Promise<pg.Client> | undefined)[];
  private turn = 0;
  private readonly corked = new WeakSet<Socket>();
  private ended = false;

  constructor(
    private readonly url: string,
    size: number,
    private readonly connectTimeoutMs: number,
  ) {
    this.conns = new Array<Promise<pg.Client> | undefined>(size).fill(undefined);
  }

  async query<R extends QueryResultRow = QueryResultRow>(
    config: QueryConfig | string,
    values?: unknown[],
  ): Promise<QueryResult<R>> {
    const client = await this.conn(this.turn++ % this.conns.length);
    this.corkForTurn(client);
    return client.query<R>(typeof config === 'string' ? { text: config, values } : config);
  }

  /**
   * node-postgres writes each statement at once, a syscall each (on loopback the sender also pays
   * for TCP's receiving side: the largest item of a PATCH's profile). Held until this turn's check
   * phase, the statements of every request of the turn go out in one write.
   */
  private corkForTurn(client: pg.Client): void {
    const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
    if (this.corked.has(stream)) return;
    this.corked.add(stream);
    stream.cork();
    setImmediate(() => {
      this.corked.delete(stream);
      stream.uncork();
    });
  }

  /** Closes the connections (the statements already sent are answered first). */
  async end(): Promise<void> {
    this.ended = true;
    const open = this.conns.splice(0);
    await Promise.all(open.map((c) => c?.then((x) => x.end()).catch(() => undefined)));
  }

  /** The i-th connection, opened on first use and again after it failed (a database restart). */
  private conn(i: number): Promise<pg.Client> {
    if (this.ended) return Promise.reject(new Error('the store is closed'));
    let c = this.conns[i];
    if (c === undefined) {
      const client = openClient(this.url, {
        pipeline: true,
        // Nothing a 2xx stands on commits here (PgTx.flush takes a pooled connection): a rate take
        // or a claim need not wait for the disk, and one waiting would hold up every statement
        // queued behind it on the connection.
        options: '-c synchronous_commit=off',
        connectionTimeoutMillis: this.connectTimeoutMs,
        keepAlive: true,
      });
      const drop = () => {
        if (this.conns[i] === c) this.conns[i] = undefined;
        void client.end().catch(() => undefined);
      };
      // Its statements in flight fail and tell their callers; the next one opens a new connection.
      client.on('error', drop);
      client.on('end', drop);
      c = client.connect().then(
        () => client,
        (err: unknown) => {
          drop();
          throw err;
        },
      );
      this.conns[i] = c;
    }
    return c;
  }
}
