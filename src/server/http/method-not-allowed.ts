import type { OperationSpec } from '../../contract/operation.js';
import { ApiError } from '../errors.js';
import { AllowedMethods } from './allowed-methods.js';
import { errorJson, sendError } from './envelope.js';
import type { AppStage } from './stage.js';

// Stage: a known path with a method it does not serve answers 405 before anything else (auth,
// body), with the same Allow whichever method was tried (the table: allowed-methods.ts).

export function methodNotAllowed(ops: readonly OperationSpec[]): AppStage {
  const allowed = new AllowedMethods(ops);
  return (app) => {
    app.onRequest.push((req, reply) => {
      const methods = allowed.of(req.url);
      if (methods && !methods.includes(req.method)) {
        const path = req.url.split('?')[0]!;
        reply.header('allow', methods.join(', '));
        sendError(
          reply,
          405,
          errorJson(
            new ApiError(
              'request_method_not_allowed',
              `${req.method} is not allowed on ${path}; use ${methods.join(', ')}`,
            ),
          ),
        );
      }
    });
  };
}
