import { describe, expect, it } from 'vitest';
import { genReqId } from './request-id.js';

describe('genReqId', () => {
  it('ids are unique, of one shape, and sort in the order they were made', () => {
    const ids = Array.from({ length: 2000 }, () => genReqId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^req_[a-z0-9]{6}[a-z0-9]{6,}$/);
    expect([...ids].sort()).toEqual(ids);
  });
});
