import { describe, expect, it } from 'vitest';
import { MenuSnapshot as MenuSnapshotSchema } from '../../contract/schemas/menus.js';
import {
  applyState,
  buildSnapshot,
  checkGroupLink,
  checkMinMax,
  compileTemplate,
  effectiveState,
  type ItemState,
  type MenuDef,
  nextChange,
  renderTemplate,
  resolveRange,
  setEnabled,
  shippedProviders,
  snapshotTemplate,
  snoozeActive,
  syncStore,
  type Times,
} from './menus.js';

const day = { slots: [{ startTime: 900, endTime: 2100 }] };
const TIMES: Times = { '0': day, '1': day, '2': day, '3': day, '4': day, '5': day, '6': day };
const LUNCH: Times = Object.fromEntries(
  ['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, { slots: [{ startTime: 1100, endTime: 1400 }] }]),
) as Times;

function business(): MenuDef {
  return {
    brand_id: 1,
    sections: [
      {
        id: 10,
        title: 'Mains',
        description: '',
        availableTimes: TIMES,
        isEnabled: true,
        visibilities: { '1': true },
        blackoutDates: [],
        category_ids: [20, 21],
      },
    ],
    categories: [
      { id: 20, title: 'Rice', description: '', isEnabled: true, item_ids: [30, 31] },
      { id: 21, title: 'Noodles', description: '', isEnabled: true, item_ids: [32] },
    ],
    items: [
      item(30, 'Nasi goreng', 'SKU-NG', [40]),
      item(31, 'Nasi uduk', 'SKU-NU'),
      item(32, 'Mie goreng', 'SKU-MG', [40]),
      { ...item(50, 'Egg', 'MOD-EGG'), onlyModifier: true },
      { ...item(51, 'Krupuk', 'MOD-KRUPUK'), onlyModifier: true },
    ],
    modifierGroups: [{ id: 40, title: 'Extras', min: 0, max: 2, modifier_ids: [50, 51] }],
  };
}

function item(id: number, title: string, sku: string, groups: number[] = []) {
  return {
    id,
    title,
    partner_item_id: sku,
    description: '',
    prices: { '1': '35000.00', '2': '38000.00' },
    groupPrices: {},
    visibilities: {},
    enabled: true,
    onlyModifier: false,
    modifier_group_ids: groups,
  };
}

const META = { brand_id: 1, branch_id: 7, version: 3, published_at: '2025-01-01T00:00:00.000Z' };

describe('syncStore', () => {
  it('first sync copies the business definition', () => {
    const b = business();
    const s = syncStore(b, null);
    expect(s).toEqual(b);
    expect(s).not.toBe(b);
    s.sections[0]!.title = 'changed';
    expect(b.sections[0]!.title).toBe('Mains');
  });

  it('preserves the store values of availableTimes, isEnabled, visibilities, blackoutDates', () => {
    const store = syncStore(business(), null);
    store.sections[0]!.availableTimes = LUNCH;
    store.sections[0]!.isEnabled = false;
    store.sections[0]!.visibilities = { '1': false };
    store.sections[0]!.blackoutDates = ['2025-12-25'];
    store.categories[0]!.isEnabled = false;
    store.items[0]!.enabled = false;
    store.items[0]!.visibilities = { '2': false };

    const next = business();
    next.sections[0]!.title = 'Main dishes';
    next.sections[0]!.availableTimes = TIMES;
    next.items[0]!.prices = { '1': '36000.00' };
    const synced = syncStore(next, store);

    expect(synced.sections[0]).toMatchObject({
      title: 'Main dishes',
      availableTimes: LUNCH,
      isEnabled: false,
      visibilities: { '1': false },
      blackoutDates: ['2025-12-25'],
    });
    expect(synced.categories[0]!.isEnabled).toBe(false);
    expect(synced.items[0]).toMatchObject({
      enabled: false,
      visibilities: { '2': false },
      prices: { '1': '36000.00' },
    });
  });

  it('fieldIncludeOnSync overwrites exactly the listed fields', () => {
    const store = syncStore(business(), null);
    store.sections[0]!.availableTimes = LUNCH;
    store.sections[0]!.isEnabled = false;
    store.items[0]!.enabled = false;
    const synced = syncStore(business(), store, ['availableTimes']);
    expect(synced.sections[0]!.availableTimes).toEqual(TIMES);
    expect(synced.sections[0]!.isEnabled).toBe(false);
    expect(synced.items[0]!.enabled).toBe(false);

    const all = syncStore(business(), store, [
      'availableTimes',
      'isEnabled',
      'visibilities',
      'blackoutDates',
    ]);
    expect(all).toEqual(business());
  });

  it('adds new entities with business values and drops removed ones; links follow the business', () => {
    const store = syncStore(business(), null);
    store.items[1]!.enabled = false; // item 31, about to be deleted
    const next = business();
    next.items = next.items.filter((i) => i.id !== 31);
    next.categories[0]!.item_ids = [30];
    next.items.push(item(33, 'Nasi kuning', 'SKU-NK'));
    next.categories[1]!.item_ids = [32, 33];
    const synced = syncStore(next, store);
    expect(synced.items.map((i) => i.id)).toEqual([30, 32, 50, 51, 33]);
    expect(synced.items.find((i) => i.id === 33)!.enabled).toBe(true);
    expect(synced.categories[1]!.item_ids).toEqual([32, 33]);
  });
});

describe('buildSnapshot', () => {
  it('has exactly the pinned shape', () => {
    const snap = buildSnapshot(business(), META);
    expect(MenuSnapshotSchema.strict().safeParse(snap).success).toBe(true);
    expect(Object.keys(snap)).toEqual(['brand_id', 'branch_id', 'version', 'published_at', 'sections']);
    const s = snap.sections[0]!;
    expect(Object.keys(s)).toEqual([
      'id',
      'title',
      'availableTimes',
      'isEnabled',
      'visibilities',
      'blackoutDates',
      'categories',
    ]);
    expect(Object.keys(s.categories[0]!)).toEqual(['id', 'title', 'items']);
    const i = s.categories[0]!.items[0]!;
    expect(Object.keys(i)).toEqual([
      'id',
      'title',
      'partner_item_id',
      'prices',
      'groupPrices',
      'visibilities',
      'enabled',
      'isAvailable',
      'stock',
      'snoozed_until',
      'modifierGroups',
    ]);
    expect(Object.keys(i.modifierGroups[0]!)).toEqual(['id', 'title', 'min', 'max', 'modifiers']);
    expect(i.modifierGroups[0]!.modifiers[0]).toEqual({
      id: 50,
      title: 'Egg',
      partner_item_id: 'MOD-EGG',
      prices: { '1': '35000.00', '2': '38000.00' },
      isAvailable: true,
    });
    expect(i).toMatchObject({ isAvailable: true, stock: null, snoozed_until: null });
  });

  it('keeps link order, skips dangling ids, modifiers outside groups, disabled categories and modifiers', () => {
    const m = business();
    m.sections[0]!.category_ids = [21, 99, 20];
    m.categories[0]!.item_ids = [31, 50, 30];
    const snap = buildSnapshot(m, META);
    expect(snap.sections[0]!.categories.map((c) => c.id)).toEqual([21, 20]);
    expect(snap.sections[0]!.categories[1]!.items.map((i) => i.id)).toEqual([31, 30]);

    m.categories[1]!.isEnabled = false;
    m.items.find((i) => i.id === 51)!.enabled = false;
    m.items[0]!.enabled = false;
    m.sections[0]!.isEnabled = false;
    const off = buildSnapshot(m, META);
    expect(off.sections[0]!.isEnabled).toBe(false);
    expect(off.sections[0]!.categories.map((c) => c.id)).toEqual([20]);
    const ng = off.sections[0]!.categories[0]!.items.find((i) => i.id === 30)!;
    expect(ng.enabled).toBe(false);
    expect(ng.modifierGroups[0]!.modifiers.map((x) => x.id)).toEqual([50]);
  });

  it('shippedProviders: every provider pricing something, minus hidden ones', () => {
    const m = business();
    m.items.find((i) => i.id === 50)!.prices = { '3': '1000' };
    const snap = buildSnapshot(m, META);
    expect(shippedProviders(snap)).toEqual([1, 2, 3]);
    expect(shippedProviders(snap, new Set(['2']))).toEqual([1, 3]);
  });
});

describe('operational state', () => {
  const T = Date.parse('2025-03-01T10:00:00Z');
  it('flag, zero stock and an active snooze each make an item unavailable', () => {
    expect(effectiveState({ available: true, stock: null, snoozedUntil: null }, T).isAvailable).toBe(true);
    expect(effectiveState({ available: false, stock: null, snoozedUntil: null }, T).isAvailable).toBe(false);
    expect(effectiveState({ available: true, stock: 0, snoozedUntil: null }, T)).toEqual({
      isAvailable: false,
      stock: 0,
      snoozed_until: null,
    });
    expect(effectiveState({ available: true, stock: 3, snoozedUntil: null }, T).isAvailable).toBe(true);
    const snoozed: ItemState = { available: true, stock: null, snoozedUntil: T + 60_000 };
    expect(effectiveState(snoozed, T)).toEqual({
      isAvailable: false,
      stock: null,
      snoozed_until: '2025-03-01T10:01:00.000Z',
    });
  });

  it('a snooze ends by itself at its end time', () => {
    const s: ItemState = { available: true, stock: null, snoozedUntil: T + 1000 };
    expect(snoozeActive(s, T)).toBe(true);
    expect(snoozeActive(s, T + 999)).toBe(true);
    expect(snoozeActive(s, T + 1000)).toBe(false);
    expect(effectiveState(s, T + 1000)).toEqual({ isAvailable: true, stock: null, snoozed_until: null });
  });

  it('nextChange is the earliest snooze end still ahead', () => {
    const states = [
      { available: true, stock: null, snoozedUntil: T + 5000 },
      { available: true, stock: null, snoozedUntil: T + 2000 },
      { available: true, stock: null, snoozedUntil: T - 1 },
      { available: false, stock: 0, snoozedUntil: null },
    ];
    expect(nextChange(states, T)).toBe(T + 2000);
    expect(nextChange([], T)).toBe(Number.POSITIVE_INFINITY);
  });

  it('the compiled template renders exactly JSON.stringify(applyState(...))', () => {
    const m = business();
    m.items[0]!.title = 'Tricky "isAvailable":"@@I:1@@" title';
    const snap = buildSnapshot(m, META);
    const tpl = compileTemplate(snapshotTemplate(snap));
    expect(tpl.slots).toHaveLength(3 + 4); // three items, two modifiers under each of two items
    for (const states of [
      new Map<number, ItemState>(),
      new Map<number, ItemState>([
        [30, { available: false, stock: null, snoozedUntil: null }],
        [32, { available: true, stock: 0, snoozedUntil: null }],
        [31, { available: true, stock: 5, snoozedUntil: T + 60_000 }],
        [50, { available: false, stock: null, snoozedUntil: null }],
      ]),
    ]) {
      for (const now of [T, T + 60_000]) {
        const rendered = renderTemplate(tpl, states, now);
        expect(rendered).toBe(JSON.stringify(applyState(snap, states, now)));
        expect(JSON.parse(rendered)).toEqual(applyState(snap, states, now));
      }
    }
  });

  it('setEnabled flips flags in a layer and reports the values before', () => {
    const m = business();
    const r = setEnabled(m, 'items', [30, 99], false);
    expect(r.before).toEqual(new Map([[30, true]]));
    expect(r.menu.items[0]!.enabled).toBe(false);
    expect(m.items[0]!.enabled).toBe(true);
    expect(setEnabled(m, 'sections', [10], false).menu.sections[0]!.isEnabled).toBe(false);
    expect(setEnabled(m, 'categories', [21], false).menu.categories[1]!.isEnabled).toBe(false);
  });
});

describe('link validation', () => {
  const group = { id: 40, min: 1, max: 2, modifier_ids: [50, 51] };
  const mods = new Map([
    [50, true],
    [51, true],
    [30, false],
  ]);

  it('accepts an exact restatement (modifier ids in any order)', () => {
    expect(checkGroupLink(group, { min: 1, max: 2, modifier_ids: [51, 50] }, mods)).toEqual([]);
  });

  it('rejects min > max', () => {
    expect(checkMinMax(3, 2)).toHaveLength(1);
    expect(checkMinMax(2, 2)).toEqual([]);
    const issues = checkGroupLink({ ...group, min: 3 }, { min: 3, max: 2, modifier_ids: [50, 51] }, mods);
    expect(issues.map((i) => i.path.join('.'))).toContain('body.min');
  });

  it('rejects min, max or modifiers that differ from the group', () => {
    expect(
      checkGroupLink(group, { min: 0, max: 2, modifier_ids: [50, 51] }, mods).map((i) => i.path.join('.')),
    ).toEqual(['body.min']);
    expect(
      checkGroupLink(group, { min: 1, max: 3, modifier_ids: [50, 51] }, mods).map((i) => i.path.join('.')),
    ).toEqual(['body.max']);
    expect(
      checkGroupLink(group, { min: 1, max: 2, modifier_ids: [50] }, mods).map((i) => i.path.join('.')),
    ).toEqual(['body.modifier_ids']);
    expect(checkGroupLink(group, { min: 1, max: 2, modifier_ids: [50, 51, 51] }, mods)).toHaveLength(1);
  });

  it('rejects a restated modifier that is not onlyModifier', () => {
    const issues = checkGroupLink(group, { min: 1, max: 2, modifier_ids: [50, 30] }, mods);
    expect(issues.map((i) => i.path.join('.'))).toEqual(['body.modifier_ids.1', 'body.modifier_ids']);
  });
});

describe('resolveRange', () => {
  const now = Date.parse('2025-06-01T00:00:00Z');
  const DAY = 86_400_000;
  it('defaults to the last 24 h', () => {
    expect(resolveRange(undefined, undefined, now)).toEqual({ ok: true, from: now - DAY, to: now });
    expect(resolveRange(now - 5 * DAY, undefined, now)).toEqual({ ok: true, from: now - 5 * DAY, to: now });
    expect(resolveRange(undefined, now - DAY, now)).toEqual({ ok: true, from: now - 2 * DAY, to: now - DAY });
  });
  it('90 days is allowed, more is request_invalid_range; from after to is request_invalid', () => {
    expect(resolveRange(now - 90 * DAY, now, now).ok).toBe(true);
    expect(resolveRange(now - 90 * DAY - 1, now, now)).toMatchObject({
      ok: false,
      code: 'request_invalid_range',
    });
    expect(resolveRange(now, now - 1, now)).toMatchObject({ ok: false, code: 'request_invalid' });
  });
});
