import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import secureJson from 'secure-json-parse';
import { ApiError } from '../errors.js';
import { type BodyBudget, readBodyText } from './body-reader.js';

// JSON bodies are decoded strictly: a decoder with replacement would store a 0xFF byte as U+FFFD
// and never tell the client.

/** How deep a body's objects and arrays may nest. */
const MAX_BODY_DEPTH = 64;

type NotText = { path: (string | number)[]; why: string };

/** Why a string cannot be stored as text: a lone surrogate, or U+0000 (no PostgreSQL text holds it). */
function notText(s: string): string | undefined {
  if (!(s as unknown as { isWellFormed(): boolean }).isWellFormed())
    return 'a lone UTF-16 surrogate (\\ud800–\\udfff) is not text';
  // Refused on both backends alike: SQLite would keep it, PostgreSQL cannot, and one service must
  // not accept on one store what it refuses on the other.
  if (s.includes('\0')) return 'U+0000 (\\u0000) is not allowed in text';
  return undefined;
}

/** The first string (value or key) that is not storable text, with its path and why, if any. */
export function illFormedString(value: unknown): NotText | undefined {
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const why = notText(v);
      if (why) return { path, why };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...path, i]]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const why = notText(k);
        if (why) return { path: [...path, k], why };
        stack.push([child, [...path, k]]);
      }
    }
  }
  return undefined;
}

/**
 * Whether JSON text nests containers deeper than `limit`, read from the text itself (strings
 * skipped): a hostile body of 200,000 `[` is refused after 65 characters instead of being parsed
 * into 200,000 arrays first. Counts as the parsed value nests (json-body.test.ts checks the two
 * agree), so it is the one depth check a body meets.
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

const malformed = (why: string) =>
  new ApiError('request_invalid', `malformed JSON body: ${why}`, [
    { path: ['body'], message: `malformed JSON: ${why}` },
  ]);

/** Refused as JSON.parse would let them through: keys that would reach an object's prototype. */
const SAFE = { protoAction: 'error', constructorAction: 'error' } as const;

/**
 * A JSON body, read as text as it arrives (body-reader.ts: no whole-body buffer, bounded bytes at
 * once) and refused when it is not strict: invalid UTF-8, lone surrogates, U+0000, nesting past
 * MAX_BODY_DEPTH, `__proto__` or `constructor.prototype` keys.
 */
export async function readJsonBody(
  headers: IncomingHttpHeaders,
  stream: Readable,
  o: { limit: number; budget?: BodyBudget | undefined },
): Promise<unknown> {
  const enc = headers['content-encoding']?.trim().toLowerCase();
  const length = Number(headers['content-length']);
  const declared = (!enc || enc === 'identity') && Number.isFinite(length) ? length : undefined;
  const text = await readBodyText(stream, { limit: o.limit, declared, budget: o.budget });
  if (text.length === 0)
    throw new ApiError('request_invalid', 'Content-Type is application/json but the body is empty', [
      { path: ['body'], message: 'empty' },
    ]);
  // Before parsing: a deep body would cost its whole tree in memory first.
  if (textNestsDeeperThan(text, MAX_BODY_DEPTH)) throw tooDeep();
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, SAFE);
  } catch (err) {
    throw malformed((err as Error).message);
  }
  const bad = illFormedString(value);
  if (bad) {
    const path = ['body', ...bad.path];
    throw new ApiError('request_invalid', `${path.join('.')}: ${bad.why}`, [{ path, message: bad.why }]);
  }
  return value;
}
