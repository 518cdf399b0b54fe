import { describe, expect, it } from 'vitest';
import { activityCount, serverWithOtherInstance } from '../helpers/pg-activity.js';
import { call, errorCode } from '../helpers/server.js';

// A partner read on PostgreSQL in one round trip: with a credential the instance verified before,
// the page read goes out with the admit (credential row and rate take) instead of after it. Seen
// from the database: while the admit waits on its rate-bucket row (held here by another
// connection), the read has already run. Its answer still waits for the admit.

const t = serverWithOtherInstance();

const branches = () => call(t.s, 'GET', '/v1/partner/branches?size=5');

/** Bounded wait until a backend of this database (not `other`) matches `where`. */
const seen = async (where: string, params: unknown[] = []) =>
  (await activityCount(
    t.other,
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND ${where}`,
    1,
    params,
  )) > 0;

describe('a partner read goes out with its admit', () => {
  it('the page read runs while the admit waits on its rate take; the answer waits for the admit', async () => {
    const first = await branches();
    expect(first.status).toBe(200); // verified and cached now; its bucket row exists
    await t.other.query('BEGIN');
    await t.other.query('SELECT 1 FROM rate_buckets WHERE credential_key = $1 FOR UPDATE', [
      t.s.credential.key,
    ]);
    const since = (await t.other.query<{ t: Date }>('SELECT clock_timestamp() AS t')).rows[0]!.t;
    let answered = false;
    const read = branches().then((r) => {
      answered = true;
      return r;
    });
    try {
      // The admit is held on the row lock...
      expect(await seen("wait_event_type = 'Lock' AND query LIKE '%rate_buckets%'")).toBe(true);
      // ...and the page read was sent with it, not after it.
      expect(await seen("query LIKE '%FROM branches%' AND query_start > $1", [since])).toBe(true);
      expect(answered).toBe(false);
    } finally {
      await t.other.query('COMMIT');
    }
    const r = await read;
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(first.body.data);
  });

  it('a read that went ahead is not answered when the admit finds the credential revoked meanwhile', async () => {
    const cred = await t.s.issueCredential({
      businessId: t.s.credential.businessId,
      scopes: ['branches:read'],
    });
    const mine = () => call(t.s, 'GET', '/v1/partner/branches?size=5', { cred });
    expect((await mine()).status).toBe(200);
    // Revoked as another instance would: in the database, with nothing said to this one.
    await t.other.query('UPDATE credentials SET revoked_at = now() WHERE key = $1', [cred.key]);
    const r = await mine();
    expect([r.status, errorCode(r)]).toEqual([403, 'auth_revoked']);
    expect(r.body.data).toBeUndefined();
  });

  it('a scope taken away meanwhile: 403, not the page read ahead', async () => {
    const cred = await t.s.issueCredential({
      businessId: t.s.credential.businessId,
      scopes: ['branches:read', 'orders:read'],
    });
    const mine = () => call(t.s, 'GET', '/v1/partner/branches?size=5', { cred });
    expect((await mine()).status).toBe(200);
    await t.other.query(`UPDATE credentials SET scopes = '["orders:read"]' WHERE key = $1`, [cred.key]);
    const r = await mine();
    expect([r.status, errorCode(r)]).toEqual([403, 'auth_forbidden']);
    expect(r.body.data).toBeUndefined();
  });

  it('a credential past its budget answers 429 with no data', async () => {
    const cred = await t.s.issueCredential({
      businessId: t.s.credential.businessId,
      scopes: ['branches:read'],
      rateLimit: 2,
    });
    const mine = () => call(t.s, 'GET', '/v1/partner/branches?size=5', { cred });
    expect([(await mine()).status, (await mine()).status]).toEqual([200, 200]);
    const refused = await mine();
    expect([refused.status, errorCode(refused)]).toEqual([429, 'rate_limit_exceeded']);
    expect(refused.body.data).toBeUndefined();
  });
});
