import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { halfSentWrite } from '../helpers/in-flight.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const brandCount = async () => (await s.rows<{ n: number }>('SELECT count(*) AS n FROM brands'))[0]!.n;

describe('Idempotency-Key', () => {
  it('is required on every write → 400 request_missing_idempotency_key', async () => {
    for (const [m, p] of [
      ['POST', '/v1/partner/brands'],
      ['PATCH', '/v1/partner/brands/1'],
      ['PUT', '/v1/partner/price/groups/1'],
      ['DELETE', '/v1/partner/price/groups/1'],
    ] as const) {
      const r = await call(s, m, p, { key: null, body: { title: 'x' } });
      expect(r.status, `${m} ${p}`).toBe(400);
      expect(r.body.error?.code).toBe('request_missing_idempotency_key');
    }
  });

  it('longer than 64 characters → 400 request_invalid', async () => {
    const r = await call(s, 'POST', '/v1/partner/brands', { key: 'k'.repeat(65), body: { title: 'x' } });
    expect(r.body.error?.code).toBe('request_invalid');
    expect(
      (await call(s, 'POST', '/v1/partner/brands', { key: 'k'.repeat(64), body: { title: 'x' } })).status,
    ).toBe(201);
  });

  it('same key + same body (any key order) → stored response replayed, data byte-identical, one row written', async () => {
    const before = await brandCount();
    const a = await call(s, 'POST', '/v1/partner/brands', {
      key: 'replay-1',
      body: { title: 'Replay', logo: 'l.png' },
    });
    const b = await call(s, 'POST', '/v1/partner/brands', {
      key: 'replay-1',
      body: '{"logo":"l.png",  "title":"Replay"}',
    });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.headers.get('idempotent-replayed')).toBeNull();
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const dataOf = (text: string) => text.slice(text.indexOf('"data":'));
    expect(dataOf(b.text)).toBe(dataOf(a.text));
    expect(b.body.request_id).not.toBe(a.body.request_id);
    expect(await brandCount()).toBe(before + 1);
  });

  it('a status change replays its first answer byte for byte after the order moved on, stored as a reference to its event', async () => {
    const place = (await call(s, 'GET', '/v1/partner/branches')).body.data.results[0];
    const made = await s.operator('POST', '/v1/operator/orders', {
      business_id: s.credential.businessId,
      brand_id: place.brand_ids[0],
      branch_id: place.id,
    });
    const id = made.body.data.id;
    const body = { id, status: 'ACCEPTED', platform: 'enterprise' };
    const first = await call(s, 'PATCH', '/v1/partner/orders/status', { key: 'status-ref-1', body });
    expect(first.status).toBe(200);
    const later = await call(s, 'PATCH', '/v1/partner/orders/status', {
      key: 'status-ref-2',
      body: { ...body, status: 'READY' },
    });
    expect(later.body.data.status).toBe(4);
    const again = await call(s, 'PATCH', '/v1/partner/orders/status', { key: 'status-ref-1', body });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const dataOf = (text: string) => text.slice(text.indexOf('"data":'));
    expect(dataOf(again.text)).toBe(dataOf(first.text));
    expect(again.body.data.status).toBe(2);
    // One copy of the record: the stored answer names the event that carries it.
    const [row] = await s.rows<{ payload: string | null; event_seq: number | null }>(
      "SELECT payload, event_seq FROM idempotency_keys WHERE idem_key = 'status-ref-1'",
    );
    // No copy of the bytes: null on both backends.
    expect(row!.payload).toBeNull();
    const [event] = await s.rows<{ payload: string }>(
      'SELECT payload FROM outbox_events WHERE seq = ?',
      row!.event_seq,
    );
    expect(JSON.parse(event!.payload).orders).toEqual([first.body.data]);
    // A refused change is stored as itself (no event behind it) and replayed the same.
    const refused = await call(s, 'PATCH', '/v1/partner/orders/status', {
      key: 'status-ref-3',
      body: { ...body, status: 'PLACED' },
    });
    expect(refused.status).toBe(409);
    const refusedAgain = await call(s, 'PATCH', '/v1/partner/orders/status', {
      key: 'status-ref-3',
      body: { ...body, status: 'PLACED' },
    });
    expect(refusedAgain.headers.get('idempotent-replayed')).toBe('true');
    const errorOf = (text: string) => text.slice(text.indexOf('"error":'));
    expect(refused.text).toContain('"error":');
    expect(errorOf(refusedAgain.text)).toBe(errorOf(refused.text));
  });

  it('same key + other body → 409 state_idempotency_conflict', async () => {
    await call(s, 'POST', '/v1/partner/brands', { key: 'conflict-1', body: { title: 'One' } });
    const r = await call(s, 'POST', '/v1/partner/brands', { key: 'conflict-1', body: { title: 'Two' } });
    expect(r.status).toBe(409);
    expect(r.body.error?.code).toBe('state_idempotency_conflict');
  });

  it('keys are scoped per credential', async () => {
    const a = await call(s, 'POST', '/v1/partner/price/groups', { key: 'shared-key', body: { title: 'A' } });
    const b = await call(s, 'POST', '/v1/partner/price/groups', {
      cred: s.other,
      key: 'shared-key',
      body: { title: 'B' },
    });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.data.title).toBe('B');
  });

  it('a 4xx from the handler is stored and replayed; a validation failure is not stored', async () => {
    const a = await call(s, 'PATCH', '/v1/partner/brands/999999', { key: 'nf-1', body: { title: 'x' } });
    expect(a.status).toBe(404);
    const b = await call(s, 'PATCH', '/v1/partner/brands/999999', { key: 'nf-1', body: { title: 'x' } });
    expect(b.status).toBe(404);
    expect(b.headers.get('idempotent-replayed')).toBe('true');

    const bad = await call(s, 'POST', '/v1/partner/brands', { key: 'fix-me', body: { title: '' } });
    expect(bad.status).toBe(400);
    const fixed = await call(s, 'POST', '/v1/partner/brands', { key: 'fix-me', body: { title: 'Fixed' } });
    expect(fixed.status).toBe(201);
  });

  it('same key while the first request is still in flight → 409 with details.reason in_flight', async () => {
    const body = { title: 'Slow brand' };
    // Headers and part of the body sent; resolved once the server holds the key for it.
    const first = await halfSentWrite(s, {
      method: 'POST',
      path: '/v1/partner/brands',
      cred: s.credential,
      key: 'flight-1',
      body: JSON.stringify(body),
    });
    const second = await call(s, 'POST', '/v1/partner/brands', { key: 'flight-1', body });
    expect(second.status).toBe(409);
    expect(second.body.error?.code).toBe('state_idempotency_conflict');
    expect((second.body.error!.details as { reason: string }).reason).toBe('in_flight');
    expect(first.answer).toBe(''); // still waiting for its body
    expect(await first.finish()).toMatch(/^HTTP\/1\.1 201/);
    const third = await call(s, 'POST', '/v1/partner/brands', { key: 'flight-1', body });
    expect(third.status).toBe(201);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a key claimed by a request answered 403 (scope) is free again: the same key works once the scope is given', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    // Verified once, so the next requests take the cached path (on PostgreSQL the admit claims
    // the key in its own statement, before the scope is checked).
    expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const denied = await call(s, 'POST', '/v1/partner/brands', {
        cred,
        key: 'scoped-1',
        body: { title: 'S' },
      });
      expect(denied.status).toBe(403);
      expect(denied.body.error?.code).toBe('auth_forbidden');
    }
    const set = await s.operator('PUT', `/v1/operator/credentials/${cred.key}/scopes`, {
      scopes: ['brands:read', 'brands:create'],
    });
    expect(set.status).toBe(200);
    const ok = await call(s, 'POST', '/v1/partner/brands', { cred, key: 'scoped-1', body: { title: 'S' } });
    expect(ok.status).toBe(201);
  });

  it('a 429 is not stored: the same key works once the limit allows', async () => {
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['brands:create'],
      rateLimit: 1,
    });
    expect(
      (await call(s, 'POST', '/v1/partner/brands', { cred, key: 'rl-0', body: { title: 'a' } })).status,
    ).toBe(201);
    const limited = await call(s, 'POST', '/v1/partner/brands', { cred, key: 'rl-1', body: { title: 'b' } });
    expect(limited.status).toBe(429);
    const rows = await s.rows(
      'SELECT 1 FROM idempotency_keys WHERE credential_key = ? AND idem_key = ?',
      cred.key,
      'rl-1',
    );
    expect(rows).toEqual([]);
  });

  it('a failed write leaves no rows behind', async () => {
    const branches = async () => (await s.rows<{ n: number }>('SELECT count(*) AS n FROM branches'))[0]!.n;
    const links = async () => (await s.rows<{ n: number }>('SELECT count(*) AS n FROM branch_brands'))[0]!.n;
    const before = [await branches(), await links()];
    const week = Object.fromEntries(
      ['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, { slots: [{ startTime: 900, endTime: 1700 }] }]),
    );
    // brand 1 exists, brand 999 does not: the insert of the branch and its first link must roll back.
    const r = await call(s, 'POST', '/v1/partner/branches', {
      body: {
        title: 'Half',
        brand_ids: [1, 999],
        country_id: 1,
        city_id: 101,
        currency_id: 1,
        available_times: week,
      },
    });
    expect(r.status).toBe(400);
    expect([await branches(), await links()]).toEqual(before);
  });
});
