import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textNestsDeeperThan } from './json-body.js';

/** The reference: how deep a parsed value nests, walked (iteratively) over the value itself. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

describe('textNestsDeeperThan', () => {
  it('the reference walk counts as expected', () => {
    expect(nestsDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(nestsDeeperThan('flat', 0)).toBe(false);
  });

  it('agrees with the walk over the parsed value, brackets and escaped quotes inside strings included', () => {
    const tricky = fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"[', '"]', 'x');
    const leaf = fc.oneof(fc.integer(), fc.constant(null), fc.string({ unit: tricky, maxLength: 6 }));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.string({ unit: tricky, maxLength: 3 }), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 6 }), (v, limit) => {
        expect(textNestsDeeperThan(JSON.stringify(v), limit)).toBe(nestsDeeperThan(v, limit));
      }),
      { numRuns: 2000 },
    );
  });

  it('stops at the limit on a hostile body', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(textNestsDeeperThan(deep, 64)).toBe(true);
    expect(textNestsDeeperThan(`${'['.repeat(64)}${']'.repeat(64)}`, 64)).toBe(false);
  });
});
