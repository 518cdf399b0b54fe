import { describe, expect, it } from 'vitest';
import { MenuFileError, validateMenu } from './load.js';
import { StateFile } from './state.js';

// The parts partner/menu adds for code that builds menus as objects: validation without a file,
// and a state kept in memory.

describe('validateMenu', () => {
  it('returns the menu, or every problem without a line (an object has none)', () => {
    const ok = validateMenu({ sections: [{ key: 'a', title: 'All day', categories: [] }] }, 'my menu');
    expect(ok.menu.sections[0]?.title).toBe('All day');
    expect(ok.lineOf(['sections', 0])).toBe(0);
    let err: unknown;
    try {
      validateMenu({ sections: [{ key: 'a', categories: 'nope', extra: 1 }] }, 'my menu');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MenuFileError);
    expect((err as MenuFileError).lines()).toEqual([
      'my menu: sections[0].title: is required',
      'my menu: sections[0].categories: must be a list, not a string',
      'my menu: sections[0]: unknown field "extra"',
    ]);
  });
});

describe('StateFile.memory', () => {
  it('holds targets like a file and never writes one', () => {
    const state = StateFile.memory();
    expect(state.path).toBe('');
    const id = { base_url: 'http://x', business_id: 1, brand_id: 2, branch_ids: null, file: 'menu' };
    state.target(id).ids.sections.a = 5;
    expect(() => state.save()).not.toThrow();
    expect(state.target(id).ids.sections.a).toBe(5);
  });
});
