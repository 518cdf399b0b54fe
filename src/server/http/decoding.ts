import { decodedBody, hasBody } from './content-encoding.js';
import type { BodyBudget } from './body-reader.js';
import { registerStrictJson } from './json-body.js';
import type { AppStage } from './stage.js';

// Stage: the request body. It may come compressed (content-encoding.ts: the limit applies after
// decoding); it is read as text within the budget of bodies read at once (body-reader.ts) and
// parsed as strict JSON (json-body.ts). Only JSON: Fastify would otherwise parse text/plain into a
// string (→ 400, not 415).

export function decoding(o: { limit: number; budget?: BodyBudget }): AppStage {
  return (app) => {
    app.removeContentTypeParser('text/plain');
    registerStrictJson(app, o);
    // A callback hook: most requests have no body, and need no promise to say so.
    app.addHook('preParsing', (req, _reply, payload, done) => {
      if (!hasBody(req.headers)) return done(null, payload);
      let decoded: typeof payload;
      try {
        decoded = decodedBody(req.headers['content-encoding'], payload, o.limit);
      } catch (err) {
        return done(err as Error);
      }
      done(null, decoded);
    });
  };
}
