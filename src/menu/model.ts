import type { z } from 'zod';
import type { AvailableTimes } from '../contract/schemas/common.js';
import type { BusinessMenu } from '../contract/schemas/menus.js';
import type { MenuFile } from './schema.js';
import type { EntityKind, TargetState } from './state.js';

// What the file wants (Desired) and what the business tree shows (Current), flattened by kind,
// and the matching of the file's keys to existing ids: the state file first (if the id still
// exists), then partner_item_id for items and modifiers, then title within the brand for
// sections, categories (preferring the matched section's) and modifier groups.

type Path = (string | number)[];
type Times = AvailableTimes;

interface DSection {
  key: string;
  title: string;
  description?: string | undefined;
  availableTimes?: Times | null | undefined;
  isEnabled?: boolean | undefined;
  visibilities?: Record<string, boolean> | undefined;
  blackoutDates?: string[] | undefined;
  categories: string[];
  path: Path;
}
interface DCategory {
  key: string;
  title: string;
  description?: string | undefined;
  isEnabled?: boolean | undefined;
  section: string;
  items: string[];
  path: Path;
}
export interface DItem {
  key: string;
  title: string;
  partner_item_id: string;
  prices: Record<string, string>;
  description?: string | undefined;
  groupPrices?: Record<string, string> | undefined;
  visibilities?: Record<string, boolean> | undefined;
  enabled?: boolean | undefined;
  onlyModifier: boolean;
  /** Items: modifier group keys offered, in order. */
  groups: string[];
  path: Path;
}
interface DGroup {
  key: string;
  title: string;
  min: number;
  max: number;
  modifiers: string[];
  path: Path;
}
export interface Desired {
  sections: DSection[];
  categories: DCategory[];
  items: DItem[];
  modifiers: DItem[];
  groups: DGroup[];
}

export function desiredOf(f: MenuFile): Desired {
  const d: Desired = { sections: [], categories: [], items: [], modifiers: [], groups: [] };
  (f.modifierGroups ?? []).forEach((g, gi) => {
    d.groups.push({
      key: g.key,
      title: g.title,
      min: g.min,
      max: g.max,
      modifiers: g.modifiers.map((m) => m.key),
      path: ['modifierGroups', gi],
    });
    g.modifiers.forEach((m, mi) => {
      const { key, ...rest } = m;
      d.modifiers.push({
        key,
        ...rest,
        onlyModifier: true,
        groups: [],
        path: ['modifierGroups', gi, 'modifiers', mi],
      });
    });
  });
  f.sections.forEach((s, si) => {
    const { key, categories = [], ...fields } = s;
    d.sections.push({ key, ...fields, categories: categories.map((c) => c.key), path: ['sections', si] });
    categories.forEach((c, ci) => {
      const { items = [], ...cf } = c;
      d.categories.push({
        ...cf,
        section: key,
        items: items.map((i) => i.key),
        path: ['sections', si, 'categories', ci],
      });
      items.forEach((it, ii) => {
        const { modifierGroups = [], ...itf } = it;
        d.items.push({
          ...itf,
          onlyModifier: false,
          groups: modifierGroups,
          path: ['sections', si, 'categories', ci, 'items', ii],
        });
      });
    });
  });
  return d;
}

// ─── current state, from GET /menus (business tree) ───────────────────────────────────────────

export type BusinessTree = z.infer<typeof BusinessMenu>;
type BrandTree = BusinessTree['brands'][number];

interface CSection {
  id: number;
  title: string;
  description: string;
  availableTimes: Times | null;
  isEnabled: boolean;
  visibilities: Record<string, boolean>;
  blackoutDates: string[];
  category_ids: number[];
}
interface CCategory {
  id: number;
  title: string;
  description: string;
  isEnabled: boolean;
  item_ids: number[];
}
/** Fields the tree shows for an item; a missing field is unknown (the tree does not show it there). */
interface CItemFields {
  title?: string;
  partner_item_id?: string;
  description?: string;
  prices?: Record<string, string>;
  groupPrices?: Record<string, string>;
  visibilities?: Record<string, boolean>;
  enabled?: boolean;
  onlyModifier?: boolean;
}
export interface CItem {
  id: number;
  fields: CItemFields;
  /** Modifier groups offered on it, in order; undefined when the tree does not show it. */
  group_ids?: number[];
}
interface CGroup {
  id: number;
  /** Undefined when the group is referenced but not shown (offered only on hidden items). */
  detail?: { title: string; min: number; max: number; modifier_ids: number[] };
}
export interface Current {
  brand_id: number;
  title: string;
  sections: Map<number, CSection>;
  categories: Map<number, CCategory>;
  items: Map<number, CItem>;
  groups: Map<number, CGroup>;
}

export function currentOf(b: BrandTree): Current {
  const cur: Current = {
    brand_id: b.brand_id,
    title: b.title,
    sections: new Map(),
    categories: new Map(),
    items: new Map(),
    groups: new Map(),
  };
  const item = (id: number, fields: CItemFields, group_ids?: number[]) => {
    const prev = cur.items.get(id);
    const next: CItem = { id, fields: { ...prev?.fields, ...fields } };
    const g = group_ids ?? prev?.group_ids;
    if (g) next.group_ids = g;
    cur.items.set(id, next);
  };
  const group = (id: number, detail?: CGroup['detail']) => {
    const prev = cur.groups.get(id);
    cur.groups.set(id, detail ? { id, detail } : (prev ?? { id }));
  };
  for (const s of b.sections) {
    const { categories, ...sf } = s;
    cur.sections.set(s.id, { ...sf, category_ids: categories.map((c) => c.id) });
    for (const c of categories) {
      const { items, ...cf } = c;
      cur.categories.set(c.id, { ...cf, item_ids: items.map((i) => i.id) });
      for (const i of items) {
        const { modifierGroups, id, ...fields } = i;
        item(
          id,
          { ...fields, onlyModifier: false },
          modifierGroups.map((g) => g.id),
        );
        for (const g of modifierGroups) {
          group(g.id, { title: g.title, min: g.min, max: g.max, modifier_ids: g.modifiers.map((m) => m.id) });
          for (const m of g.modifiers) {
            item(m.id, {
              title: m.title,
              partner_item_id: m.partner_item_id,
              prices: m.prices,
              enabled: m.enabled,
              onlyModifier: true,
            });
          }
        }
      }
    }
  }
  for (const c of b.unlinked.categories) {
    cur.categories.set(c.id, {
      id: c.id,
      title: c.title,
      description: c.description,
      isEnabled: c.isEnabled,
      item_ids: c.item_ids,
    });
    // Items of a category no section shows are not in the tree: known by id only.
    for (const id of c.item_ids) if (!cur.items.has(id)) item(id, {});
  }
  for (const i of b.unlinked.items) {
    const { id, brand_id: _b, category_ids: _c, modifier_group_ids, member_of_group_ids: _m, ...fields } = i;
    item(id, fields, modifier_group_ids);
    for (const g of modifier_group_ids) if (!cur.groups.has(g)) group(g);
  }
  for (const g of b.unlinked.modifierGroups) {
    group(g.id, { title: g.title, min: g.min, max: g.max, modifier_ids: g.modifier_ids });
    for (const id of g.modifier_ids) if (!cur.items.has(id)) item(id, { onlyModifier: true });
  }
  return cur;
}

// ─── matching keys to ids ─────────────────────────────────────────────────────────────────────

export type Ids = Record<EntityKind, Map<string, number>>;

export interface Matching {
  ids: Ids;
  /** id → key, per kind (for ids the file manages). */
  keyOf: Record<EntityKind, Map<number, string>>;
  /** How each key was matched (for the plan's notes). */
  how: Map<string, 'state' | 'sku' | 'title'>;
}

export function matchKeys(desired: Desired, cur: Current, state: TargetState): Matching {
  const ids: Ids = {
    sections: new Map(),
    categories: new Map(),
    items: new Map(),
    modifier_groups: new Map(),
  };
  const keyOf: Matching['keyOf'] = {
    sections: new Map(),
    categories: new Map(),
    items: new Map(),
    modifier_groups: new Map(),
  };
  const how = new Map<string, 'state' | 'sku' | 'title'>();
  const claim = (kind: EntityKind, key: string, id: number, via: 'state' | 'sku' | 'title') => {
    ids[kind].set(key, id);
    keyOf[kind].set(id, key);
    how.set(`${kind}:${key}`, via);
  };
  const exists: Record<EntityKind, (id: number) => boolean> = {
    sections: (id) => cur.sections.has(id),
    categories: (id) => cur.categories.has(id),
    items: (id) => cur.items.has(id),
    modifier_groups: (id) => cur.groups.has(id),
  };
  const keys: Record<EntityKind, string[]> = {
    sections: desired.sections.map((s) => s.key),
    categories: desired.categories.map((c) => c.key),
    items: [...desired.items, ...desired.modifiers].map((i) => i.key),
    modifier_groups: desired.groups.map((g) => g.key),
  };
  // 1. The state file, where the id still exists and no other key took it.
  for (const kind of Object.keys(keys) as EntityKind[]) {
    for (const key of keys[kind]) {
      const id = state.ids[kind][key];
      if (id !== undefined && exists[kind](id) && !keyOf[kind].has(id)) claim(kind, key, id, 'state');
    }
  }
  // 2. Items and modifiers by SKU (unique per brand).
  const bySku = new Map<string, number>();
  for (const it of cur.items.values())
    if (it.fields.partner_item_id !== undefined) bySku.set(it.fields.partner_item_id, it.id);
  for (const it of [...desired.items, ...desired.modifiers]) {
    if (ids.items.has(it.key)) continue;
    const id = bySku.get(it.partner_item_id);
    if (id !== undefined && !keyOf.items.has(id)) claim('items', it.key, id, 'sku');
  }
  // 3. Sections, categories and groups by title within the brand (lowest id first).
  const byTitle = <T extends { id: number }>(
    kind: EntityKind,
    key: string,
    title: string,
    pool: Iterable<T>,
    titleOf: (x: T) => string | undefined,
    prefer?: (x: T) => boolean,
  ) => {
    if (ids[kind].has(key)) return;
    const free = [...pool].filter((x) => titleOf(x) === title && !keyOf[kind].has(x.id));
    const pick = (prefer && free.find(prefer)) ?? free[0];
    if (pick) claim(kind, key, pick.id, 'title');
  };
  for (const s of desired.sections)
    byTitle('sections', s.key, s.title, cur.sections.values(), (x) => x.title);
  for (const c of desired.categories) {
    const sid = ids.sections.get(c.section);
    const inSection = sid === undefined ? undefined : cur.sections.get(sid);
    byTitle(
      'categories',
      c.key,
      c.title,
      cur.categories.values(),
      (x) => x.title,
      (x) => inSection?.category_ids.includes(x.id) ?? false,
    );
  }
  for (const g of desired.groups)
    byTitle('modifier_groups', g.key, g.title, cur.groups.values(), (x) => x.detail?.title);
  return { ids, keyOf, how };
}
