import { describe, expect, it } from 'vitest';
import type { OperationSpec } from '../../contract/operation.js';
import { OPERATIONS } from '../../contract/operations.js';
import { tenantQuery } from '../../contract/schemas/common.js';
import { ApiError } from '../errors.js';
import { validInput } from './validate.js';

// The validation stage in-process: the operation's own table row and schemas, no server.

const createBrand = OPERATIONS.createBrand;
const updateBrand = OPERATIONS.updateBrand;
const listBrands = OPERATIONS.listBrands;
const q = (op: OperationSpec) => op.query ?? tenantQuery();

function refusal(fn: () => unknown): { code: string; message: string; details: unknown } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, message: e.message, details: e.details };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('validInput', () => {
  it('gives the parsed params, query and body of a valid request', () => {
    const input = validInput(createBrand, q(createBrand), { body: { title: 'Tea' }, params: {}, query: {} });
    expect(input.body).toMatchObject({ title: 'Tea' });
  });

  it('a body that is not a JSON object is refused before its fields', () => {
    for (const [body, got] of [
      [[1], 'an array'],
      ['x', 'a string'],
      [null, 'null'],
    ] as const) {
      const r = refusal(() => validInput(createBrand, q(createBrand), { body, params: {}, query: {} }));
      expect(r.code).toBe('request_invalid');
      expect(r.details).toEqual([{ path: ['body'], message: `expected a JSON object, got ${got}` }]);
    }
  });

  it('every problem of params, query and body is listed at once, each with its path', () => {
    const r = refusal(() =>
      validInput(updateBrand, q(updateBrand), {
        body: { title: 5 },
        params: { id: 'not-a-number' },
        query: { nope: '1' },
      }),
    );
    expect(r.code).toBe('request_invalid');
    const paths = (r.details as { path: (string | number)[] }[]).map((d) => d.path[0]);
    expect(new Set(paths)).toEqual(new Set(['params', 'query', 'body']));
    expect(r.message).toMatch(/^invalid request: /);
  });

  it('U+0000 in a query is refused naming it, as in a body', () => {
    const r = refusal(() =>
      validInput(listBrands, q(listBrands), { body: undefined, params: {}, query: { page: '1\0' } }),
    );
    expect(r.details).toEqual([{ path: ['query', 'page'], message: expect.stringContaining('U+0000') }]);
  });
});
