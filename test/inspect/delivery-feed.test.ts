import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '../../src/webhooks/signature.js';
import { startRecorder } from '../helpers/receiver.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { runCli, tempDir } from '../cli/run-cli.js';

// GET /v1/operator/webhooks/deliveries: the feed partner inspect polls. Deliveries in the order
// they changed, with the exact body and headers a receiver gets, continued from a cursor.

let s: TestServer;
let rec: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo', retrySchedule: [50] });
  // The first attempt fails, the retry succeeds: one delivery changes twice.
  rec = await startRecorder((n) => (n === 1 ? 500 : 200));
  const r = await s.operator('POST', '/v1/operator/webhooks', {
    business_id: s.credential.businessId,
    url: rec.url,
    event: 'all',
  });
  expect(r.status).toBe(201);
});
afterAll(async () => {
  await rec?.close();
  await s?.close();
});

async function feed(query: string) {
  const r = await s.operator('GET', `/v1/operator/webhooks/deliveries${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as {
    results: {
      id: number;
      event_id: string;
      status: string;
      order_ids: number[];
      brand_id: number;
      branch_id: number;
      body: string;
      headers: Record<string, string>;
      log: { status_code: number | null }[];
      updated_at: string;
    }[];
    next: { since: string; after_id: number } | null;
  };
}

describe('the delivery feed', () => {
  it('carries the exact body and headers the receiver got, and goes on from a cursor', async () => {
    const empty = await feed('');
    expect(empty).toEqual({ results: [], next: null });

    const b = (await call(s, 'GET', '/v1/partner/branches')).body.data.results[0];
    const created = await s.operator('POST', '/v1/operator/orders', {
      business_id: s.credential.businessId,
      brand_id: b.brand_ids[0],
      branch_id: b.id,
      items: 2,
    });
    expect(created.status).toBe(201);
    const order = created.body.data;
    const got = await rec.waitFor(2);

    const first = await feed('');
    expect(first.results).toHaveLength(1);
    const d = first.results[0]!;
    expect(d.status).toBe('delivered');
    expect(d.order_ids).toEqual([order.id]);
    expect([d.brand_id, d.branch_id]).toEqual([b.brand_ids[0], b.id]);
    expect(d.log.map((a) => a.status_code)).toEqual([500, 200]);
    // What the receiver got, byte for byte, and the headers of its last attempt.
    expect(d.body).toBe(got[1]!.body.toString('utf8'));
    for (const h of [
      'x-partner-event-id',
      'x-partner-event-type',
      'x-partner-delivery-attempt',
      'x-partner-signature',
    ])
      expect(d.headers[h], h).toBe(got[1]!.headers[h]);
    const sec = await s.operator('POST', '/v1/operator/webhook-secrets', {
      business_id: s.credential.businessId,
    });
    expect(sec.status, JSON.stringify(sec.body)).toBe(200);
    const secret = sec.body.data.webhook_secret_key as string;
    expect(verify(secret, Buffer.from(d.body), d.headers['x-partner-signature'])).toBe(true);
    expect(JSON.stringify(d)).not.toContain(secret);

    // Nothing changed since the cursor: nothing; a status change: that delivery, once.
    const { since, after_id } = first.next!;
    const q = `?since=${encodeURIComponent(since)}&after_id=${after_id}`;
    expect((await feed(q)).results).toEqual([]);
    const patched = await call(s, 'PATCH', '/v1/partner/orders/status', {
      body: { id: order.id, status: 'ACCEPTED', platform: 'enterprise' },
    });
    expect(patched.status).toBe(200);
    await rec.waitFor(3);
    const next = await feed(q);
    expect(next.results.map((r) => r.order_ids)).toEqual([[order.id]]);
    expect(next.results[0]!.id).not.toBe(d.id);
    expect(JSON.parse(next.results[0]!.body).orders[0].status).toBe(2);
  });

  it('pages through changes with limit, oldest change first', async () => {
    const all = await feed('?since=2000-01-01T00:00:00Z&limit=1000');
    expect(all.results.length).toBeGreaterThanOrEqual(2);
    const seen: number[] = [];
    let cursor = '?since=2000-01-01T00:00:00Z&limit=1';
    for (let i = 0; i < 10; i++) {
      const page = await feed(cursor);
      if (!page.next) break;
      seen.push(...page.results.map((r) => r.id));
      cursor = `?since=${encodeURIComponent(page.next.since)}&after_id=${page.next.after_id}&limit=1`;
    }
    expect(seen).toEqual(all.results.map((r) => r.id));
    const stamps = all.results.map((r) => r.updated_at);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it('is `partner operator webhooks deliveries`, with the cursor as flags', async () => {
    const all = await feed('');
    const r = await runCli(
      [
        'operator',
        'webhooks',
        'deliveries',
        '--data',
        s.dataDir,
        '--since',
        '2000-01-01T00:00:00Z',
        '--limit',
        '1',
        '--json',
      ],
      { configDir: tempDir() },
    );
    expect(r.code, r.stderr).toBe(0);
    const page = JSON.parse(r.stdout);
    expect(page.results.map((d: { id: number }) => d.id)).toEqual([all.results[0]!.id]);
    const next = await runCli(
      [
        'operator',
        'webhooks',
        'deliveries',
        '--data',
        s.dataDir,
        '--since',
        page.next.since,
        '--after-id',
        String(page.next.after_id),
        '--json',
      ],
      { configDir: tempDir() },
    );
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).results.map((d: { id: number }) => d.id)).toEqual(
      all.results.slice(1).map((d) => d.id),
    );
  });

  it('rejects a bad cursor with request_invalid', async () => {
    const r = await s.operator('GET', '/v1/operator/webhooks/deliveries?since=yesterday');
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe('request_invalid');
  });
});
