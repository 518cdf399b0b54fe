import type { FastifyInstance } from 'fastify';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../domain/idempotency.js';
import { ApiError } from '../errors.js';

// JSON bodies are read as bytes and decoded strictly: Fastify's default parser decodes with
// replacement, so a 0xFF byte would be stored as U+FFFD and the client never told.

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The path of the first string (value or key) holding a lone UTF-16 surrogate, if any. */
export function illFormedStringPath(value: unknown): (string | number)[] | undefined {
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!(v as unknown as { isWellFormed(): boolean }).isWellFormed()) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...path, i]]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (!(k as unknown as { isWellFormed(): boolean }).isWellFormed()) return [...path, k];
        stack.push([child, [...path, k]]);
      }
    }
  }
  return undefined;
}

/**
 * Whether JSON text nests containers deeper than `limit`, read from the text itself (strings
 * skipped): a hostile body of 200,000 `[` is refused after 65 characters instead of being parsed
 * into 200,000 arrays first. Counts as nestsDeeperThan does on the parsed value.
 */
export function textNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \\ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

const tooDeep = () =>
  new ApiError('request_invalid', `body nests deeper than ${MAX_BODY_DEPTH} levels`, [
    { path: ['body'], message: `nested deeper than ${MAX_BODY_DEPTH} levels` },
  ]);

/** Replaces the application/json parser with one that refuses invalid UTF-8 and lone surrogates. */
export function registerStrictJson(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(
        new ApiError('request_invalid', 'the body is not valid UTF-8', [
          { path: ['body'], message: 'not valid UTF-8' },
        ]),
        undefined,
      );
      return;
    }
    // Before parsing: a deep body would cost its whole tree in memory first.
    if (textNestsDeeperThan(text, MAX_BODY_DEPTH)) return done(tooDeep(), undefined);
    parseJson(req, text, (err, value) => {
      if (err) return done(err, undefined);
      // Depth first: it bounds the walk below (which copies paths) to MAX_BODY_DEPTH per string.
      if (nestsDeeperThan(value, MAX_BODY_DEPTH)) return done(tooDeep(), undefined);
      const bad = illFormedStringPath(value);
      if (bad) {
        return done(
          new ApiError('request_invalid', `${['body', ...bad].join('.')}: holds a lone UTF-16 surrogate`, [
            { path: ['body', ...bad], message: 'a lone UTF-16 surrogate (\\ud800–\\udfff) is not text' },
          ]),
          undefined,
        );
      }
      done(null, value);
    });
  });
}
