import type { OperationSpec } from '../../contract/operation.js';
import { validKey } from '../domain/idempotency.js';
import { type Admitted, checkOperator } from './auth.js';
import { adoptBegun, idempotencyKeyOf } from './idempotency-key.js';
import type { AppServices, RequestStage } from './stage.js';

// Stage: who is asking. Operator operations take the operator token (Bearer); partner operations
// a credential (Basic, auth.ts: cache, failed-auth throttle), which also takes the request from
// the credential's rate budget (one round trip on a shared store); the decision is left for the
// rate-limit stage. On a shared store a partner write's valid Idempotency-Key is claimed in that
// same round trip when the take allows the request: the claim is held from here (a later
// stage's error answer gives it back), and the Idempotency-Key stage goes on from what it found.

export function authenticate(op: OperationSpec, services: AppServices): RequestStage | undefined {
  if (op.auth === 'operator')
    return (req) => checkOperator(req.headers.authorization, services.operatorToken);
  if (op.auth !== 'partner') return undefined;
  const writes = op.method !== 'GET';
  return (req, reply) => {
    const key = writes ? idempotencyKeyOf(req) : undefined;
    const at = services.now();
    const admitted = services.auth.admit(
      req.headers.authorization,
      req.ip,
      at,
      key !== undefined && validKey(key) === 'ok' ? key : undefined,
    );
    const adopt = ({ cred, rate, begun }: Admitted) => {
      req.credential = cred;
      req.rate = rate;
      if (begun) adoptBegun(req, reply, services.store, key!, begun, at);
    };
    // Admitted at once (a local store): the request goes on in this same step.
    if (!(admitted instanceof Promise)) return adopt(admitted);
    // A read may go ahead of its admission (read-ahead.ts), which it then waits for.
    const provisional = writes ? undefined : services.auth.provisional(req.headers.authorization);
    if (provisional) {
      req.ahead = { cred: provisional, admitted };
      return;
    }
    return admitted.then(adopt);
  };
}
