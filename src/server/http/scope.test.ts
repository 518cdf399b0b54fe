import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../contract/operations.js';
import { authenticate } from './authenticate.js';
import { type RealServices, realServices, stageApp } from './harness.js';
import { requireScope } from './scope.js';
import { inOrder } from './stage.js';

// The scope stage in-process, after authenticate on a real server's services.

let s: RealServices;
let app: ReturnType<typeof stageApp>;
let reader: { key: string; secret: string };
beforeAll(async () => {
  s = await realServices();
  reader = (
    await s.operator('POST', '/v1/operator/credentials', {
      business_id: s.server.seeded[0]!.business_id,
      scopes: ['brands:read'],
    })
  ).json().data;
  app = stageApp();
  for (const [url, op] of [
    ['/read', OPERATIONS.listBrands],
    ['/create', OPERATIONS.createBrand],
    ['/either', OPERATIONS.listBranches],
  ] as const) {
    app.get(
      url,
      { onRequest: inOrder([authenticate(op, s.server.services), requireScope(op)]) },
      async () => 'ok',
    );
  }
});
afterAll(async () => {
  await app.close();
  await s.close();
});

describe('scope', () => {
  it('a credential holding one of the scopes passes', async () => {
    const r = await app.inject({ url: '/read', headers: { authorization: s.basic(reader) } });
    expect(r.body).toBe('ok');
    // listBranches accepts brands:read or branches:read.
    const either = await app.inject({ url: '/either', headers: { authorization: s.basic(reader) } });
    expect(either.body).toBe('ok');
  });

  it('one holding none: 403 auth_forbidden naming the scope it lacks', async () => {
    const r = await app.inject({ url: '/create', headers: { authorization: s.basic(reader) } });
    expect(r.statusCode).toBe(403);
    expect(r.json().error).toEqual({
      code: 'auth_forbidden',
      message: 'credential is not scoped for brands:create',
      details: { required_scope: 'brands:create' },
    });
  });

  it('only partner operations have the stage', () => {
    expect(requireScope(OPERATIONS.operatorListCredentials)).toBeUndefined();
  });
});
