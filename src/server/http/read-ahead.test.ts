import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../contract/operations.js';
import type { AuthedCredential } from '../domain/auth.js';
import type { RateDecision } from '../domain/rate-limit.js';
import { ApiError } from '../errors.js';
import type { Admitted } from './auth.js';
import { authenticate } from './authenticate.js';
import { stageApp } from './harness.js';
import { rateLimit } from './rate-limit.js';
import { readAhead } from './read-ahead.js';
import { requireScope } from './scope.js';
import { type AppServices, inOrder } from './stage.js';
import { type OperationHandler, partnerRead, unitOfWork } from './unit-of-work.js';

// The read-ahead stage in-process, between the real authenticate and the real stages after it,
// with an admission this test settles itself: when the read starts, what its answer waits for,
// and what happens to it when the admission disagrees.

const op = OPERATIONS.listBrands;
const cred = (businessId: number): AuthedCredential => ({
  key: 'pk_test',
  businessId,
  scopes: ['brands:read'],
  rateLimit: 60,
});
const allowed: RateDecision = { allowed: true, limit: 60, remaining: 59, reset: 1, retryAfter: 0 };

let admission: { resolve(a: Admitted): void; reject(e: unknown): void };
let provisional: AuthedCredential | undefined;
/** The businesses the handler read, in order. */
let reads: number[] = [];

const auth = {
  provisional: () => provisional,
  admit: () =>
    new Promise<Admitted>((resolve, reject) => {
      admission = { resolve, reject };
    }),
};
const services = {
  now: () => 0,
  auth,
  store: { read: (fn: (tx: unknown) => unknown) => fn({ tenant: (id: number) => ({ id }) }) },
} as unknown as AppServices;
const handler: OperationHandler = (ctx) => {
  const business = (ctx as { store: { id: number } }).store.id;
  reads.push(business);
  return { business };
};

let app: ReturnType<typeof stageApp>;
beforeAll(() => {
  app = stageApp();
  app.get(
    '/brands',
    {
      onRequest: inOrder([
        authenticate(op, services),
        readAhead(partnerRead(op, handler, services)),
        rateLimit(op),
        requireScope(op),
      ]),
    },
    unitOfWork(op, handler, services),
  );
});
afterAll(() => app.close());

/** The request, and a turn of the event loop for the stages to get as far as they can. */
async function started() {
  reads = [];
  const answer = app.inject({ url: '/brands', headers: { authorization: 'Basic x' } });
  let settled = false;
  void answer.then(() => {
    settled = true;
  });
  await new Promise((r) => setImmediate(r));
  return { answer, settled: () => settled };
}

describe('read-ahead', () => {
  it('a provisional credential: the read starts before the admission settles, and its answer waits for it', async () => {
    provisional = cred(1);
    const r = await started();
    expect(reads).toEqual([1]);
    expect(r.settled()).toBe(false);
    admission.resolve({ cred: provisional, rate: allowed });
    const res = await r.answer;
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ business: 1 });
    expect(reads).toEqual([1]); // not read twice
  });

  it('the admission verified the credential afresh (another verification): the read runs again as it', async () => {
    provisional = cred(1);
    const r = await started();
    admission.resolve({ cred: cred(2), rate: allowed });
    const res = await r.answer;
    expect(res.json().data).toEqual({ business: 2 });
    expect(reads).toEqual([1, 2]);
  });

  it('the admission refuses the credential: its error, nothing of the read', async () => {
    provisional = cred(1);
    const r = await started();
    admission.reject(new ApiError('auth_revoked'));
    const res = await r.answer;
    expect([res.statusCode, res.json().error.code]).toEqual([403, 'auth_revoked']);
    expect(res.json().data).toBeUndefined();
  });

  it('the take is refused: 429, nothing of the read', async () => {
    provisional = cred(1);
    const r = await started();
    admission.resolve({
      cred: provisional,
      rate: { ...allowed, allowed: false, remaining: 0, retryAfter: 1 },
    });
    const res = await r.answer;
    expect([res.statusCode, res.json().error.code]).toEqual([429, 'rate_limit_exceeded']);
  });

  it('no provisional credential: the read waits for the admission', async () => {
    provisional = undefined;
    const r = await started();
    expect(reads).toEqual([]);
    admission.resolve({ cred: cred(1), rate: allowed });
    expect((await r.answer).json().data).toEqual({ business: 1 });
    expect(reads).toEqual([1]);
  });
});
