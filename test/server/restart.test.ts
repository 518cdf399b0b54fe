import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'partner-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('a second start on the same data dir keeps everything and does not seed again', async () => {
  const a = await startTestServer({ dataDir });
  const brand = await call(a, 'POST', '/v1/partner/brands', {
    key: 'persist-1',
    body: { title: 'Survives restarts' },
  });
  expect(brand.status).toBe(201);
  const cred = a.credential;
  const token = a.operatorToken;
  const local = join(dataDir, 'local.json');
  expect(statSync(local).mode & 0o777).toBe(0o600);
  await a.close();

  const b = await startTestServer({ dataDir });
  try {
    expect(b.server.seeded).toEqual([]);
    expect(b.operatorToken).toBe(token);
    expect(JSON.parse(readFileSync(local, 'utf8'))).toEqual({ base_url: b.baseUrl, operator_token: token });
    const businesses = await b.operator('GET', '/v1/operator/businesses');
    expect(businesses.body.data).toHaveLength(2);
    const brands = await call(b, 'GET', '/v1/partner/brands', { cred });
    expect(brands.status).toBe(200);
    expect(brands.body.data[0].brands.map((x: { title: string }) => x.title)).toContain('Survives restarts');
    // The idempotency record survived too: the same key replays.
    const again = await call(b, 'POST', '/v1/partner/brands', {
      cred,
      key: 'persist-1',
      body: { title: 'Survives restarts' },
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(brand.body.data.id);
  } finally {
    await b.close();
  }
});
