import { describe, expect, it } from 'vitest';
import { missingScope, parseBasic, previousSecretValid } from './auth.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('parseBasic', () => {
  it('parses key and secret, keeping colons in the secret', () => {
    expect(parseBasic(`Basic ${b64('pk_1:sk:with:colons')}`)).toEqual({
      key: 'pk_1',
      secret: 'sk:with:colons',
    });
    expect(parseBasic(`basic ${b64('a:b')}`)).toEqual({ key: 'a', secret: 'b' });
  });
  it.each([
    undefined,
    '',
    'Bearer abc',
    'Basic',
    'Basic !!!',
    `Basic ${b64('nocolon')}`,
    `Basic ${b64(':secret')}`,
    `Basic ${b64('key:')}`,
  ])('rejects %s', (h) => expect(parseBasic(h)).toBeUndefined());
});

describe('missingScope', () => {
  it('passes when any accepted scope is held, or none is required', () => {
    expect(missingScope(['branches:read'], ['brands:read', 'branches:read'])).toBeUndefined();
    expect(missingScope([], [])).toBeUndefined();
  });
  it('names the first accepted scope when none is held', () => {
    expect(missingScope(['orders:read'], ['brands:read', 'branches:read'])).toBe('brands:read');
  });
});

it('lets the previous secret work only before the end of the grace period', () => {
  expect(previousSecretValid(null, 0)).toBe(false);
  expect(previousSecretValid(1_000, 999)).toBe(true);
  expect(previousSecretValid(1_000, 1_000)).toBe(false);
});
