import type { OperationSpec } from '../../contract/operation.js';
import { validKey } from '../domain/idempotency.js';
import { ApiError } from '../errors.js';
import type { Begun } from '../store/idempotency-repo.js';
import type { Store } from '../store/store.js';
import type { Reply, Request, RequestStage } from './http-app.js';

// Stage: the Idempotency-Key of a partner write. The key is required and checked, then claimed:
// a stored answer is found (replayed or conflicting later, with no claim), a request still in
// flight under it answers 409, otherwise this request holds the claim until its unit of work has
// settled, or until it ends without one.

export function claimIdempotencyKey(
  op: OperationSpec,
  store: Store,
  now: () => number,
): RequestStage | undefined {
  if (op.auth !== 'partner' || op.method === 'GET') return undefined;
  return async (req, reply) => {
    // Claimed already with the admit (authenticate.ts), or looked at and found in use or stored.
    if (req.idemBegun) return settleBegun(req.idemBegun);
    const k = idempotencyKeyOf(req);
    const v = validKey(k);
    if (v === 'missing')
      throw new ApiError('request_missing_idempotency_key', `${op.method} needs an Idempotency-Key header`);
    if (v === 'too_long')
      throw new ApiError('request_invalid', 'Idempotency-Key is longer than 64 characters', [
        { path: ['header', 'Idempotency-Key'], message: 'at most 64 characters' },
      ]);
    if (v === 'not_ascii')
      throw new ApiError('request_invalid', 'Idempotency-Key must be printable ASCII', [
        { path: ['header', 'Idempotency-Key'], message: 'printable ASCII characters only (0x20–0x7E)' },
      ]);
    const key = k!;
    const at = now();
    const begun = await store.claims.begin(req.credential!.key, key, at);
    adoptBegun(req, reply, store, key, begun, at);
    settleBegun(begun);
  };
}

/** The request's Idempotency-Key header as sent (the first, if repeated). */
export function idempotencyKeyOf(req: Request): string | undefined {
  const header = req.headers['idempotency-key'];
  return Array.isArray(header) ? header[0] : header;
}

/**
 * Takes what `claims.begin` (or the admit's claim) found into the request. A claim is held from
 * here: until the request's unit has settled (its answer, if any, is then committed and replayed
 * to whoever comes next), or until the request ends without one. A client that goes away does
 * not free the key while its unit may still run. A stored answer is replayed (or conflicts)
 * without a claim: nothing runs again.
 */
export function adoptBegun(
  req: Request,
  reply: Reply,
  store: Store,
  key: string,
  begun: Begun,
  at: number,
): void {
  req.idemBegun = begun;
  req.idemKey = key;
  if (begun.kind === 'stored') req.idemStored = { answer: begun.answer, at };
  if (begun.kind !== 'claimed') return;
  const credentialKey = req.credential!.key;
  let released: Promise<void> | undefined;
  const claim: NonNullable<Request['idemClaim']> = {
    recheck: begun.recheck,
    release: () => {
      released ??= store.claims.release(credentialKey, key);
      return released;
    },
  };
  req.idemClaim = claim;
  reply.raw.once('close', () => void (claim.unit ? claim.unit.finally(claim.release) : claim.release()));
}

/** A key another request holds answers 409; otherwise the request goes on. */
function settleBegun(begun: Begun): void {
  if (begun.kind === 'in_flight')
    throw new ApiError(
      'state_idempotency_conflict',
      'a request with this Idempotency-Key is still in flight',
      {
        reason: 'in_flight',
      },
    );
}

/**
 * An error answer stored nothing the next request would find first (a validation failure, a body
 * that did not parse): the key is given back BEFORE the answer goes out, so a client that fixes
 * its request and resends at once is not told in_flight. A 2xx was stored with its change, and
 * the next request finds it before the claim: its release need not wait.
 */
export function releaseClaimOnError(req: Request, reply: Reply): Promise<void> | undefined {
  const claim = req.idemClaim;
  if (claim && reply.statusCode >= 400) return (claim.unit ?? Promise.resolve()).then(claim.release);
  return undefined;
}

/** Keeps the request's Idempotency-Key claim until `unit` has settled, then gives it back. */
export async function holdingClaim<T>(req: Request, unit: Promise<T>): Promise<T> {
  const claim = req.idemClaim;
  if (claim) claim.unit = unit.catch(() => undefined);
  try {
    return await unit;
  } finally {
    void claim?.release();
  }
}
