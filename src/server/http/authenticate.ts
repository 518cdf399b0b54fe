import type { OperationSpec } from '../../contract/operation.js';
import { checkOperator } from './auth.js';
import type { AppServices, RequestStage } from './stage.js';

// Stage: who is asking. Operator operations take the operator token (Bearer); partner operations
// a credential (Basic, auth.ts: cache, failed-auth throttle), which also takes the request from
// the credential's rate budget (one round trip on a shared store); the decision is left for the
// rate-limit stage.

export function authenticate(op: OperationSpec, services: AppServices): RequestStage | undefined {
  if (op.auth === 'operator')
    return (req) => checkOperator(req.headers.authorization, services.operatorToken);
  if (op.auth !== 'partner') return undefined;
  return async (req) => {
    const { cred, rate } = await services.auth.admit(req.headers.authorization, req.ip, services.now());
    req.credential = cred;
    req.rate = rate;
  };
}
