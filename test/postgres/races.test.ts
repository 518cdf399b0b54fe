import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { activityCount, serverWithOtherInstance } from '../helpers/pg-activity.js';
import { basic, call } from '../helpers/server.js';

// Races between instances that only a shared database has: another instance's unit commits
// between this unit's check and its write. A second connection to the server's database stands
// for the other instance, holding its transaction open at the exact point that matters.

const t = serverWithOtherInstance();

describe('a row deleted by another instance between check and write', () => {
  it('assigning a price group that another instance deletes meanwhile → the answer of a missing group (400), not 500', async () => {
    const group = await call(t.s, 'POST', '/v1/partner/price/groups', { body: { title: 'Gone soon' } });
    expect(group.status).toBe(201);
    const branch = (await call(t.s, 'GET', '/v1/partner/branches')).body.data.results[0].id as number;
    // The other instance deletes the group and has not committed yet: this instance still sees
    // the group, and its write waits on the deleted row's lock.
    await t.other.query('BEGIN');
    await t.other.query('DELETE FROM price_groups WHERE id = $1', [group.body.data.id]);
    const patch = call(t.s, 'PATCH', `/v1/partner/branches/${branch}`, {
      body: { price_group_id: group.body.data.id },
    });
    // Bounded wait until the PATCH is blocked on that lock, then the delete commits.
    expect(await lockWaiters(1)).toBe(1);
    await t.other.query('COMMIT');
    const r = await patch;
    // What the same PATCH answers once the delete has committed: the unit ran again and saw it.
    expect(r.status, r.text).toBe(400);
    expect(r.body.error?.details).toEqual([
      { path: ['body', 'price_group_id'], message: `no price group ${group.body.data.id}` },
    ]);
    const after = await call(t.s, 'GET', `/v1/partner/branches/${branch}`);
    expect(after.body.data.price_group_id).not.toBe(group.body.data.id);
  });
});

/**
 * Waits (bounded: 30 s, a bound on a hang, not on speed) until `n` statements of the server's
 * database wait on a lock. A request can take seconds to reach its statement on a busy machine.
 */
/** Bounded wait until `n` backends of this database wait on a lock. */
const lockWaiters = (n: number) =>
  activityCount(
    t.other,
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
    n,
  );

describe('two instances patching one row at once', () => {
  it('two PATCHes of different fields of one brand both hold (neither merge loses the other)', async () => {
    const brand = await call(t.s, 'POST', '/v1/partner/brands', {
      body: { title: 'Before', logo: 'before.png' },
    });
    expect(brand.status).toBe(201);
    const id = brand.body.data.id as number;
    // The row is held by a third party while both PATCHes arrive: both are under way together,
    // as on two instances, and go on together once it lets go.
    await t.other.query('BEGIN');
    await t.other.query('SELECT id FROM brands WHERE id = $1 FOR NO KEY UPDATE', [id]);
    const title = call(t.s, 'PATCH', `/v1/partner/brands/${id}`, { body: { title: 'After' } });
    const logo = call(t.s, 'PATCH', `/v1/partner/brands/${id}`, { body: { logo: 'after.png' } });
    // Both wait on the held row in the database (the first on the holder's transaction, the second
    // on the row's tuple lock behind it): neither is held back inside the instance.
    expect(await lockWaiters(2)).toBe(2);
    await t.other.query('COMMIT');
    expect((await title).status).toBe(200);
    expect((await logo).status).toBe(200);
    const list = (await call(t.s, 'GET', '/v1/partner/brands')).body.data[0].brands as { id: number }[];
    expect(list.find((b) => b.id === id)).toMatchObject({ title: 'After', logo: 'after.png' });
  });
});

describe('an Idempotency-Key given back after an error answer', () => {
  it('is free before the 400 goes out: a client that fixes its body and resends at once is not told in_flight', async () => {
    const key = `races-${Date.now()}`;
    const u = new URL(t.s.baseUrl);
    let markClaimed: () => void = () => undefined;
    const claimed = new Promise<void>((r) => {
      markClaimed = r;
    });
    // Headers first (the key is claimed when they arrive), the broken body later.
    const answer = new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          method: 'POST',
          path: '/v1/partner/brands',
          headers: {
            authorization: basic(t.s.credential),
            'content-type': 'application/json',
            'idempotency-key': key,
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write('{"title": ');
      claimed.then(() => req.end('"unterminated')).catch(reject);
    });
    let rows = 0;
    for (let i = 0; i < 150 && rows === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      rows =
        (await t.other.query('SELECT 1 FROM idempotency_claims WHERE idem_key = $1', [key])).rowCount ?? 0;
    }
    expect(rows).toBe(1);
    // Another party holds the claim's row: giving the key back waits for it.
    await t.other.query('BEGIN');
    await t.other.query('SELECT 1 FROM idempotency_claims WHERE idem_key = $1 FOR UPDATE', [key]);
    markClaimed();
    // The 400 is not sent while its key cannot be given back...
    const early = await Promise.race([answer, new Promise((r) => setTimeout(() => r('held'), 400))]);
    await t.other.query('COMMIT');
    expect(early).toBe('held');
    // ...and once it is, the fixed request runs at once, not 409 in_flight.
    expect(await answer).toBe(400);
    const fixed = await call(t.s, 'POST', '/v1/partner/brands', { body: { title: 'Fixed' }, key });
    expect(fixed.status, fixed.text).toBe(201);
  });
});
