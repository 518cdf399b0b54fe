import crypto, { createHash } from 'node:crypto';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
// The key's rule is the contract's: the OpenAPI document states the same pattern.
export { idempotencyKeyProblem as validKey } from '../../contract/idempotency-key.js';

/** JSON with object keys sorted at every depth, so `{"a":1,"b":2}` and `{"b":2, "a":1}` compare equal. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** What a key is bound to: the method, the path and the body as canonical JSON. */
const oneShot = (crypto as { hash?: (alg: string, data: string, enc: 'hex') => string }).hash;

export function fingerprint(method: string, path: string, body: unknown): string {
  const text = `${method} ${path}\n${canonicalJson(body ?? null)}`;
  return oneShot ? oneShot('sha256', text, 'hex') : createHash('sha256').update(text).digest('hex');
}

export interface StoredResponse {
  fingerprint: string;
  status: number;
  isError: boolean;
  /** JSON text of `data` (or of `error`) exactly as first sent. */
  payload: string;
  createdAt: number;
  /**
   * Set when `payload` is, byte for byte, the one order of this outbox event's payload (a status
   * change answers with the record its event carries): a backend may keep the reference instead
   * of a second copy of the bytes, and must give back the same `payload` either way.
   */
  event?: string | undefined;
}

export type IdempotencyDecision =
  | { kind: 'proceed' }
  | { kind: 'replay'; stored: StoredResponse }
  | { kind: 'conflict' };

/** Whether a stored answer is still within the 24 h window. */
export function isFresh(stored: StoredResponse, now: number): boolean {
  return now - stored.createdAt < IDEMPOTENCY_TTL_MS;
}

export function decide(stored: StoredResponse | undefined, fp: string, now: number): IdempotencyDecision {
  if (!stored || !isFresh(stored, now)) return { kind: 'proceed' };
  return stored.fingerprint === fp ? { kind: 'replay', stored } : { kind: 'conflict' };
}

/** 5xx and 429 answers are not kept: the client is meant to retry them with the same key. */
export function isStorable(status: number): boolean {
  return status < 500 && status !== 429;
}
