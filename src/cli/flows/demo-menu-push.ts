import { parse } from 'yaml';
import type { PartnerClient } from '../../client/client.js';
import { plural } from '../output/words.js';

// The small, straight-line menu push `partner demo` uses for the sample menu on a fresh server:
// the spec's order (section; category; link categories to the section; item; link it to its
// categories; modifier group; modifiers as onlyModifier items; link them to the group; link the
// group to its items restating min/max/modifier ids; sync; publish), one call each. It assumes
// an empty target (a throw-away demo server) — `partner menu push` is the declarative,
// resumable push for real menus.

type PriceMap = Record<string, string>;

interface FileModifier {
  key: string;
  title: string;
  partner_item_id: string;
  prices: PriceMap;
}
interface FileGroup {
  key: string;
  title: string;
  min: number;
  max: number;
  modifiers?: FileModifier[];
}
interface FileItem {
  key: string;
  title: string;
  partner_item_id: string;
  prices: PriceMap;
  description?: string;
  modifierGroups?: string[];
}
interface FileCategory {
  key: string;
  title: string;
  description?: string;
  items?: FileItem[];
}
interface FileSection {
  key: string;
  title: string;
  description?: string;
  availableTimes?: unknown;
  categories?: FileCategory[];
}
interface SampleMenu {
  modifierGroups?: FileGroup[];
  sections: FileSection[];
}

interface PushSummary {
  brand_id: number;
  sections: number;
  categories: number;
  items: number;
  modifier_groups: number;
  modifiers: number;
  calls: number;
  version: number;
  branches: number[];
  providers: number[];
}

export function parseSampleMenu(yamlText: string): SampleMenu {
  const menu = parse(yamlText) as SampleMenu;
  if (!menu || !Array.isArray(menu.sections)) throw new Error('the sample menu has no sections');
  return menu;
}

export async function pushSampleMenu(
  client: PartnerClient,
  menu: SampleMenu,
  brand_id: number,
  onStep?: (text: string) => void,
): Promise<PushSummary> {
  let calls = 0;
  const call = async (op: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    calls++;
    return (await client.call(op, { body })) as Record<string, unknown>;
  };
  const created = async (op: string, body: Record<string, unknown>): Promise<number> => {
    const data = await call(op, body);
    if (typeof data?.id !== 'number') throw new Error(`${op} returned no id`);
    return data.id;
  };
  const items = new Map<string, { id: number; groups: string[] }>();
  const counts = { sections: 0, categories: 0 };

  for (const s of menu.sections) {
    const sectionId = await created('createSection', {
      brand_id,
      title: s.title,
      ...(s.description ? { description: s.description } : {}),
      ...(s.availableTimes ? { availableTimes: s.availableTimes } : {}),
    });
    counts.sections++;
    const categoryIds: number[] = [];
    for (const cat of s.categories ?? []) {
      categoryIds.push(
        await created('createCategory', {
          brand_id,
          title: cat.title,
          ...(cat.description ? { description: cat.description } : {}),
        }),
      );
      counts.categories++;
    }
    if (categoryIds.length)
      await call('linkCategoryToSection', { section_id: sectionId, category_ids: categoryIds });
    onStep?.(`section ${s.title}: ${plural(categoryIds.length, 'category', 'categories')}`);
    for (const [i, cat] of (s.categories ?? []).entries()) {
      for (const it of cat.items ?? []) {
        let item = items.get(it.key);
        if (!item) {
          const id = await created('createItem', {
            brand_id,
            title: it.title,
            partner_item_id: it.partner_item_id,
            prices: it.prices,
            onlyModifier: false,
            ...(it.description ? { description: it.description } : {}),
          });
          item = { id, groups: it.modifierGroups ?? [] };
          items.set(it.key, item);
        }
        await call('linkCategoriesToItem', { item_id: item.id, category_ids: [categoryIds[i]!] });
      }
    }
  }
  let modifiers = 0;
  const groups = menu.modifierGroups ?? [];
  for (const g of groups) {
    const groupId = await created('createModifierGroup', {
      brand_id,
      title: g.title,
      min: g.min,
      max: g.max,
    });
    const modifierIds: number[] = [];
    for (const m of g.modifiers ?? []) {
      modifierIds.push(
        await created('createItem', {
          brand_id,
          title: m.title,
          partner_item_id: m.partner_item_id,
          prices: m.prices,
          onlyModifier: true,
        }),
      );
      modifiers++;
    }
    if (modifierIds.length)
      await call('linkModifiersToGroup', { group_id: groupId, modifier_ids: modifierIds });
    const itemIds = [...items.values()].filter((i) => i.groups.includes(g.key)).map((i) => i.id);
    if (itemIds.length)
      await call('linkModifierGroupToItem', {
        group_id: groupId,
        item_ids: itemIds,
        min: g.min,
        max: g.max,
        modifier_ids: modifierIds,
      });
    onStep?.(
      `modifier group ${g.title}: ${plural(modifierIds.length, 'modifier')}, on ${plural(itemIds.length, 'item')}`,
    );
  }
  await call('syncMenuToStores', { brand_id });
  const published = (await call('publishMenu', { brand_id })) as {
    version: number;
    branches: number[];
    providers: number[];
  };
  return {
    brand_id,
    ...counts,
    items: items.size,
    modifier_groups: groups.length,
    modifiers,
    calls,
    version: published.version,
    branches: published.branches,
    providers: published.providers,
  };
}
