import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MenuFileError, parseMenuText } from '../../src/menu/load.js';
import { currentOf, desiredOf, matchKeys } from '../../src/menu/model.js';
import { plan, reconcileOrder } from '../../src/menu/plan.js';
import { idempotencyKey } from '../../src/menu/run.js';
import { menuFileJsonSchema } from '../../src/menu/schema.js';
import {
  emptyTarget,
  menuStateDir,
  type RunRecord,
  statePath,
  type TargetState,
  targetId,
} from '../../src/cli/flows/menu-push/state.js';
import { defaultConfigDir } from '../../src/cli/paths.js';
import { runCli, tempDir } from './run-cli.js';
import { BIG, bigMenu } from '../helpers/big-menu.js';
import { listBound, type MenuOp } from '../../src/menu/bounds.js';

// The menu file of `partner menu push` without a server: validation with file:line, the
// published JSON Schema, and the planner's pure parts.

const root = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = readFileSync(join(root, 'docs/examples/menu.sample.yaml'), 'utf8');

function problems(text: string, file = 'menu.yaml'): string[] {
  try {
    parseMenuText(text, file);
  } catch (err) {
    if (err instanceof MenuFileError) return err.lines();
    throw err;
  }
  return [];
}

describe('menu file validation', () => {
  it('the sample (docs/examples) and the design fixture (test/fixtures) are valid', () => {
    expect(problems(SAMPLE)).toEqual([]);
    expect(problems(readFileSync(join(root, 'test/fixtures/menu.sample.yaml'), 'utf8'))).toEqual([]);
  });

  it('a bare number as a price is reported with the file, line and path', () => {
    const lines = SAMPLE.split('\n');
    const at = lines.findIndex((l) => l.includes('SKU-MA'));
    lines[at] = lines[at]!.replace('"28000.00"', '28000');
    const out = problems(lines.join('\n'));
    expect(out).toEqual([
      `menu.yaml:${at + 1}: sections[0].categories[1].items[1].prices."1": must be a decimal string such as "45000.00" (quote it: a bare number is not accepted)`,
    ]);
  });

  it('reports every problem at once, each at its own line, sorted', () => {
    const text = [
      'modifierGroups:', //                                              1
      '  - key: extras', //                                              2
      '    title: Extras', //                                            3
      '    min: 3', //                                                   4
      '    max: 2', //                                                   5
      '    modifiers:', //                                               6
      '      - {key: bacon, title: Bacon, partner_item_id: SKU-B, prices: {"1": "8000.00"}}',
      'sections:', //                                                    8
      '  - key: mains', //                                               9
      '    titel: Mains', //                                            10
      '    categories:', //                                             11
      '      - key: burgers', //                                        12
      '        title: Burgers', //                                      13
      '        items:', //                                              14
      '          - key: cb', //                                         15
      '            title: Cheeseburger', //                             16
      '            partner_item_id: SKU-B', //                          17
      '            prices: {"1": "4,50"}', //                           18
      '            modifierGroups: [extras, sauces]', //                19
    ].join('\n');
    expect(problems(text)).toEqual([
      'menu.yaml:4: modifierGroups[0].min: min (3) must not exceed max (2)',
      'menu.yaml:4: modifierGroups[0].min: min (3) is more than the only modifier of the group',
      'menu.yaml:9: sections[0].title: is required',
      'menu.yaml:10: sections[0]: unknown field "titel"',
      'menu.yaml:17: sections[0].categories[0].items[0].partner_item_id: partner_item_id "SKU-B" is already used at modifierGroups[0].modifiers[0].partner_item_id',
      'menu.yaml:18: sections[0].categories[0].items[0].prices."1": must be a non-negative decimal string such as "45000.00"',
      'menu.yaml:19: sections[0].categories[0].items[0].modifierGroups[1]: no modifier group "sauces" in modifierGroups (known: extras)',
    ]);
  });

  it('JSON files get line numbers too', () => {
    const json = JSON.stringify(
      {
        sections: [
          { key: 'a', title: 'A', categories: [{ key: 'c', title: 'C', items: [{ key: 'i', title: 'I' }] }] },
        ],
      },
      null,
      2,
    );
    const line = json.split('\n').findIndex((l) => l.includes('"key": "i"')) + 1;
    expect(problems(json, 'menu.json')).toEqual([
      `menu.json:${line - 1}: sections[0].categories[0].items[0].partner_item_id: is required`,
      `menu.json:${line - 1}: sections[0].categories[0].items[0].prices: is required`,
    ]);
  });

  it('syntax errors and duplicate keys come with a line', () => {
    expect(problems('sections:\n  - key: a\n    key: b\n    title: A\n')[0]).toMatch(
      /^menu\.yaml:3: Map keys must be unique/,
    );
    expect(problems('sections: [\n')[0]).toMatch(/^menu\.yaml:\d+: /);
    expect(problems('')).toEqual(['menu.yaml:1: the file is empty']);
  });

  it('duplicate keys of a kind, and bad availableTimes, are found', () => {
    const text = `sections:
  - key: s
    title: S
    availableTimes: {"0": {slots: [{startTime: 900, endTime: 2575}]}}
  - key: s
    title: T
`;
    const out = problems(text);
    expect(out).toContain('menu.yaml:5: sections[1].key: section key "s" is already used at sections[0].key');
    expect(out.some((l) => /^menu\.yaml:4: sections\[0\]\.availableTimes/.test(l))).toBe(true);
  });
});

describe('JSON Schema of the file', () => {
  it('docs/menu-file.schema.json is the one generated from the zod schema', () => {
    const committed = JSON.parse(readFileSync(join(root, 'docs/menu-file.schema.json'), 'utf8'));
    const generated = menuFileJsonSchema();
    if (process.env.UPDATE_MENU_SCHEMA === '1') {
      writeFileSync(join(root, 'docs/menu-file.schema.json'), `${JSON.stringify(generated, null, 2)}\n`);
    }
    expect(committed).toEqual(generated);
  });

  it('`partner menu schema` prints it', async () => {
    const r = await runCli(['menu', 'schema'], { configDir: tempDir() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(menuFileJsonSchema());
  });

  it('describes the pinned shape: keys, prices as decimal strings, modifier groups by key', () => {
    const s = menuFileJsonSchema() as { required: string[]; properties: Record<string, unknown> };
    expect(s.required).toEqual(['sections']);
    const text = JSON.stringify(s);
    expect(text).toContain('"additionalProperties":false');
    expect(text).toContain('^\\\\d+(\\\\.\\\\d+)?$');
  });
});

describe('planner', () => {
  it('reconcileOrder: keeps a matching prefix, unlinks extras and the out-of-order tail', () => {
    expect(reconcileOrder([], ['a', 'b'])).toEqual({ remove: [], add: ['a', 'b'] });
    expect(reconcileOrder(['a', 'b'], ['a', 'b'])).toEqual({ remove: [], add: [] });
    expect(reconcileOrder(['a'], ['a', 'b'])).toEqual({ remove: [], add: ['b'] });
    expect(reconcileOrder(['a', 7, 'b'], ['a', 'b'])).toEqual({ remove: [7], add: [] });
    expect(reconcileOrder(['a', 'c'], ['a', 'b', 'c'])).toEqual({ remove: ['c'], add: ['b', 'c'] });
    expect(reconcileOrder(['b', 'a'], ['a', 'b'])).toEqual({ remove: ['b'], add: ['b'] });
    expect(reconcileOrder(['c', 'a', 'b'], ['a', 'b', 'c'])).toEqual({ remove: ['c'], add: ['c'] });
    expect(reconcileOrder(['b', 'c', 'a'], ['a', 'b', 'c'])).toEqual({ remove: ['b', 'c'], add: ['b', 'c'] });
    expect(reconcileOrder(['x', 'a'], ['a'])).toEqual({ remove: ['x'], add: [] });
  });

  const empty = {
    brand_id: 9,
    title: 'B',
    sections: [],
    unlinked: { categories: [], items: [], modifierGroups: [] },
  };
  const planFor = (text: string, state = emptyTarget('http://x', 1, 9)) => {
    const desired = desiredOf(parseMenuText(text, 'm.yaml').menu);
    const current = currentOf(empty);
    return plan({ desired, current, matching: matchKeys(desired, current, state), state, brand_id: 9 });
  };

  it('plans the sample in the spec order, groups linked in rounds that keep each item order', () => {
    const p = planFor(SAMPLE);
    const ops = p.steps.map((s) => s.op).filter((op, i, all) => op !== all[i - 1]);
    expect(ops).toEqual([
      'createSection',
      'createCategory',
      'linkCategoryToSection',
      'createItem',
      'linkCategoriesToItem',
      'createModifierGroup',
      'createItem',
      'linkModifiersToGroup',
      'linkModifierGroupToItem',
      'syncMenuToStores',
      'publishMenu',
    ]);
    expect(p.steps.map((s) => s.stage)).toEqual([...p.steps.map((s) => s.stage)].sort((a, b) => a - b));
    const offers = p.steps.filter((s) => s.op === 'linkModifierGroupToItem').map((s) => s.text);
    expect(offers).toEqual([
      'offer modifier group spice on items nasi-goreng, nasi-ayam, mie-goreng',
      'offer modifier group toppings on items nasi-uduk, mie-ayam',
      'offer modifier group toppings on items nasi-goreng, mie-goreng',
    ]);
    expect(p.created).toEqual({ sections: 2, categories: 4, items: 8, modifiers: 6, modifier_groups: 2 });
  });

  it('Idempotency-Keys are stable for the same run and step, and differ across runs and bodies', () => {
    const p = planFor(SAMPLE);
    const step = p.steps.find((s) => s.op === 'createItem')!;
    const t = { ...emptyTarget('http://x', 1, 9), run: { id: 'run-1', started_at: '', writes: 0 } };
    const built = step.build(() => 1);
    const k1 = idempotencyKey(t, step, built);
    expect(
      idempotencyKey(
        t,
        step,
        step.build(() => 1),
      ),
    ).toBe(k1);
    expect(k1.length).toBeLessThanOrEqual(64);
    expect(idempotencyKey({ ...t, run: { ...t.run, id: 'run-2' } }, step, built)).not.toBe(k1);
    expect(idempotencyKey(t, step, { ...built, body: { ...built.body, title: 'Other' } })).not.toBe(k1);
    // Sync and publish also change with the writes made before them in the run.
    const sync = p.steps.find((s) => s.action === 'sync')!;
    const s1 = idempotencyKey(
      t,
      sync,
      sync.build(() => 1),
    );
    expect(
      idempotencyKey(
        { ...t, run: { ...t.run, writes: 3 } },
        sync,
        sync.build(() => 1),
      ),
    ).not.toBe(s1);
  });
});

describe('where the push state lives', () => {
  it('the XDG state dir by default, beside the profiles when the config dir was moved', () => {
    const env = { HOME: '/home/ana' };
    expect(menuStateDir(env, defaultConfigDir(env))).toBe('/home/ana/.local/state/partner/menu-push');
    const xdg = { ...env, XDG_STATE_HOME: '/xdg/state', XDG_CONFIG_HOME: '/xdg/config' };
    expect(menuStateDir(xdg, defaultConfigDir(xdg))).toBe('/xdg/state/partner/menu-push');
    const moved = { ...env, PARTNER_CONFIG_DIR: '/tmp/cfg' };
    expect(menuStateDir(moved, defaultConfigDir(moved))).toBe('/tmp/cfg/menu-push');
    expect(menuStateDir(env, '/given/config')).toBe('/given/config/menu-push');
  });

  it('one file per server, business, brand, branch set and menu file, named after the menu file', () => {
    const id = targetId('http://127.0.0.1:8787', 1, 12, undefined, '/w/menus/lunch.yaml');
    const p = statePath('/s', id);
    expect(p).toMatch(/^\/s\/lunch-[0-9a-f]{16}\.json$/);
    expect(statePath('/s', targetId('http://127.0.0.1:8787', 1, 12, undefined, '/w/menus/lunch.yaml'))).toBe(
      p,
    );
    const others = [
      targetId('http://127.0.0.1:9999', 1, 12, undefined, '/w/menus/lunch.yaml'),
      targetId('http://127.0.0.1:8787', 2, 12, undefined, '/w/menus/lunch.yaml'),
      targetId('http://127.0.0.1:8787', 1, 13, undefined, '/w/menus/lunch.yaml'),
      targetId('http://127.0.0.1:8787', 1, 12, [3, 4], '/w/menus/lunch.yaml'),
      targetId('http://127.0.0.1:8787', 1, 12, undefined, '/w/other/lunch.yaml'),
    ];
    expect(new Set([p, ...others.map((o) => statePath('/s', o))]).size).toBe(6);
    // The branch set is a set: order does not matter.
    expect(statePath('/s', targetId('http://h', 1, 12, [4, 3], '/f.yaml'))).toBe(
      statePath('/s', targetId('http://h', 1, 12, [3, 4], '/f.yaml')),
    );
  });
});

describe('fresh keys where a replay would be wrong', () => {
  const empty = {
    brand_id: 9,
    title: 'B',
    sections: [],
    unlinked: { categories: [], items: [], modifierGroups: [] },
  };
  const planFor = (state = emptyTarget('http://x', 1, 9)) => {
    const desired = desiredOf(parseMenuText(SAMPLE, 'm.yaml').menu);
    const current = currentOf(empty);
    return plan({ desired, current, matching: matchKeys(desired, current, state), state, brand_id: 9 });
  };
  const run: TargetState & { run: RunRecord } = {
    ...emptyTarget('http://x', 1, 9),
    run: { id: 'run-1', started_at: '', writes: 0 },
  };
  const key = (t: typeof run, step: ReturnType<typeof planFor>['steps'][number]) =>
    idempotencyKey(
      t,
      step,
      step.build(() => 1),
    );

  it('a step the server refused (4xx, stored under its key) is sent with a new key when resumed', () => {
    const step = planFor().steps.find((x) => x.op === 'linkCategoryToSection')!;
    const k = key(run, step);
    expect(key({ ...run, run: { ...run.run, refused: { [step.id]: 1 } } }, step)).not.toBe(k);
    expect(key({ ...run, run: { ...run.run, refused: { [step.id]: 2 } } }, step)).not.toBe(
      key({ ...run, run: { ...run.run, refused: { [step.id]: 1 } } }, step),
    );
    expect(key({ ...run, run: { ...run.run, refused: { 'another step': 1 } } }, step)).toBe(k);
  });

  it('a create for a key whose recorded id was deleted is not a replay of the create that made it', () => {
    const first = planFor().steps.find((x) => x.id === 'create:section:all-day')!;
    const state = emptyTarget('http://x', 1, 9);
    state.ids.sections['all-day'] = 77;
    const again = planFor(state).steps.find((x) => x.id === 'create:section:all-day')!;
    expect(key(run, again)).not.toBe(key(run, first));
  });
});

describe('list bounds', () => {
  const empty = {
    brand_id: 9,
    title: 'B',
    sections: [],
    unlinked: { categories: [], items: [], modifierGroups: [] },
  };
  const planOf = (menu: unknown) => {
    const desired = desiredOf(parseMenuText(JSON.stringify(menu), 'big.json').menu);
    const current = currentOf(empty);
    const state = emptyTarget('http://x', 1, 9);
    return plan({ desired, current, matching: matchKeys(desired, current, state), state, brand_id: 9 });
  };
  /** Gives every key of the file an id of its own, as a push would once the creates ran. */
  const fakeIds = () => {
    const ids = new Map<string, number>();
    return (kind: string, ref: string | number) => {
      if (typeof ref === 'number') return ref;
      const k = `${kind}:${ref}`;
      if (!ids.has(k)) ids.set(k, ids.size + 1);
      return ids.get(k)!;
    };
  };

  it('a 2,000-item menu: every list call stays within the bound the contract gives it, in order', () => {
    const p = planOf(bigMenu());
    const resolve = fakeIds();
    const sent = new Map<string, number[]>();
    for (const step of p.steps) {
      const { body } = step.build(resolve);
      for (const [field, v] of Object.entries(body)) {
        if (!Array.isArray(v)) continue;
        expect(v.length, `${step.op}.${field}`).toBeLessThanOrEqual(listBound(step.op as MenuOp, field));
        if (field !== 'modifier_ids' || step.op !== 'linkModifierGroupToItem') {
          const k = `${step.op}.${field}`;
          sent.set(k, [...(sent.get(k) ?? []), ...v]);
        }
      }
      // People read these lines (the plan, progress, a failure): no list of a thousand keys.
      expect(step.text.length, step.text).toBeLessThanOrEqual(160);
    }
    // Everything is linked, once, in the file's order.
    const ids = (kind: string, keys: string[]) => keys.map((k) => resolve(kind, k));
    const cats = Array.from({ length: BIG.categories }, (_, c) => `cat-${c}`);
    expect(sent.get('linkCategoryToSection.category_ids')).toEqual(ids('categories', cats));
    const items = Array.from({ length: BIG.items }, (_, i) => `item-${i}`).sort(
      (a, b) => (Number(a.slice(5)) % BIG.categories) - (Number(b.slice(5)) % BIG.categories),
    );
    expect([...(sent.get('linkModifierGroupToItem.item_ids') ?? [])].sort((a, b) => a - b)).toEqual(
      ids('items', items).sort((a, b) => a - b),
    );
    const tops = Array.from({ length: BIG.toppings }, (_, i) => `top-${i}`);
    expect(sent.get('linkModifiersToGroup.modifier_ids')).toEqual(
      ids('items', ['size-s', 'size-m', 'size-l', ...tops]),
    );
    expect(p.steps.filter((s) => s.op === 'linkCategoryToSection')).toHaveLength(2);
    expect(p.steps.filter((s) => s.op === 'linkModifierGroupToItem')).toHaveLength(3);
  });

  it('a group too big to restate when offering it on an item is a file problem before any request', async () => {
    const menu = bigMenu({ categories: 1, items: 1, toppings: 501 });
    (menu.sections[0]!.categories[0]!.items[0] as { modifierGroups: string[] }).modifierGroups = ['toppings'];
    const dir = tempDir('partner-menu-');
    const text = JSON.stringify(menu, null, 1);
    writeFileSync(join(dir, 'big.json'), text);
    // No profile and no server: the check comes before any request.
    const r = await runCli(['menu', 'push', 'big.json', '--brand', '1', '--base-url', 'http://127.0.0.1:9'], {
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(2);
    const lines = text.split('\n');
    const group = lines.findIndex((l) => l.includes('"key": "toppings"'));
    const line = lines.findIndex((l, i) => i > group && l.includes('"modifiers"')) + 1;
    expect(r.stderr).toMatch(
      new RegExp(
        `^big\\.json:${line}: modifierGroups\\[1\\]\\.modifiers: 501 modifiers in a group offered on items \\(first: item-0\\); .* at most 500$`,
        'm',
      ),
    );
    expect(r.stderr).toMatch(/nothing was sent/);
  });
});

describe('progress', () => {
  it('on a terminal: one redrawn line with done/total, rate, ETA and the current step', async () => {
    const { barProgress, lineProgress } = await import('../../src/cli/flows/menu-push/progress.js');
    let now = 1_000_000;
    let out = '';
    const bar = barProgress(
      { write: (s: string) => (out += s), columns: 100 },
      { now: () => now, sleep: async () => {} },
      false,
    );
    const step = { text: 'create item nasi-goreng "Nasi goreng"' } as never;
    for (let i = 1; i <= 20; i++) {
      now += 100;
      bar.event({ step, done: i - 1, total: 40, kind: 'start' });
      bar.event({ step, done: i, total: 40, kind: 'done', id: i });
    }
    const last = out.slice(out.lastIndexOf('\r'));
    expect(last).toMatch(
      /^\r\u001b\[2K█{12}░{12} 20\/40 · 10\.0\/s · ETA 0:02 create item nasi-goreng "Nasi goreng"$/,
    );
    expect(out).not.toContain('\n');
    bar.end();
    expect(out.endsWith('\r\u001b[2K')).toBe(true);

    let lines = '';
    const plain = lineProgress({ write: (s: string) => (lines += s) });
    plain.event({ step, done: 3, total: 40, kind: 'done', id: 7, replayed: true });
    expect(lines).toBe('[ 3/40] create item nasi-goreng "Nasi goreng" → 7 (replayed)\n');
  });
});
