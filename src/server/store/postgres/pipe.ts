import type { Socket } from 'node:net';
import type pg from 'pg';
import type { QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { openClient } from './pool.js';

/** What a unit needs of a connection: statements (PgTx) and, for a pooled one, its return. */
export interface PgConn {
  query<R extends QueryResultRow = QueryResultRow>(
    config: QueryConfig | string,
    values?: unknown[],
  ): Promise<QueryResult<R>>;
}

/**
 * A few connections in node-postgres's pipeline mode, shared by every request of the instance,
 * for the work that is one statement outside any transaction: the credential check with its rate
 * take, the Idempotency-Key claims, a one-statement read, and the reads of a write unit on its
 * one-statement path (its one write goes out on a pooled connection: PgTx.flush). Statements from many requests go out back to back on one connection without waiting for
 * each other's answers, and each ends with its own Sync: it is its own implicit transaction, and
 * its failure touches no other. Measured on this machine (PostgreSQL and the server on one core,
 * 50 callers each running an UPDATE and a 20-row SELECT): 2,090 pairs/s on one pipelined
 * connection against 1,168/s on a pool of 10. A transaction (BEGIN … COMMIT) never runs here: it
 * would take in the statements of other requests; units on the full path take a pooled
 * connection as before. Nothing here waits for a pooled unit but a row lock, which that unit
 * releases by itself, so the two cannot wait on each other.
 */
export class PgPipe implements PgConn {
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
   * node-postgres writes each statement as soon as it is queued, one syscall each; on loopback
   * the sender also pays for the receiving side of TCP, so that write was the largest item of a
   * PATCH's profile. Held until the check phase of this turn of the event loop, the statements
   * of every request handled in the turn go out in one write.
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
