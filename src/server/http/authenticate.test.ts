import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../contract/operations.js';
import { authenticate } from './authenticate.js';
import { type RealServices, realServices, stageApp } from './harness.js';
import { inOrder } from './stage.js';

// The authenticate stage in-process on a real server's services: what each kind of operation
// asks for, and what it leaves on the request for the stages after it.

let s: RealServices;
let app: ReturnType<typeof stageApp>;
beforeAll(async () => {
  s = await realServices();
  app = stageApp();
  const services = s.server.services;
  app.get(
    '/partner',
    { onRequest: inOrder([authenticate(OPERATIONS.listBrands, services)]) },
    async (req) => ({
      key: req.credential?.key,
      limit: req.rate?.limit,
    }),
  );
  app.get(
    '/operator',
    { onRequest: inOrder([authenticate(OPERATIONS.operatorListCredentials, services)]) },
    async () => 'operator',
  );
});
afterAll(async () => {
  await app.close();
  await s.close();
});

describe('authenticate', () => {
  it('a partner operation: the credential and its rate decision are left on the request', async () => {
    const r = await app.inject({ url: '/partner', headers: { authorization: s.basic(s.cred) } });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ key: s.cred.key, limit: expect.any(Number) });
  });

  it('a partner operation without a valid credential: 401 in the envelope', async () => {
    const none = await app.inject({ url: '/partner' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('auth_missing');
    expect(none.headers['www-authenticate']).toBe('Basic realm="partner"');
    const wrong = await app.inject({
      url: '/partner',
      headers: { authorization: s.basic({ ...s.cred, secret: 'x' }) },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('auth_invalid_credential');
  });

  it('an operator operation takes the operator token, never a partner credential', async () => {
    const ok = await app.inject({
      url: '/operator',
      headers: { authorization: `Bearer ${s.server.operatorToken}` },
    });
    expect(ok.statusCode).toBe(200);
    const partner = await app.inject({ url: '/operator', headers: { authorization: s.basic(s.cred) } });
    expect(partner.statusCode).toBe(401);
    expect(partner.headers['www-authenticate']).toBe('Bearer realm="partner-operator"');
    const wrong = await app.inject({ url: '/operator', headers: { authorization: 'Bearer op_wrong' } });
    expect(wrong.json().error.code).toBe('auth_invalid_credential');
  });

  it('an operation without auth has no such stage', () => {
    const open = Object.values(OPERATIONS).find((op) => op.auth === 'none')!;
    expect(authenticate(open, s.server.services)).toBeUndefined();
  });
});
