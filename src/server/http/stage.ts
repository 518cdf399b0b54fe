import type { Services } from '../handlers/context.js';
import type { CredentialAuth } from './auth.js';
import type { HttpApp, RequestStage } from './http-app.js';

// What a stage of the request pipeline is (app.ts composes them): either a part of the app set
// up once (a hook on every request, the body reader, the error answers), or a step of one
// operation's route, run in order before its handler; a step answers by throwing an ApiError.

export type { RequestStage };
export type AppStage = (app: HttpApp) => void;

/** What the app needs beyond what handlers see: the credential verifier itself. */
export interface AppServices extends Services {
  auth: CredentialAuth;
}

/** The steps that apply (undefined: this operation skips it), run one after the other. */
export function inOrder(steps: readonly (RequestStage | undefined)[]): RequestStage | undefined {
  const list = steps.filter((s): s is RequestStage => s !== undefined);
  if (list.length === 0) return undefined;
  return (req, reply) => from(list, 0, req, reply);
}

/** Synchronous until a step is not: most reads make no promise here. */
function from(
  list: readonly RequestStage[],
  first: number,
  req: Parameters<RequestStage>[0],
  reply: Parameters<RequestStage>[1],
): void | Promise<void> {
  for (let i = first; i < list.length; i++) {
    const pending = list[i]!(req, reply);
    if (pending) return pending.then(() => from(list, i + 1, req, reply));
  }
}
