import { z } from 'zod';
import { AvailableTimes, VisibilitiesMap } from '../contract/schemas/common.js';
import { BlackoutDates, Sku } from '../contract/schemas/menus.js';

// The menu file of `partner menu push` (docs/menu-push.md; a public format): YAML or JSON, keys are local names.
// One zod schema is the source of the validation, of the TS types the planner uses and of the
// published JSON Schema (docs/menu-file.schema.json, checked by a test). Field rules follow the
// pinned request bodies of the authoring operations (src/contract/schemas/menus.ts).

/** A local name: what makes a push resumable and re-runnable (the state file maps it to an id). */
const Key = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
    'must be 1–100 letters, digits, ".", "_" or "-", starting with a letter or digit',
  )
  .meta({ description: 'Local name, unique within its kind in the file; ties the entry to its id.' });

const Title = z.string().trim().min(1).max(200);
const Description = z.string().max(2000);

const DECIMAL = /^\d+(\.\d+)?$/;
const Price = z
  .string({ error: 'must be a decimal string such as "45000.00" (quote it: a bare number is not accepted)' })
  .regex(DECIMAL, 'must be a non-negative decimal string such as "45000.00"');
const PriceMap = z
  .record(z.string().regex(/^\d+$/, 'keys are provider ids'), Price)
  .meta({ description: '{provider_id: "decimal string"} (`partner providers list`)' });
const GroupPriceMap = z
  .record(z.string().regex(/^\d+$/, 'keys are price group ids'), Price)
  .meta({ description: '{price_group_id: "decimal string"} (`partner price-groups list`)' });

/** Fields of an item or modifier beyond the ones the file requires; absent = left as it is. */
const itemFields = {
  key: Key,
  title: Title,
  partner_item_id: Sku.meta({ description: 'Your SKU; unique per brand across items and modifiers.' }),
  prices: PriceMap,
  description: Description.optional(),
  groupPrices: GroupPriceMap.optional(),
  visibilities: VisibilitiesMap.optional(),
  enabled: z.boolean().optional(),
};

const MenuFileModifier = z.strictObject(itemFields).meta({
  title: 'Modifier',
  description: 'A modifier option, created as an item with onlyModifier:true.',
});

const MenuFileModifierGroup = z
  .strictObject({
    key: Key,
    title: Title,
    min: z.number().int().min(0).max(100),
    max: z.number().int().min(1).max(100),
    // No count bound here: the push splits long link lists to fit the API (bounds.ts). Offering
    // the group on an item restates all its modifiers in one call; that is checked per file.
    modifiers: z.array(MenuFileModifier).min(1),
  })
  .meta({ title: 'ModifierGroup' });

const MenuFileItem = z
  .strictObject({
    ...itemFields,
    modifierGroups: z
      .array(Key)
      .max(50)
      .optional()
      .meta({ description: 'Keys of top-level modifierGroups offered on this item, in order.' }),
  })
  .meta({ title: 'Item' });

const MenuFileCategory = z
  .strictObject({
    key: Key,
    title: Title,
    description: Description.optional(),
    isEnabled: z.boolean().optional(),
    items: z.array(MenuFileItem).max(2000).optional(),
  })
  .meta({ title: 'Category' });

const MenuFileSection = z
  .strictObject({
    key: Key,
    title: Title,
    description: Description.optional(),
    availableTimes: AvailableTimes.nullable()
      .optional()
      .meta({ description: 'Days "0" (Sunday) to "6"; null: follow the branch opening hours.' }),
    isEnabled: z.boolean().optional(),
    visibilities: VisibilitiesMap.optional(),
    blackoutDates: BlackoutDates.optional(),
    categories: z.array(MenuFileCategory).optional(),
  })
  .meta({ title: 'Section' });

const MenuFileShape = z.strictObject({
  $schema: z.string().optional().meta({ description: 'Ignored; lets editors find this schema.' }),
  modifierGroups: z.array(MenuFileModifierGroup).max(500).optional(),
  sections: z.array(MenuFileSection).max(200),
});

export type MenuFile = z.infer<typeof MenuFileShape>;
export type MenuFileSectionT = z.infer<typeof MenuFileSection>;
export type MenuFileCategoryT = z.infer<typeof MenuFileCategory>;
export type MenuFileItemT = z.infer<typeof MenuFileItem>;
export type MenuFileModifierT = z.infer<typeof MenuFileModifier>;
export type MenuFileModifierGroupT = z.infer<typeof MenuFileModifierGroup>;

type Path = (string | number)[];

const list = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.map((x) => (x && typeof x === 'object' ? (x as Record<string, unknown>) : {})) : [];
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Rules across entries: unique keys and SKUs, group references that exist, min ≤ max. Runs even
 * when fields are malformed (reading only what has the right type), so that one run reports
 * every problem of the file.
 */
function crossCheck(f: unknown, ctx: z.RefinementCtx): void {
  const issue = (path: Path, message: string) => ctx.addIssue({ code: 'custom', path, message, input: f });
  const seen = {
    section: new Map<string, Path>(),
    category: new Map<string, Path>(),
    item: new Map<string, Path>(),
    group: new Map<string, Path>(),
    sku: new Map<string, Path>(),
  };
  const unique = (kind: keyof typeof seen, value: unknown, path: Path, what: string) => {
    if (typeof value !== 'string') return;
    const first = seen[kind].get(value);
    if (first) issue(path, `${what} "${value}" is already used at ${formatPath(first)}`);
    else seen[kind].set(value, path);
  };
  const root = (f && typeof f === 'object' ? f : {}) as Record<string, unknown>;
  list(root.modifierGroups).forEach((g, gi) => {
    const gp: Path = ['modifierGroups', gi];
    unique('group', g.key, [...gp, 'key'], 'modifier group key');
    const mods = list(g.modifiers);
    if (typeof g.min === 'number' && typeof g.max === 'number' && g.min > g.max)
      issue([...gp, 'min'], `min (${g.min}) must not exceed max (${g.max})`);
    if (typeof g.min === 'number' && mods.length > 0 && g.min > mods.length)
      issue(
        [...gp, 'min'],
        `min (${g.min}) is more than ${mods.length === 1 ? 'the only modifier' : `the ${mods.length} modifiers`} of the group`,
      );
    mods.forEach((m, mi) => {
      const mp: Path = [...gp, 'modifiers', mi];
      unique('item', m.key, [...mp, 'key'], 'item/modifier key');
      unique('sku', m.partner_item_id, [...mp, 'partner_item_id'], 'partner_item_id');
    });
  });
  list(root.sections).forEach((s, si) => {
    const sp: Path = ['sections', si];
    unique('section', s.key, [...sp, 'key'], 'section key');
    list(s.categories).forEach((c, ci) => {
      const cp: Path = [...sp, 'categories', ci];
      unique('category', c.key, [...cp, 'key'], 'category key');
      list(c.items).forEach((it, ii) => {
        const ip: Path = [...cp, 'items', ii];
        unique('item', it.key, [...ip, 'key'], 'item/modifier key');
        unique('sku', it.partner_item_id, [...ip, 'partner_item_id'], 'partner_item_id');
        const offered = new Set<string>();
        (Array.isArray(it.modifierGroups) ? it.modifierGroups : []).forEach((ref: unknown, gi: number) => {
          const gk = text(ref);
          if (gk === undefined) return;
          if (!seen.group.has(gk)) {
            const known = [...seen.group.keys()];
            issue(
              [...ip, 'modifierGroups', gi],
              `no modifier group "${gk}" in modifierGroups${known.length ? ` (known: ${known.join(', ')})` : ''}`,
            );
          }
          if (offered.has(gk)) issue([...ip, 'modifierGroups', gi], `modifier group "${gk}" is listed twice`);
          offered.add(gk);
        });
      });
    });
  });
}

export const MenuFileSchema = MenuFileShape.superRefine(crossCheck, { when: () => true }).meta({
  title: 'partner menu file',
  description:
    'Input of `partner menu push` / `partner menu diff` (docs/menu-push.md). Keys are local names that make a push resumable and re-runnable.',
});

/** `sections[0].categories[1].items[2].prices."1"` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const s = String(seg);
      const part = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s) ? s : JSON.stringify(s);
      out += out === '' ? part : `.${part}`;
    }
  }
  return out || '(file)';
}

/** The published JSON Schema of the file (docs/menu-file.schema.json). */
export function menuFileJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(MenuFileSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
}
