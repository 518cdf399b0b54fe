// The Idempotency-Key header every partner write carries: one rule, stated by the OpenAPI document
// and checked by the server.

/**
 * Printable ASCII (0x20–0x7E: a header's bytes are its characters, so its length is the same for
 * every tool) with at least one character that is not a space. Node drops the spaces around a
 * header value before anything sees it.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x20-\\x7E]*[\\x21-\\x7E][\\x20-\\x7E]*$';
export const IDEMPOTENCY_KEY_MAX = 64;
const PRINTABLE = /^[\x20-\x7E]*$/;

/** What is wrong with a key as received, if anything. */
export function idempotencyKeyProblem(key: string | undefined): 'missing' | 'too_long' | 'not_ascii' | 'ok' {
  if (key === undefined || key.trim() === '') return 'missing';
  if (!PRINTABLE.test(key)) return 'not_ascii';
  return key.length > IDEMPOTENCY_KEY_MAX ? 'too_long' : 'ok';
}
