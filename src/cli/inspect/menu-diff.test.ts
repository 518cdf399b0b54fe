import { describe, expect, it } from 'vitest';
import { menuChanges } from './menu-diff.js';
import type { MenuSnapshot, SnapshotItem } from '../../contract/inspect-wire.js';

const item = (id: number, title: string, over: Partial<SnapshotItem> = {}): SnapshotItem => ({
  id,
  title,
  partner_item_id: `SKU-${id}`,
  prices: { '1': '10.00', '2': '11.00' },
  groupPrices: {},
  visibilities: { '1': true },
  enabled: true,
  isAvailable: true,
  stock: null,
  snoozed_until: null,
  modifierGroups: [],
  ...over,
});

const menu = (version: number, items: SnapshotItem[], sectionTitle = 'Mains'): MenuSnapshot => ({
  brand_id: 1,
  branch_id: 2,
  version,
  published_at: '2026-01-01T00:00:00.000Z',
  sections: [
    {
      id: 10,
      title: sectionTitle,
      isEnabled: true,
      visibilities: {},
      blackoutDates: [],
      categories: [{ id: 20, title: 'Burgers', items }],
    },
  ],
});

describe('menuChanges', () => {
  it('finds nothing between equal publishes, whatever the order of price keys', () => {
    const a = menu(1, [item(1, 'Cheeseburger')]);
    const b = menu(2, [item(1, 'Cheeseburger', { prices: { '2': '11.00', '1': '10.00' } })]);
    expect(menuChanges(a, b)).toEqual({ sections: {}, categories: {}, items: {}, removed: [] });
  });

  it('names new items, changed fields and what was removed', () => {
    const a = menu(1, [item(1, 'Cheeseburger'), item(2, 'Fries')]);
    const b = menu(
      2,
      [item(1, 'Cheeseburger', { prices: { '1': '12.00', '2': '11.00' } }), item(3, 'Shake')],
      'Main',
    );
    const c = menuChanges(a, b);
    expect(c.items).toEqual({ '1': ['prices'], '3': 'new' });
    expect(c.categories).toEqual({ '20': ['items'] });
    expect(c.sections).toEqual({ '10': ['title'] });
    expect(c.removed).toEqual([{ kind: 'item', title: 'Fries' }]);
  });

  it('leaves out live state: availability, stock and snooze are not a publish', () => {
    const a = menu(1, [item(1, 'Cheeseburger')]);
    const b = menu(2, [
      item(1, 'Cheeseburger', { isAvailable: false, stock: 0, snoozed_until: '2026-01-01T10:00:00Z' }),
    ]);
    expect(menuChanges(a, b).items).toEqual({});
  });

  it('sees a modifier group whose bounds changed', () => {
    const group = { id: 5, title: 'Extras', min: 0, max: 2, modifiers: [] };
    const a = menu(1, [item(1, 'Cheeseburger', { modifierGroups: [group] })]);
    const b = menu(2, [item(1, 'Cheeseburger', { modifierGroups: [{ ...group, max: 3 }] })]);
    expect(menuChanges(a, b).items).toEqual({ '1': ['modifierGroups'] });
  });
});
