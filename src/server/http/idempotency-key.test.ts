import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../contract/operations.js';
import { ApiError } from '../errors.js';
import { authenticate } from './authenticate.js';
import { type RealServices, realServices, stageApp } from './harness.js';
import { claimIdempotencyKey, holdingClaim, releaseClaimOnError } from './idempotency-key.js';
import { inOrder } from './stage.js';

// The Idempotency-Key stage in-process on a real server's store: the key's checks, the claim
// held while a request's unit runs, and given back (before the answer) when it fails.

let s: RealServices;
let app: ReturnType<typeof stageApp>;
/** What the route's "unit" waits on, per key: the test settles it. */
const gates = new Map<string, { open: () => void; fail: () => void }>();
beforeAll(async () => {
  s = await realServices();
  app = stageApp();
  const op = OPERATIONS.createBrand;
  app.post(
    '/t',
    {
      onRequest: inOrder([
        authenticate(op, s.server.services),
        claimIdempotencyKey(op, s.server.services.store, s.server.services.now),
      ]),
      onSend: releaseClaimOnError,
    },
    async (req) => {
      const key = String(req.headers['idempotency-key']);
      const unit = new Promise<string>((ok, no) =>
        gates.set(key, {
          open: () => ok('done'),
          fail: () => no(new ApiError('request_invalid', 'the unit refused it')),
        }),
      );
      return { outcome: await holdingClaim(req, unit) };
    },
  );
});
afterAll(async () => {
  await app.close();
  await s.close();
});

const post = (key?: string) =>
  app.inject({
    method: 'POST',
    url: '/t',
    headers: { authorization: s.basic(s.cred), ...(key === undefined ? {} : { 'idempotency-key': key }) },
  });

/** Waits until the route's unit for `key` is running (its gate set), bounded. */
async function running(key: string) {
  for (let i = 0; i < 1000 && !gates.has(key); i++) await new Promise((r) => setImmediate(r));
  expect(gates.has(key)).toBe(true);
  return gates.get(key)!;
}

describe('Idempotency-Key', () => {
  it('missing, too long or not printable ASCII: refused before any claim', async () => {
    const missing = await post();
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.code).toBe('request_missing_idempotency_key');
    const long = await post('k'.repeat(65));
    expect(long.json().error.details).toEqual([
      { path: ['header', 'Idempotency-Key'], message: 'at most 64 characters' },
    ]);
    const odd = await post('caf\u00e9');
    expect(odd.statusCode).toBe(400);
    expect(odd.json().error.message).toBe('Idempotency-Key must be printable ASCII');
  });

  it('while a request holds the key, another with it answers 409 in_flight; once settled, the key is free', async () => {
    const first = post('hold-1');
    const gate = await running('hold-1');
    const second = await post('hold-1');
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toMatchObject({
      code: 'state_idempotency_conflict',
      details: { reason: 'in_flight' },
    });
    gates.delete('hold-1');
    gate.open();
    expect((await first).json()).toEqual({ outcome: 'done' });
    const third = post('hold-1');
    (await running('hold-1')).open();
    expect((await third).statusCode).toBe(200);
  });

  it('an error answer gives the key back before it goes out: a corrected retry at once is not in_flight', async () => {
    const first = post('fail-1');
    const gate = await running('fail-1');
    gates.delete('fail-1');
    gate.fail();
    expect((await first).statusCode).toBe(400);
    const retry = post('fail-1');
    (await running('fail-1')).open();
    expect((await retry).statusCode).toBe(200);
  });

  it('the onSend step: an error answer waits for the claim’s release; a success does not', async () => {
    for (const [status, released] of [
      [400, true],
      [201, false],
    ] as const) {
      let done = false;
      const claim = {
        recheck: false,
        release: async () => {
          done = true;
        },
      };
      const req = { idemClaim: claim } as unknown as Parameters<typeof releaseClaimOnError>[0];
      const reply = { statusCode: status } as unknown as Parameters<typeof releaseClaimOnError>[1];
      await releaseClaimOnError(req, reply);
      expect(done, String(status)).toBe(released);
    }
  });

  it('reads have no such stage', () => {
    expect(claimIdempotencyKey(OPERATIONS.listBrands, s.server.services.store, Date.now)).toBeUndefined();
  });
});
