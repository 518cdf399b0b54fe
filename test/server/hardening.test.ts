import { request as rawRequest } from 'node:http';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, call, startTestServer, type TestServer } from '../helpers/server.js';

// Findings of a review against the wire rules (docs/api.md): each of these once answered wrongly.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** A request with a path or headers fetch would refuse to send. */
function raw(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const u = new URL(s.baseUrl);
    const req = rawRequest({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('every answer under /v1 is an envelope', () => {
  it('a bad percent-encoding → 400 request_invalid', async () => {
    const r = await raw('/v1/partner/branches/%ZZ');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error.code).toBe('request_invalid');
    expect(JSON.parse(r.body).request_id).toBe(r.headers['x-request-id']);
  });

  it('a very long path parameter → 400 request_invalid, not a bare 414', async () => {
    const r = await raw(`/v1/partner/branches/${'9'.repeat(300)}`, { authorization: basic(s.credential) });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error.code).toBe('request_invalid');
  });

  it('a header block over the limit → 413 request_too_large in the envelope', async () => {
    const r = await raw('/v1/partner/brands', { 'x-big': 'x'.repeat(20_000) });
    expect(r.status).toBe(413);
    const body = JSON.parse(r.body);
    expect(body.error.code).toBe('request_too_large');
    expect(body.request_id).toMatch(/^req_/);
  });

  it('text/plain is an unsupported media type (415), like every non-JSON body', async () => {
    const r = await call(s, 'POST', '/v1/partner/brands', {
      body: '{"title":"x"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.status).toBe(415);
    expect(r.body.error?.code).toBe('request_unsupported_media_type');
  });

  it('malformed JSON carries [{path, message}] details like every validation error', async () => {
    const r = await call(s, 'POST', '/v1/partner/brands', { body: '{"title":' });
    expect(r.body.error?.details).toEqual([
      { path: ['body'], message: expect.stringMatching(/^malformed JSON/) },
    ]);
  });

  it('a static path of another method answers 405, not an invalid-id 400', async () => {
    const r = await call(s, 'GET', '/v1/partner/orders/status');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('PATCH');
  });
});

describe('client mistakes are 400s, never 500s', () => {
  it('a deeply nested body → 400 request_invalid', async () => {
    // Written as text: JSON.stringify itself recurses and would overflow here.
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    for (const body of [`{"title":"x","business_id":${deep}}`, `{"title":"x","extra":${deep}}`]) {
      const r = await call(s, 'POST', '/v1/partner/brands', { body });
      expect(r.status).toBe(400);
      expect(r.body.error?.code).toBe('request_invalid');
    }
    const branch = await call(s, 'PATCH', '/v1/partner/branches/1', { body: `{"note":${deep}}` });
    expect(branch.status).toBe(400);
  });

  it('only plain digits are integers in queries and paths', async () => {
    for (const q of ['page=0x2', 'size=1e1', 'page=%201', 'page=+1']) {
      const r = await call(s, 'GET', `/v1/partner/branches?${q}`);
      expect(r.status, q).toBe(400);
    }
    for (const id of ['0x1', '1e0', '1.0'])
      expect((await call(s, 'GET', `/v1/partner/branches/${id}`)).status, id).toBe(400);
    expect((await call(s, 'GET', '/v1/partner/branches?page=2&size=1')).body.data.page).toBe(2);
  });

  it('opening_time and closing_time follow the minutes < 60 rule', async () => {
    const r = await call(s, 'PATCH', '/v1/partner/branches/1', { body: { opening_time: 1075 } });
    expect(r.status).toBe(400);
  });
});

it('a new schedule on update re-derives open days, mask and hours', async () => {
  const day = (disabled: boolean) => ({ disabled, slots: [{ startTime: 900, endTime: 1700 }] });
  const times = {
    '0': day(true),
    '1': day(true),
    '2': day(false),
    '3': day(false),
    '4': day(false),
    '5': day(false),
    '6': day(false),
  };
  const r = await call(s, 'PATCH', '/v1/partner/branches/1', { body: { available_times: times } });
  expect(r.status).toBe(200);
  expect(r.body.data).toMatchObject({
    day_availability: [2, 3, 4, 5, 6],
    availability_mask: 0b1111100,
    opening_time: 900,
    closing_time: 1700,
  });
});

it('the database files are readable by their owner only', async () => {
  await call(s, 'POST', '/v1/partner/brands', { body: { title: 'wal please' } });
  // On PostgreSQL the data dir holds no database file and no seal key (every instance is given
  // the same one): only local.json.
  const files = s.backend === 'sqlite' ? ['partner.db', 'partner.db-wal', 'secret.key'] : [];
  if (s.backend === 'postgres')
    for (const f of ['partner.db', 'secret.key']) expect(existsSync(join(s.dataDir, f)), f).toBe(false);
  for (const f of [...files, 'local.json']) {
    expect(statSync(join(s.dataDir, f)).mode & 0o777, f).toBe(0o600);
  }
  expect(statSync(s.dataDir).mode & 0o777).toBe(0o700);
});

describe('credential changes during a verification still take effect on the next request', () => {
  // The first request of a new credential verifies its secret (scrypt, tens of ms); the operator
  // change lands while that runs. The answer to that first request may be either; the next must
  // reflect the change.
  it('revoke', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    const first = call(s, 'GET', '/v1/partner/brands', { cred });
    await new Promise((r) => setTimeout(r, 5));
    await s.operator('POST', `/v1/operator/credentials/${cred.key}/revoke`);
    await first;
    expect((await call(s, 'GET', '/v1/partner/brands', { cred })).body.error?.code).toBe('auth_revoked');
  });

  it('scope change', async () => {
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['brands:read', 'orders:read'],
    });
    const first = call(s, 'GET', '/v1/partner/brands', { cred });
    await new Promise((r) => setTimeout(r, 5));
    await s.operator('PUT', `/v1/operator/credentials/${cred.key}/scopes`, { scopes: ['orders:read'] });
    await first;
    expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(403);
  });

  it('rotation with no grace', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['brands:read'] });
    const first = call(s, 'GET', '/v1/partner/brands', { cred });
    await new Promise((r) => setTimeout(r, 5));
    await s.operator('POST', `/v1/operator/credentials/${cred.key}/rotate`, { grace_seconds: 0 });
    await first;
    expect((await call(s, 'GET', '/v1/partner/brands', { cred })).status).toBe(401);
  });
});
