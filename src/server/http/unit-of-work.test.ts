import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import inject from 'light-my-request';
import { OPERATIONS } from '../../contract/operations.js';
import { HANDLERS } from '../handlers/index.js';
import { authenticate } from './authenticate.js';
import { decoding } from './decoding.js';
import { type RealServices, realServices, stageApp } from './harness.js';
import { claimIdempotencyKey } from './idempotency-key.js';
import { inOrder } from './stage.js';
import { type OperationHandler, unitOfWork } from './unit-of-work.js';

// The unit-of-work stage in-process on a real server (SQLite file): through the whole pipeline
// (the server's own app, inject()), and behind a bare app with a handler that fails after writing.

let s: RealServices;
let bare: ReturnType<typeof stageApp>;
beforeAll(async () => {
  s = await realServices();
  const services = s.server.services;
  const op = OPERATIONS.createBrand;
  // The real createBrand, then a bug: what it wrote must not be committed.
  const failing: OperationHandler = async (ctx, input) => {
    await (HANDLERS.createBrand as OperationHandler)(ctx, input);
    throw new Error('a bug after the write');
  };
  bare = stageApp([decoding({ limit: 1 << 20 })]);
  bare.post(
    '/v1/partner/brands',
    {
      onRequest: inOrder([authenticate(op, services), claimIdempotencyKey(op, services.store, services.now)]),
    },
    unitOfWork(op, failing, services),
  );
});
afterAll(async () => {
  await bare.close();
  await s.close();
});

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, key?: string, payload?: object) =>
  inject(s.server.app.handle, {
    method,
    url,
    headers: { authorization: s.basic(s.cred), ...(key ? { 'idempotency-key': key } : {}) },
    ...(payload ? { payload } : {}),
  });

async function titles(): Promise<string[]> {
  const data = (await call('GET', '/v1/partner/brands')).json().data;
  return (data as { brands: { title: string }[] }[]).flatMap((d) => d.brands.map((b) => b.title));
}

describe('unit of work', () => {
  it('a 2xx write is committed with its answer; the same key and body replay it, a different body conflicts', async () => {
    const first = await call('POST', '/v1/partner/brands', 'uow-1', { title: 'Unit Tea' });
    expect(first.statusCode).toBe(201);
    expect(await titles()).toContain('Unit Tea');
    const again = await call('POST', '/v1/partner/brands', 'uow-1', { title: 'Unit Tea' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);
    expect((await titles()).filter((t) => t === 'Unit Tea')).toHaveLength(1);
    const other = await call('POST', '/v1/partner/brands', 'uow-1', { title: 'Other Tea' });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.details).toEqual({ reason: 'body_mismatch' });
  });

  it('a client mistake found by the handler is stored and replayed too', async () => {
    const first = await call('PATCH', '/v1/partner/brands/999999', 'uow-2', { title: 'Nope' });
    expect(first.statusCode).toBe(404);
    const again = await call('PATCH', '/v1/partner/brands/999999', 'uow-2', { title: 'Nope' });
    expect(again.statusCode).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().error).toEqual(first.json().error);
  });

  it('a handler that fails after writing: 500, nothing committed, nothing stored (the retry runs again)', async () => {
    const post = () =>
      bare.inject({
        method: 'POST',
        url: '/v1/partner/brands',
        headers: { authorization: s.basic(s.cred), 'idempotency-key': 'uow-3' },
        payload: { title: 'Half Written' },
      });
    const first = await post();
    expect(first.statusCode).toBe(500);
    expect(first.json().error.code).toBe('internal_error');
    expect(await titles()).not.toContain('Half Written');
    const retry = await post();
    expect(retry.statusCode).toBe(500);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });
});
