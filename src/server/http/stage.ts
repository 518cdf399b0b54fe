import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateDecision } from '../domain/rate-limit.js';
import type { StoredResponse } from '../domain/idempotency.js';
import type { Services } from '../handlers/context.js';
import type { Begun } from '../store/idempotency-repo.js';
import type { Admitted, AuthedCredential, CredentialAuth } from './auth.js';

// What a stage of the request pipeline is (app.ts composes them): either a part of the app set
// up once (a hook on every request, a parser, the error answers), or a step of one operation's
// route, run in order before its handler; a step answers by throwing an ApiError.

export type AppStage = (app: FastifyInstance) => void;
/** A step of a route: synchronous where it can be (no promise for a step that needs none). */
export type RequestStage = (req: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

/** What the app needs beyond what handlers see: the credential verifier itself. */
export interface AppServices extends Services {
  auth: CredentialAuth;
}

declare module 'fastify' {
  interface FastifyRequest {
    credential?: AuthedCredential;
    /** The credential's rate decision for this request (authenticate → rate-limit). */
    rate?: RateDecision;
    /** A read going ahead of its admission (authenticate → read-ahead → unit of work). */
    ahead?: { cred: AuthedCredential; admitted: Promise<Admitted>; read?: Promise<unknown> };
    idemKey?: string;
    /** What the look at the Idempotency-Key found (authenticate.ts or idempotency-key.ts). */
    idemBegun?: Begun;
    idemStored?: { answer: StoredResponse; at: number };
    /** The claim on the Idempotency-Key, while this request holds one. */
    idemClaim?: { release(): Promise<void>; unit?: Promise<unknown>; recheck: boolean };
  }
}

/** The steps that apply (undefined: this operation skips it), run one after the other. */
export function inOrder(steps: readonly (RequestStage | undefined)[]): RequestStage | undefined {
  const list = steps.filter((s): s is RequestStage => s !== undefined);
  if (list.length === 0) return undefined;
  return async (req, reply) => {
    for (const step of list) {
      const pending = step(req, reply);
      if (pending) await pending;
    }
  };
}
