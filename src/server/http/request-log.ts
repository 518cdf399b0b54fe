import {
  charsOf,
  cut,
  headerLines,
  type KeptBody,
  type KeptMessage,
  kept,
  lengthOf,
  MAX_KEY_CHARS,
  maskedJson,
  maskJsonText,
  type RequestLog,
} from '../services/request-log.js';
import type { Payload } from './http-app.js';
import type { AppStage } from './stage.js';

// Stage: the request log. Every request under /v1/ (but the log's own routes) is
// handed to the log (services/request-log.ts) once answered, with its credential's key (never the
// secret half) and, when the log has budget for it, its headers and bodies.

const OWN = '/v1/operator/requests';

/** Under /v1/, but not the log's own routes: reading (and long-polling) the log never adds to it. */
function logged(url: string): boolean {
  if (!url.startsWith('/v1/')) return false;
  if (!url.startsWith(OWN)) return true;
  const next = url.charCodeAt(OWN.length);
  return !((Number.isNaN(next) || next === 0x2f /* / */ || next === 0x3f) /* ? */);
}

/** The key half of a Basic header our keys' shape (never the secret half, nor junk). */
function claimedKey(authorization: string | undefined, operator: boolean): string | null {
  if (!authorization) return null;
  const [scheme, token] = authorization.trim().split(/\s+/, 2);
  if (operator) return scheme?.toLowerCase() === 'bearer' ? 'operator' : null;
  if (scheme?.toLowerCase() !== 'basic' || !token) return null;
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const key = decoded.slice(0, Math.max(0, decoded.indexOf(':')));
  return /^pk_[\w-]+$/.test(key) && key.length <= MAX_KEY_CHARS ? key : null;
}

const ERROR_CODE = /^\{"request_id":"[^"]*","error":\{"code":"([^"]{1,100})"/;

const utf8 = new TextEncoder();

/**
 * An answer's payload as the log keeps it: a string as it is, buffers by reference, a text piece
 * of a written list as bytes of its own. A buffer that is a view into a larger allocation (a small
 * one, from Node's pool) is copied, so a kept entry never holds memory its budget does not count.
 */
export function keptBody(payload: Payload | undefined): KeptBody | null {
  if (payload === undefined) return null;
  if (typeof payload === 'string') return payload;
  return payload.map((b) =>
    typeof b === 'string' ? utf8.encode(b) : b.byteLength === b.buffer.byteLength ? b : new Uint8Array(b),
  );
}

function textOf(payload: Payload | undefined): string | null {
  if (payload === undefined) return null;
  if (typeof payload === 'string') return payload;
  return Buffer.concat(payload.map((b) => (typeof b === 'string' ? Buffer.from(b) : b))).toString('utf8');
}

/**
 * Records every request under /v1/ once its answer is written, with the payload written.
 * Long polls end when the server starts closing, so shutdown never waits on them.
 */
export function requestLogHooks(log: RequestLog, now: () => number): AppStage {
  return (app) => {
    const { maxBodyChars } = log.limits;
    app.onResponse.push((req, reply, payload) => {
      if (!logged(req.url)) return;
      // Decoded only when needed (an error's code, or kept details): a 2xx answer may be a large
      // shared buffer that most requests never look into.
      let text: string | null | undefined;
      const answerText = () => {
        if (text === undefined) text = textOf(payload);
        return text;
      };
      const ms = reply.elapsedTime;
      const operator = req.url.startsWith('/v1/operator/');
      log.record(
        {
          requestId: String(req.id),
          atMs: now() - ms,
          method: req.method,
          path: req.url,
          status: reply.statusCode,
          durationMs: Math.round(ms * 100) / 100,
          credentialKey: operator
            ? claimedKey(req.headers.authorization, true)
            : (req.credential?.key ?? claimedKey(req.headers.authorization, false)),
          errorCode: reply.statusCode >= 400 ? (ERROR_CODE.exec(answerText() ?? '')?.[1] ?? null) : null,
        },
        () => {
          const body = req.body === undefined ? null : maskedJson(req.body, maxBodyChars);
          const length = Number(req.headers['content-length']);
          const request = kept(
            req.headers,
            body,
            Number.isFinite(length) ? length : body === null ? 0 : Buffer.byteLength(body),
            maxBodyChars,
          );
          const headers = headerLines(reply.getHeaders());
          let response: KeptMessage<KeptBody>;
          if (operator) {
            // Operator answers carry issued secrets: masked (and cut) before they are kept.
            const answer = answerText();
            const c = answer === null ? null : cut(answer, maxBodyChars);
            response = {
              headers,
              body: c === null ? null : maskJsonText(c.text),
              size: answer === null ? 0 : Buffer.byteLength(answer),
              truncated: c?.truncated ?? false,
            };
          } else {
            // Partner answers never carry one (secrets are issued only by the operator): kept as
            // written, shared bytes by reference, and cut and masked when read.
            const body = keptBody(payload);
            const size =
              body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : lengthOf(body);
            response = { headers, body, size, truncated: false };
          }
          return { request, response, chars: charsOf(request) + charsOf(response) };
        },
      );
    });
    app.onClose.push(() => log.close());
  };
}
