import type { OperationSpec } from '../../contract/operation.js';
import { CredentialAuth } from './auth.js';
import type { RequestStage } from './stage.js';

// Stage: the credential must carry one of the operation's scopes (403 auth_forbidden naming it).

export function requireScope(op: OperationSpec): RequestStage | undefined {
  if (op.auth !== 'partner') return undefined;
  return (req) => CredentialAuth.requireScope(req.credential!, op.scopes);
}
