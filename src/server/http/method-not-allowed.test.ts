import { afterAll, describe, expect, it } from 'vitest';
import { OPERATION_LIST } from '../../contract/operations.js';
import { stageApp } from './harness.js';
import { methodNotAllowed } from './method-not-allowed.js';

// The 405 stage in-process: the real operation table, and a route behind it that must not be
// reached when the method is wrong.

const app = stageApp([methodNotAllowed(OPERATION_LIST)]);
app.get('/v1/partner/brands', async () => 'reached');
afterAll(() => app.close());

describe('405 method not allowed', () => {
  it('a known path with a method it does not serve: 405 in the envelope, the same Allow for every method', async () => {
    const allows = new Set<string>();
    for (const method of ['DELETE', 'PUT', 'OPTIONS'] as const) {
      const r = await app.inject({ method, url: '/v1/partner/brands?x=1' });
      expect(r.statusCode).toBe(405);
      expect(r.json().error.code).toBe('request_method_not_allowed');
      expect(r.json().error.message).toBe(
        `${method} is not allowed on /v1/partner/brands; use ${r.headers.allow}`,
      );
      expect(r.headers['x-request-id']).toBe(r.json().request_id);
      allows.add(String(r.headers.allow));
    }
    expect([...allows]).toEqual(['GET, HEAD, POST']);
  });

  it('a static path wins over a parameter pattern that would match it', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/partner/orders/status' });
    expect(r.statusCode).toBe(405);
    expect(r.headers.allow).toBe('PATCH');
  });

  it('a served method, or an unknown path, goes on to routing', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/partner/brands' })).body).toBe('reached');
    const unknown = await app.inject({ method: 'DELETE', url: '/v1/partner/nothing-here' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('resource_not_found');
  });
});
