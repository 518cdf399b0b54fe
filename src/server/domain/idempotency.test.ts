import { describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_TTL_MS,
  canonicalJson,
  decide,
  fingerprint,
  isStorable,
  validKey,
} from './idempotency.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null }, u: undefined })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });
  it('keeps array order and distinguishes types', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
  });
});

describe('fingerprint', () => {
  it('is equal for bodies that differ only in key order', () => {
    expect(fingerprint('POST', '/x', { a: 1, b: [1, 2] })).toBe(
      fingerprint('POST', '/x', { b: [1, 2], a: 1 }),
    );
  });
  it('binds the method and path too', () => {
    expect(fingerprint('POST', '/x', {})).not.toBe(fingerprint('PATCH', '/x', {}));
    expect(fingerprint('POST', '/x', {})).not.toBe(fingerprint('POST', '/y', {}));
  });
});

describe('decide', () => {
  const stored = { fingerprint: 'f', status: 201, isError: false, payload: '{}', createdAt: 1_000 };
  it('proceeds without a stored response', () => expect(decide(undefined, 'f', 2_000).kind).toBe('proceed'));
  it('replays the same request', () => expect(decide(stored, 'f', 2_000).kind).toBe('replay'));
  it('conflicts on another request', () => expect(decide(stored, 'g', 2_000).kind).toBe('conflict'));
  it('forgets after 24 h', () => {
    expect(decide(stored, 'g', 1_000 + IDEMPOTENCY_TTL_MS - 1).kind).toBe('conflict');
    expect(decide(stored, 'g', 1_000 + IDEMPOTENCY_TTL_MS).kind).toBe('proceed');
  });
});

it('stores everything but 5xx and 429', () => {
  expect([200, 201, 400, 404, 409].every(isStorable)).toBe(true);
  expect([429, 500, 502, 503].some(isStorable)).toBe(false);
});

it('validates key presence and length', () => {
  expect(validKey(undefined)).toBe('missing');
  expect(validKey('  ')).toBe('missing');
  expect(validKey('k'.repeat(64))).toBe('ok');
  expect(validKey('k'.repeat(65))).toBe('too_long');
});
