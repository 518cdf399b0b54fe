import { request } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../src/server/store/postgres/store.js';
import { startCountingReceiver } from './counting-receiver.js';
import { ensureBuilt, killAll, runCli, tempDir } from './instances.js';
import { basic, OPERATOR_TOKEN, type Service, startService } from './service.js';

// Three `partner local start` processes (the built binary) on one PostgreSQL database, requests
// spread round-robin across them: they must behave as one service (docs/deploy.md, "Guarantees
// across instances"). Runs in the postgres vitest project only.

let s: Service;

beforeAll(async () => {
  ensureBuilt();
  // The dispatchers' backstop poll is 10 minutes (the default is 5 s): every delivery in this
  // file must come from a wake-up (its own commit, or a NOTIFY), never from the poll's luck.
  s = await startService({ PARTNER_DELIVERY_POLL: '10m' });
}, 60_000);
afterAll(async () => {
  await s?.stop().catch(() => undefined);
  killAll();
});

/** The answer without its request id: what "byte-identical" compares. */
const sameBytes = (text: string) => text.replace(/"request_id":"[^"]*"/, '"request_id":"-"');

describe('idempotency across instances', () => {
  it('the same key sent to all three at once runs once; every instance replays the same bytes', async () => {
    const key = `mi-same-${Date.now()}`;
    const body = { title: `Multi ${key}` };
    const all = await Promise.all(
      [0, 1, 2, 3].flatMap(() =>
        s.urls.map((u) => s.partner(u, 'POST', '/v1/partner/brands', { body, key })),
      ),
    );
    const fresh = all.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') !== 'true');
    const replayed = all.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === 'true');
    const inFlight = all.filter((a) => a.status === 409 && a.json.error?.details?.reason === 'in_flight');
    expect(fresh).toHaveLength(1);
    expect(fresh.length + replayed.length + inFlight.length).toBe(all.length);
    const first = sameBytes(fresh[0]!.text);
    for (const r of replayed) expect(sameBytes(r.text)).toBe(first);

    // Settled: each instance answers the stored answer, byte for byte.
    for (const u of s.urls) {
      const again = await s.partner(u, 'POST', '/v1/partner/brands', { body, key });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(sameBytes(again.text)).toBe(first);
    }
    const brands = await s.partner(s.next(), 'GET', '/v1/partner/brands');
    expect(brands.status).toBe(200);
    const titles = (brands.json.data as { brands: { title: string }[] }[]).flatMap((e) =>
      e.brands.map((b) => b.title),
    );
    expect(titles.filter((t) => t === body.title)).toHaveLength(1);
  });

  it('a claim in flight on one instance is 409 in_flight on the others until it answers', async () => {
    const key = `mi-flight-${Date.now()}`;
    const body = JSON.stringify({ title: `Slow ${key}` });
    const u = new URL(s.urls[0]!);
    // Headers and half the body to instance 1; the rest later.
    let answered: (v: { status: number; text: string }) => void = () => undefined;
    const slow = new Promise<{ status: number; text: string }>((r) => {
      answered = r;
    });
    const req = request({
      host: u.hostname,
      port: u.port,
      method: 'POST',
      path: '/v1/partner/brands',
      headers: {
        authorization: basic(s.credential),
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'idempotency-key': key,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => answered({ status: res.statusCode ?? 0, text }));
    });
    req.write(body.slice(0, 5));
    // The claim is taken when the headers arrive: wait (bounded) for its row. Probing with the
    // same key instead could take the key for a moment itself, and the slow request, arriving
    // in that moment, would be the one answered in_flight.
    const db = new pg.Client({ connectionString: s.db.url });
    await db.connect();
    try {
      let held = 0;
      for (let i = 0; i < 250 && held === 0; i++) {
        held = (await db.query('SELECT 1 FROM idempotency_claims WHERE idem_key = $1', [key])).rowCount ?? 0;
        if (held === 0) await new Promise((r) => setTimeout(r, 20));
      }
      expect(held).toBe(1);
    } finally {
      await db.end();
    }
    // An invalid body is answered 409 too: the claim is judged before the body.
    const probe = await s.partner(s.urls[1]!, 'POST', '/v1/partner/brands', { body: {}, key });
    expect(probe.status).toBe(409);
    const seen = await s.partner(s.urls[1]!, 'POST', '/v1/partner/brands', { body: JSON.parse(body), key });
    expect(seen.status).toBe(409);
    expect(seen.json.error?.details?.reason).toBe('in_flight');
    const third = await s.partner(s.urls[2]!, 'POST', '/v1/partner/brands', { body: JSON.parse(body), key });
    expect(third.status).toBe(409);
    expect(third.json.error?.details?.reason).toBe('in_flight');

    req.end(body.slice(5));
    const done = await slow;
    expect(done.status).toBe(201);
    for (const url of [s.urls[1]!, s.urls[2]!]) {
      const replay = await s.partner(url, 'POST', '/v1/partner/brands', { body: JSON.parse(body), key });
      expect(replay.status).toBe(201);
      expect(sameBytes(replay.text)).toBe(sameBytes(done.text));
    }
  });

  it('a status change, kept as a reference to its event, replays its first bytes on every instance after the order moved on', async () => {
    const branches = (await s.partner(s.next(), 'GET', '/v1/partner/branches')).json.data as {
      results: { id: number; brand_ids: number[] }[];
    };
    const made = await s.operator(s.urls[0]!, 'POST', '/v1/operator/orders', {
      business_id: s.credential.businessId,
      brand_id: branches.results[0]!.brand_ids[0],
      branch_id: branches.results[0]!.id,
    });
    expect(made.status).toBe(201);
    const body = { id: (made.json.data as { id: number }).id, status: 'ACCEPTED', platform: 'enterprise' };
    const key = `mi-status-${Date.now()}`;
    const first = await s.partner(s.urls[0]!, 'PATCH', '/v1/partner/orders/status', { body, key });
    expect(first.status).toBe(200);
    const later = await s.partner(s.urls[1]!, 'PATCH', '/v1/partner/orders/status', {
      body: { ...body, status: 'READY' },
      key: `${key}-later`,
    });
    expect((later.json.data as { status: number }).status).toBe(4);
    for (const u of s.urls) {
      const again = await s.partner(u, 'PATCH', '/v1/partner/orders/status', { body, key });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(sameBytes(again.text)).toBe(sameBytes(first.text));
      expect((again.json.data as { status: number }).status).toBe(2);
    }
  });
});

describe('rate limits across instances', () => {
  it('one budget per credential: at most limit + limit × T/60 s answers in T seconds, whichever instance', async () => {
    const limit = 30;
    const made = await s.operator(s.next(), 'POST', '/v1/operator/credentials', {
      business_id: s.credential.businessId,
      scopes: ['brands:read'],
      rate_limit: limit,
    });
    expect(made.status).toBe(201);
    const cred = made.json.data as { key: string; secret: string };
    const started = Date.now();
    // 90 requests, 3 × the budget, in waves of 9 round-robin.
    const answers = [];
    for (let wave = 0; wave < 10; wave++)
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 9 }, () => s.partner(s.next(), 'GET', '/v1/partner/brands', { cred })),
        )),
      );
    const seconds = (Date.now() - started) / 1000;
    const ok = answers.filter((a) => a.status === 200).length;
    const limited = answers.filter((a) => a.status === 429);
    expect(ok + limited.length).toBe(answers.length);
    // The bound of docs/api.md: the bucket's capacity plus what refilled meanwhile.
    const bound = limit + Math.floor((limit * seconds) / 60);
    console.log(
      `rate limit across 3 instances: ${ok} of ${answers.length} allowed in ${seconds.toFixed(2)} s (limit ${limit}/min, bound ${bound})`,
    );
    expect(ok).toBeLessThanOrEqual(bound);
    // A shared bucket, not one per instance (which would allow 3 × 30).
    expect(ok).toBeGreaterThanOrEqual(limit);
    for (const r of limited) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.json.error?.code).toBe('rate_limit_exceeded');
    }
  });
});

describe('credential changes through one instance hold on the next request on every other', () => {
  it('scope change, rotation and revocation, made with `partner operator` against one instance', async () => {
    const made = await s.operator(s.next(), 'POST', '/v1/operator/credentials', {
      business_id: s.credential.businessId,
      scopes: ['brands:read', 'branches:read'],
    });
    const cred = made.json.data as { key: string; secret: string };
    // Every instance has verified (and cached) it.
    for (const u of s.urls)
      expect((await s.partner(u, 'GET', '/v1/partner/brands', { cred })).status).toBe(200);

    const opEnv = (url: string) => ({
      ...s.env,
      PARTNER_OPERATOR_URL: url,
      PARTNER_OPERATOR_TOKEN: OPERATOR_TOKEN,
    });
    // Scopes through instance 1 (flags), checked at once on 2 and 3.
    const scoped = await runCli(
      [
        'operator',
        'credentials',
        'scopes',
        cred.key,
        '--set',
        'branches:read',
        '--server',
        s.urls[0]!,
        '--token',
        OPERATOR_TOKEN,
      ],
      s.env,
    );
    expect(scoped.code).toBe(0);
    for (const u of [s.urls[1]!, s.urls[2]!]) {
      const r = await s.partner(u, 'GET', '/v1/partner/brands', { cred });
      expect(r.status).toBe(403);
      expect(r.json.error?.code).toBe('auth_forbidden');
      expect((await s.partner(u, 'GET', '/v1/partner/branches', { cred })).status).toBe(200);
    }

    // Rotation without grace through instance 2 (environment): the old secret fails at once on 1 and 3.
    const rotated = await runCli(
      ['operator', 'credentials', 'rotate', cred.key, '--grace', '0', '--json'],
      opEnv(s.urls[1]!),
    );
    expect(rotated.code).toBe(0);
    const fresh = { key: cred.key, secret: (JSON.parse(rotated.stdout) as { secret: string }).secret };
    for (const u of [s.urls[0]!, s.urls[2]!]) {
      expect((await s.partner(u, 'GET', '/v1/partner/branches', { cred })).status).toBe(401);
      expect((await s.partner(u, 'GET', '/v1/partner/branches', { cred: fresh })).status).toBe(200);
    }

    // Revocation through instance 3: refused at once on 1 and 2.
    const revoked = await runCli(['operator', 'credentials', 'revoke', cred.key, '--yes'], opEnv(s.urls[2]!));
    expect(revoked.code).toBe(0);
    for (const u of [s.urls[0]!, s.urls[1]!]) {
      const r = await s.partner(u, 'GET', '/v1/partner/branches', { cred: fresh });
      expect(r.status).toBe(403);
      expect(r.json.error?.code).toBe('auth_revoked');
    }
  });
});

describe('webhook outbox across instances', () => {
  it('each delivery once per event id, at most 4 in flight to one URL across all three', async () => {
    const receiver = await startCountingReceiver(250);
    try {
      const hook = await s.operator(s.next(), 'POST', '/v1/operator/webhooks', {
        business_id: s.credential.businessId,
        url: receiver.url,
        event: 'service.order.status.updated',
      });
      expect(hook.status).toBe(201);
      const branches = (await s.partner(s.next(), 'GET', '/v1/partner/branches')).json.data as {
        results: { id: number; brand_ids: number[] }[];
      };
      const branch = branches.results[0]!;
      const orders: number[] = [];
      for (let i = 0; i < 24; i++) {
        const o = await s.operator(s.next(), 'POST', '/v1/operator/orders', {
          business_id: s.credential.businessId,
          brand_id: branch.brand_ids[0],
          branch_id: branch.id,
        });
        expect(o.status).toBe(201);
        orders.push((o.json.data as { id: number }).id);
      }
      // 24 status events written at once through all three instances: 24 deliveries to one URL.
      const patched = await Promise.all(
        orders.map((id, i) =>
          s.partner(s.next(), 'PATCH', '/v1/partner/orders/status', {
            body: { id, status: 'ACCEPTED', platform: 'enterprise' },
            key: `mi-accept-${id}-${i}`,
          }),
        ),
      );
      for (const p of patched) expect(p.status).toBe(200);
      await receiver.until(
        () => orders.every((id) => receiver.orderIds().has(id)),
        20_000,
        'every status event delivered',
      );
      const counts = [...receiver.counts().values()];
      console.log(
        `outbox across 3 instances: ${counts.length} events, ${receiver.got.length} deliveries, at most ${receiver.maxOpen()} in flight to one URL`,
      );
      expect(counts.every((n) => n === 1)).toBe(true);
      expect(receiver.maxOpen()).toBeLessThanOrEqual(4);
      // The bound was reached, so it was the bound that held the rest back.
      expect(receiver.maxOpen()).toBeGreaterThanOrEqual(2);
      await s.operator(s.next(), 'DELETE', `/v1/operator/webhooks/${(hook.json.data as { id: number }).id}`);
    } finally {
      await receiver.close();
    }
  });

  it('is woken by LISTEN/NOTIFY: an event written by another process goes out, with the poll at 10 minutes', async () => {
    const receiver = await startCountingReceiver(0);
    // A process with no dispatcher writes events as an instance does (the outbox insert and its
    // NOTIFY in one transaction): only a notification can wake the three instances that quickly.
    const writer = await PgStore.open(s.db.url);
    try {
      const hook = await s.operator(s.next(), 'POST', '/v1/operator/webhooks', {
        business_id: s.credential.businessId,
        url: receiver.url,
        event: 'service.order.status.updated',
      });
      const branches = (await s.partner(s.next(), 'GET', '/v1/partner/branches')).json.data as {
        results: { id: number; brand_ids: number[] }[];
      };
      const branch = branches.results[0]!;
      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t0 = Date.now();
        const id = await writer.write((tx) =>
          tx.tenant(s.credential.businessId).outbox.enqueue({
            type: 'service.order.status.updated',
            brandId: branch.brand_ids[0]!,
            branchId: branch.id,
            orders: [JSON.stringify({ id: 900_000 + i, status: 'ACCEPTED' })],
            now: t0,
          }),
        );
        // Bounded far below the 10-minute poll: only a NOTIFY can have woken an instance.
        await receiver.until(() => receiver.counts().has(id), 60_000, `event ${id} delivered`);
        latencies.push(receiver.got.find((g) => g.eventId === id)!.at - t0);
      }
      // And through the API: a status patch on one instance, delivered by whichever claims it.
      const o = await s.operator(s.next(), 'POST', '/v1/operator/orders', {
        business_id: s.credential.businessId,
        brand_id: branch.brand_ids[0],
        branch_id: branch.id,
      });
      const orderId = (o.json.data as { id: number }).id;
      const t1 = Date.now();
      const p = await s.partner(s.next(), 'PATCH', '/v1/partner/orders/status', {
        body: { id: orderId, status: 'ACCEPTED', platform: 'enterprise' },
        key: `mi-notify-${orderId}`,
      });
      expect(p.status).toBe(200);
      await receiver.until(() => receiver.orderIds().has(orderId), 60_000, 'the patch delivered');
      const viaApi = receiver.got.find((g) => g.orderIds.includes(orderId))!.at - t1;
      console.log(
        `NOTIFY wake-up: event to receiver ${latencies.join(', ')} ms; a PATCH to its delivery ${viaApi} ms`,
      );
      // How fast is the bench's business (docs/benchmarks.md); that they arrived at all is this test's.
      expect(latencies).toHaveLength(5);
      await s.operator(s.next(), 'DELETE', `/v1/operator/webhooks/${(hook.json.data as { id: number }).id}`);
    } finally {
      await writer.close();
      await receiver.close();
    }
  });
});

describe('shared configuration on PostgreSQL', () => {
  it('an instance without the seal key and operator token, or with another seal key, is refused before it serves', async () => {
    const none = await runCli(['local', 'start', '--port', '0', '--data', tempDir('partner-data-')], {
      ...s.env,
      PARTNER_SEAL_KEY: '',
      PARTNER_OPERATOR_TOKEN: '',
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'error: on PostgreSQL every instance must be given the seal key (PARTNER_SEAL_KEY, PARTNER_SEAL_KEY_FILE or --seal-key-file) and the operator token (PARTNER_OPERATOR_TOKEN, PARTNER_OPERATOR_TOKEN_FILE or --operator-token-file), the same for all instances (docs/deploy.md)\n',
    );
    // A webhook secret sealed by the service, then a fourth instance with another key.
    const made = await s.operator(s.next(), 'POST', '/v1/operator/webhook-secrets', {
      business_id: s.credential.businessId,
    });
    expect(made.status).toBe(200);
    const other = await runCli(['local', 'start', '--port', '0', '--data', tempDir('partner-data-')], {
      ...s.env,
      PARTNER_SEAL_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^error: the seal key given does not open the webhook signing secrets/);
    expect(other.stdout).toBe('');
  });
});
