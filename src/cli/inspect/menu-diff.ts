import type { MenuChanges, MenuSnapshot, SnapshotItem } from '../../contract/inspect-wire.js';

// "Changed since the previous publish": what a publish changed, entity by entity. Live state
// (availability, stock, snooze) changes without a publish and is shown by its own badges, so it
// is left out here.

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Key order does not matter in a map such as prices: compare sorted entries. */
const sorted = (m: Record<string, unknown>) => Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1));

function itemShape(i: SnapshotItem) {
  return {
    title: i.title,
    partner_item_id: i.partner_item_id,
    prices: sorted(i.prices),
    groupPrices: sorted(i.groupPrices),
    visibilities: sorted(i.visibilities),
    enabled: i.enabled,
    modifierGroups: i.modifierGroups.map((g) => ({
      id: g.id,
      title: g.title,
      min: g.min,
      max: g.max,
      modifiers: g.modifiers.map((m) => ({ id: m.id, title: m.title, prices: sorted(m.prices) })),
    })),
  };
}

function changedFields<T extends object>(before: T, after: T): string[] {
  return (Object.keys(after) as (keyof T & string)[]).filter((k) => !same(before[k], after[k]));
}

function index(s: MenuSnapshot) {
  const sections = new Map<number, { title: string; shape: object }>();
  const categories = new Map<number, { title: string; shape: object }>();
  const items = new Map<number, { title: string; shape: object }>();
  for (const sec of s.sections) {
    sections.set(sec.id, {
      title: sec.title,
      shape: {
        title: sec.title,
        isEnabled: sec.isEnabled,
        visibilities: sorted(sec.visibilities),
        blackoutDates: sec.blackoutDates,
        categories: sec.categories.map((c) => c.id),
      },
    });
    for (const cat of sec.categories) {
      categories.set(cat.id, {
        title: cat.title,
        shape: { title: cat.title, items: cat.items.map((i) => i.id) },
      });
      for (const item of cat.items) items.set(item.id, { title: item.title, shape: itemShape(item) });
    }
  }
  return { sections, categories, items };
}

/** Entities of `current` that are new or changed since `previous`, and what `previous` had more. */
export function menuChanges(previous: MenuSnapshot, current: MenuSnapshot): MenuChanges {
  const a = index(previous);
  const b = index(current);
  const out: MenuChanges = { sections: {}, categories: {}, items: {}, removed: [] };
  const kinds = [
    ['sections', 'section'],
    ['categories', 'category'],
    ['items', 'item'],
  ] as const;
  for (const [group, kind] of kinds) {
    for (const [id, now] of b[group]) {
      const before = a[group].get(id);
      if (!before) out[group][String(id)] = 'new';
      else {
        const fields = changedFields(before.shape, now.shape);
        if (fields.length) out[group][String(id)] = fields;
      }
    }
    for (const [id, before] of a[group])
      if (!b[group].has(id)) out.removed.push({ kind, title: before.title });
  }
  return out;
}
