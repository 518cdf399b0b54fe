import { ApiError } from '../errors.js';
import type { BodyBudget } from './body-reader.js';
import { decodedBody, hasBody } from './content-encoding.js';
import { readJsonBody } from './json-body.js';
import type { AppStage } from './stage.js';

// Stage: the body of a write. It may come compressed (content-encoding.ts: the limit applies
// after decoding); it is read as text within the budget of bodies read at once (body-reader.ts)
// and parsed as strict JSON (json-body.ts). Only JSON: any other type answers 415. A GET's or
// HEAD's body is never read (Node discards it).

const unsupported = () =>
  new ApiError(
    'request_unsupported_media_type',
    'request body must be sent as Content-Type: application/json',
  );

/** `application/json`, with or without parameters (charset), in any case. */
function isJson(contentType: string): boolean {
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

export function decoding(o: { limit: number; budget?: BodyBudget }): AppStage {
  return (app) => {
    app.bodyReader = async (req) => {
      const type = req.headers['content-type'];
      // Nothing sent, and nothing said about it: no body. A type with no bytes is an empty body.
      if (type === undefined && !hasBody(req.headers)) return undefined;
      // The encoding first: one this server cannot decode answers 415 naming it.
      const stream = decodedBody(req.headers['content-encoding'], req.raw, o.limit);
      if (type === undefined || !isJson(type)) {
        if (stream !== req.raw) stream.destroy();
        throw unsupported();
      }
      return readJsonBody(req.headers, stream, o);
    };
  };
}
