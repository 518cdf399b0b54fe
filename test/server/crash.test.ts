import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/pg-databases.js';
import { sleep, startRecorder } from '../helpers/receiver.js';
import { basic, type Envelope } from '../helpers/server.js';
import { spawnServer } from '../helpers/spawn-server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'partner-crash-'));
let database: TestDatabase | undefined;
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

const op = (baseUrl: string, token: string, method: string, path: string, body?: unknown) =>
  fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Envelope }));

it('kill -9 with a delivery under way loses nothing: after restart it is delivered with the same event id', async () => {
  // The receiver hangs on the first attempt (the server is killed while it waits), then answers 200.
  const rec = await startRecorder((n) => (n === 1 ? 'hang' : 200));
  // On PostgreSQL both processes use one database (the restart finds what the first one wrote).
  if (testBackend() === 'postgres') database = await createTestDatabase();
  const where = { dataDir, ...(database ? { database: database.url } : {}) };
  try {
    const first = await spawnServer({ ...where, seed: 'demo' });
    const { baseUrl, operatorToken, credential } = first;
    await op(baseUrl, operatorToken, 'POST', '/v1/operator/webhooks', {
      business_id: credential!.businessId,
      url: rec.url,
      event: 'all',
    });
    const branch = (
      await fetch(`${baseUrl}/v1/partner/branches`, { headers: { authorization: basic(credential!) } }).then(
        (r) => r.json() as Promise<Envelope>,
      )
    ).data.results[0];
    const made = await op(baseUrl, operatorToken, 'POST', '/v1/operator/orders', {
      business_id: credential!.businessId,
      brand_id: branch.brand_ids[0],
      branch_id: branch.id,
    });
    expect(made.status).toBe(201);
    await rec.waitFor(1);
    const eventId = rec.got[0]!.headers['x-partner-event-id'];
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();

    const second = await spawnServer(where);
    try {
      // The dead process's lease is reclaimed at start: no waiting for it to expire.
      const got = await rec.waitFor(2, 5_000);
      expect(got[1]!.headers['x-partner-event-id']).toBe(eventId);
      expect(got[1]!.headers['x-partner-delivery-attempt']).toBe('2');
      expect(got[1]!.body.equals(got[0]!.body)).toBe(true);
      await sleep(100);
      const log = await op(
        second.baseUrl,
        second.operatorToken,
        'GET',
        `/v1/operator/webhooks/log?event_id=${eventId}`,
      );
      expect(log.body.data[0].status).toBe('delivered');
      // The order written before the kill is there.
      const order = await fetch(`${second.baseUrl}/v1/partner/orders/${made.body.data.id}`, {
        headers: { authorization: basic(credential!) },
      });
      expect(order.status).toBe(200);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    await rec.close();
  }
});
