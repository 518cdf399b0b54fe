import { createHash } from 'node:crypto';
import { chunks, listBound } from './bounds.js';
import type { CItem, Current, DItem, Desired, Ids, Matching } from './model.js';
import type { EntityKind, TargetState } from './state.js';

// The planner: pure, from (file, business tree, state) to the ordered steps a push would send.
// Order is the Partner API's push sequence: sections, categories, categories →
// section, items, items → categories, modifier groups, modifiers, modifiers → group, group →
// items, sync, publish. Only missing or changed steps are planned; corrections are PATCHes,
// and links are made to equal the file (extra links unlinked, order repaired). Nothing is ever
// deleted. Step bodies are built at run time, once the ids of the entities they name exist.
// Every step is one request: a list longer than the contract lets one request carry is split
// into several steps of one lane (links append, so the pieces keep the file's order).

export type Action = 'create' | 'update' | 'link' | 'unlink' | 'sync' | 'publish';
export type Entity = 'section' | 'category' | 'item' | 'modifier' | 'modifier_group';

export interface Change {
  field: string;
  from?: unknown;
  to: unknown;
  /** The business tree does not show the current value: restated. */
  unknown?: boolean;
}

/** Resolves a key of the file (or `#id` of an entity the file does not manage) to an id. */
export type Resolve = (kind: EntityKind, ref: Ref) => number;
/** A key of the file, or the id of something the file does not name. */
type Ref = string | number;

export interface Step {
  /** Unique within a plan and stable across runs of the same plan. */
  id: string;
  /** Steps run stage by stage; within a stage, lanes run side by side, a lane's steps in order. */
  stage: number;
  lane: string;
  action: Action;
  entity?: Entity;
  key?: string;
  op: string;
  /** One line for people: `create item nasi-goreng "Nasi goreng"`. */
  text: string;
  changes?: Change[];
  /** What the step was planned against (part of its Idempotency-Key). */
  before?: unknown;
  build(resolve: Resolve): { params?: Record<string, number>; body: Record<string, unknown> };
  /** Create steps: the key the new id belongs to. */
  creates?: { kind: EntityKind; key: string };
  /** Items and modifiers: hash of the fields this step writes (kept in the state file). */
  written?: { key: string; hash: string };
}

export interface Counts {
  sections: number;
  categories: number;
  items: number;
  modifiers: number;
  modifier_groups: number;
}
const zero = (): Counts => ({ sections: 0, categories: 0, items: 0, modifiers: 0, modifier_groups: 0 });

export interface Plan {
  brand_id: number;
  branch_ids: number[] | undefined;
  steps: Step[];
  created: Counts;
  updated: Counts;
  unchanged: Counts;
  links: number;
  unlinks: number;
  /** Why sync+publish are (or are not) planned. */
  publish: 'changes' | 'resume' | 'forced' | 'none';
}

interface PlanInput {
  desired: Desired;
  current: Current;
  matching: Matching;
  state: TargetState;
  brand_id: number;
  branch_ids?: number[] | undefined;
  /** Sync and publish even when nothing changed. */
  republish?: boolean;
  /**
   * Another push of this brand (another branch set, or another menu file) stopped after writing
   * and before publishing, and this push's branches cover its branches: finish it (sync, publish).
   */
  unfinished?: boolean;
}

// ─── helpers ──────────────────────────────────────────────────────────────────────────────────

/** JSON with sorted keys: equal values give equal text. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
const q = (s: string) => JSON.stringify(s);
const defined = <T extends Record<string, unknown>>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** The fields of a desired item a push manages (absent optional fields are left alone). */
function itemFields(d: DItem) {
  return defined({
    title: d.title,
    partner_item_id: d.partner_item_id,
    prices: d.prices,
    onlyModifier: d.onlyModifier,
    description: d.description,
    groupPrices: d.groupPrices,
    visibilities: d.visibilities,
    enabled: d.enabled,
  });
}

function itemHash(d: DItem): string {
  return sha256(canonical(itemFields(d))).slice(0, 16);
}

/** Compares desired fields with current ones; `undefined` current = not shown (unknown). */
function diffFields(want: Record<string, unknown>, have: Record<string, unknown>): Change[] {
  const out: Change[] = [];
  for (const [field, to] of Object.entries(want)) {
    if (to === undefined) continue;
    const from = have[field];
    if (from === undefined && !(field in have)) out.push({ field, to, unknown: true });
    else if (!same(from, to)) out.push({ field, from, to });
  }
  return out;
}

function describeChange(c: Change): string[] {
  if (c.unknown) return [`${c.field} (restated)`];
  const isMap = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isMap(c.from) && isMap(c.to) && c.field !== 'availableTimes') {
    const a = c.from as Record<string, unknown>;
    const b = c.to as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys
      .filter((k) => !same(a[k], b[k]))
      .map((k) =>
        a[k] === undefined
          ? `${c.field}.${k} + ${JSON.stringify(b[k])}`
          : b[k] === undefined
            ? `${c.field}.${k} − ${JSON.stringify(a[k])}`
            : `${c.field}.${k} ${JSON.stringify(a[k])} → ${JSON.stringify(b[k])}`,
      );
  }
  const show = (v: unknown) => (c.field === 'availableTimes' && v ? '{…}' : JSON.stringify(v ?? null));
  return [`${c.field} ${show(c.from)} → ${show(c.to)}`];
}

function describeChanges(changes: readonly Change[]): string {
  return changes.flatMap(describeChange).join(', ');
}

/**
 * Ordered links of one container. Links append, so the wanted entries already linked must end up
 * as a prefix of the wanted order: the longest prefix of `wanted` found in order in `current`
 * stays, everything else linked here is unlinked (extras for good, the rest to be linked again
 * in order), and the remainder of `wanted` is linked.
 */
export function reconcileOrder(current: readonly Ref[], wanted: readonly string[]) {
  let k = 0;
  const stay = new Set<Ref>();
  for (const t of current) {
    if (k < wanted.length && t === wanted[k]) {
      stay.add(t);
      k++;
    }
  }
  return { remove: current.filter((t) => !stay.has(t)), add: wanted.slice(k) };
}

const refText = (r: Ref) => (typeof r === 'number' ? `#${r}` : r);
/** Names for people, as many as fit in about 60 characters, then "and N more" (big menus stay readable). */
function refsText(rs: readonly Ref[], width = 60, name: (r: Ref) => string = refText): string {
  const all = rs.map(name);
  if (all.join(', ').length <= width) return all.join(', ');
  let shown = 1;
  while (shown < all.length - 1 && all.slice(0, shown + 1).join(', ').length <= width - 12) shown++;
  return `${all.slice(0, shown).join(', ')} and ${all.length - shown} more`;
}
/** ` (part 2 of 3)` when a list was split over several calls. */
const partText = (i: number, n: number) => (n > 1 ? ` (part ${i + 1} of ${n})` : '');

// ─── the planner ──────────────────────────────────────────────────────────────────────────────

export function plan(input: PlanInput): Plan {
  const { desired, current: cur, matching, state, brand_id } = input;
  const { ids } = matching;
  const steps: Step[] = [];
  const created = zero();
  const updated = zero();
  const unchanged = zero();
  let links = 0;
  let unlinks = 0;
  const tokens = (kind: EntityKind, list: readonly number[]): Ref[] =>
    list.map((id) => matching.keyOf[kind].get(id) ?? id);
  // What people read for an entity the file no longer names (an unlink): the key an earlier push
  // gave it (the state file), else its SKU or title, and `#id` only when nothing else is known.
  const stateKeys = Object.fromEntries(
    (Object.keys(state.ids) as EntityKind[]).map((k) => [
      k,
      new Map(Object.entries(state.ids[k]).map(([key, id]) => [id, key])),
    ]),
  ) as Record<EntityKind, Map<number, string>>;
  const nameIn =
    (kind: EntityKind) =>
    (r: Ref): string => {
      if (typeof r === 'string') return r;
      const key = stateKeys[kind]?.get(r);
      if (key) return key;
      const named =
        kind === 'items'
          ? cur.items.get(r)?.fields.partner_item_id
          : kind === 'sections'
            ? cur.sections.get(r)?.title
            : kind === 'categories'
              ? cur.categories.get(r)?.title
              : cur.groups.get(r)?.detail?.title;
      return named ? (kind === 'items' ? named : `"${named}"`) : `#${r}`;
    };
  const names = (kind: EntityKind, rs: readonly Ref[]) => refsText(rs, 60, nameIn(kind));
  const add = (s: Step) => {
    steps.push(s);
    if (s.action === 'link') links++;
    if (s.action === 'unlink') unlinks++;
  };

  // 1. sections (created one after another: the tree orders sections by id)
  for (const s of desired.sections) {
    const want = defined({
      title: s.title,
      description: s.description,
      availableTimes: s.availableTimes,
      isEnabled: s.isEnabled,
      visibilities: s.visibilities,
      blackoutDates: s.blackoutDates ? [...new Set(s.blackoutDates)].sort() : undefined,
    });
    const id = ids.sections.get(s.key);
    if (id === undefined) {
      created.sections++;
      add(
        createStep(
          1,
          'sections:create',
          'section',
          'sections',
          s.key,
          `"${s.title}"`,
          'createSection',
          () => ({
            brand_id,
            ...want,
            ...(want.availableTimes === null ? { availableTimes: undefined } : {}),
          }),
        ),
      );
      continue;
    }
    const c = cur.sections.get(id)!;
    const changes = diffFields(want, c as unknown as Record<string, unknown>);
    if (changes.length === 0) unchanged.sections++;
    else {
      updated.sections++;
      add(updateStep(1, 'section', 'sections', s.key, 'updateSection', changes));
    }
  }

  // 2. categories
  for (const c of desired.categories) {
    const want = defined({ title: c.title, description: c.description, isEnabled: c.isEnabled });
    const id = ids.categories.get(c.key);
    if (id === undefined) {
      created.categories++;
      add(
        createStep(
          2,
          `category:${c.key}`,
          'category',
          'categories',
          c.key,
          q(c.title),
          'createCategory',
          () => ({
            brand_id,
            ...want,
          }),
        ),
      );
      continue;
    }
    const changes = diffFields(want, cur.categories.get(id)! as unknown as Record<string, unknown>);
    if (changes.length === 0) unchanged.categories++;
    else {
      updated.categories++;
      add(updateStep(2, 'category', 'categories', c.key, 'updateCategory', changes));
    }
  }

  // 3. categories → sections
  for (const s of desired.sections) {
    const sid = ids.sections.get(s.key);
    const current = sid === undefined ? [] : tokens('categories', cur.sections.get(sid)!.category_ids);
    const { remove, add: toAdd } = reconcileOrder(current, s.categories);
    const lane = `section-categories:${s.key}`;
    const unlinkParts = chunks(remove, listBound('unlinkCategoryFromSection', 'category_ids'));
    unlinkParts.forEach((part, i) => {
      add({
        id: `unlink:section-categories:${s.key}:${part.map(refText).join(',')}`,
        stage: 3,
        lane,
        action: 'unlink',
        entity: 'section',
        key: s.key,
        op: 'unlinkCategoryFromSection',
        text: `unlink categories ${names('categories', part)} from section ${s.key}${partText(i, unlinkParts.length)}`,
        before: current,
        build: (r) => ({
          body: { section_id: r('sections', s.key), category_ids: part.map((x) => r('categories', x)) },
        }),
      });
    });
    const linkParts = chunks(toAdd, listBound('linkCategoryToSection', 'category_ids'));
    linkParts.forEach((part, i) => {
      add({
        id: `link:section-categories:${s.key}:${part.join(',')}`,
        stage: 3,
        lane,
        action: 'link',
        entity: 'section',
        key: s.key,
        op: 'linkCategoryToSection',
        text: `link categories ${names('categories', part)} → section ${s.key}${partText(i, linkParts.length)}`,
        before: current,
        build: (r) => ({
          body: { section_id: r('sections', s.key), category_ids: part.map((x) => r('categories', x)) },
        }),
      });
    });
  }

  // 4. items (onlyModifier:false) and 7. modifiers (onlyModifier:true)
  const itemSteps = (list: DItem[], stage: number, entity: 'item' | 'modifier') => {
    const counts = entity === 'item' ? 'items' : 'modifiers';
    for (const d of list) {
      const want = itemFields(d);
      const hash = itemHash(d);
      const id = ids.items.get(d.key);
      if (id === undefined) {
        created[counts]++;
        add({
          ...createStep(
            stage,
            `${entity}:${d.key}`,
            entity,
            'items',
            d.key,
            q(d.title),
            'createItem',
            () => ({
              brand_id,
              ...want,
            }),
          ),
          written: { key: d.key, hash },
        });
        continue;
      }
      const have = cur.items.get(id)!;
      let changes = diffFields(want, have.fields as Record<string, unknown>);
      // Fields the tree does not show are restated unless this file's values were written last time.
      if (changes.every((c) => c.unknown) && state.written?.[d.key] === hash) changes = [];
      if (changes.length === 0) unchanged[counts]++;
      else {
        updated[counts]++;
        add({
          ...updateStep(stage, entity, 'items', d.key, 'updateItem', changes),
          written: { key: d.key, hash },
        });
      }
    }
  };
  itemSteps(desired.items, 4, 'item');

  // 5. items → categories (one call per item; the order of the calls is the order in the category)
  for (const c of desired.categories) {
    const cid = ids.categories.get(c.key);
    const current = cid === undefined ? [] : tokens('items', cur.categories.get(cid)!.item_ids);
    const { remove, add: toAdd } = reconcileOrder(current, c.items);
    const lane = `category-items:${c.key}`;
    for (const it of remove) {
      add({
        id: `unlink:category-items:${c.key}:${refText(it)}`,
        stage: 5,
        lane,
        action: 'unlink',
        entity: 'item',
        key: typeof it === 'string' ? it : undefined,
        op: 'unlinkCategoriesFromItem',
        text: `unlink item ${nameIn('items')(it)} from category ${c.key}`,
        before: current,
        build: (r) => ({ body: { item_id: r('items', it), category_ids: [r('categories', c.key)] } }),
      });
    }
    for (const it of toAdd) {
      add({
        id: `link:category-items:${c.key}:${it}`,
        stage: 5,
        lane,
        action: 'link',
        entity: 'item',
        key: it,
        op: 'linkCategoriesToItem',
        text: `link item ${it} → category ${c.key}`,
        before: current,
        build: (r) => ({ body: { item_id: r('items', it), category_ids: [r('categories', c.key)] } }),
      });
    }
  }

  // 6. modifier groups
  for (const g of desired.groups) {
    const want = { title: g.title, min: g.min, max: g.max };
    const id = ids.modifier_groups.get(g.key);
    if (id === undefined) {
      created.modifier_groups++;
      add(
        createStep(
          6,
          `group:${g.key}`,
          'modifier_group',
          'modifier_groups',
          g.key,
          q(g.title),
          'createModifierGroup',
          () => ({
            brand_id,
            ...want,
          }),
        ),
      );
      continue;
    }
    const detail = cur.groups.get(id)!.detail;
    const changes = diffFields(want, (detail ?? {}) as Record<string, unknown>);
    if (changes.length === 0) unchanged.modifier_groups++;
    else {
      updated.modifier_groups++;
      add(updateStep(6, 'modifier_group', 'modifier_groups', g.key, 'updateModifierGroup', changes));
    }
  }

  // 7. modifiers
  itemSteps(desired.modifiers, 7, 'modifier');

  // 8. modifiers → groups
  for (const g of desired.groups) {
    const gid = ids.modifier_groups.get(g.key);
    const detail = gid === undefined ? undefined : cur.groups.get(gid)!.detail;
    // A group the tree does not show: link every modifier (links already made are kept).
    const current = detail ? tokens('items', detail.modifier_ids) : [];
    const { remove, add: toAdd } = reconcileOrder(current, g.modifiers);
    const lane = `group-modifiers:${g.key}`;
    const unlinkParts = chunks(remove, listBound('unlinkModifiersFromGroup', 'modifier_ids'));
    unlinkParts.forEach((part, i) => {
      add({
        id: `unlink:group-modifiers:${g.key}:${part.map(refText).join(',')}`,
        stage: 8,
        lane,
        action: 'unlink',
        entity: 'modifier_group',
        key: g.key,
        op: 'unlinkModifiersFromGroup',
        text: `remove modifiers ${names('items', part)} from modifier group ${g.key}${partText(i, unlinkParts.length)}`,
        before: current,
        build: (r) => ({
          body: { group_id: r('modifier_groups', g.key), modifier_ids: part.map((x) => r('items', x)) },
        }),
      });
    });
    const linkParts = chunks(toAdd, listBound('linkModifiersToGroup', 'modifier_ids'));
    linkParts.forEach((part, i) => {
      add({
        id: `link:group-modifiers:${g.key}:${part.join(',')}`,
        stage: 8,
        lane,
        action: 'link',
        entity: 'modifier_group',
        key: g.key,
        op: 'linkModifiersToGroup',
        text: `add modifiers ${names('items', part)} → modifier group ${g.key}${partText(i, linkParts.length)}`,
        before: current,
        build: (r) => ({
          body: { group_id: r('modifier_groups', g.key), modifier_ids: part.map((x) => r('items', x)) },
        }),
      });
    });
  }

  // 9. groups → items. Each item's groups are linked in rounds (round r links every item's r-th
  // group, one call per group), so every item gets its groups in the file's order.
  const groupsByKey = new Map(desired.groups.map((g) => [g.key, g]));
  const removeByGroup = new Map<Ref, Ref[]>();
  const rounds: Map<string, string[]>[] = [];
  for (const it of desired.items) {
    const iid = ids.items.get(it.key);
    const known: CItem | undefined = iid === undefined ? undefined : cur.items.get(iid);
    const current = known?.group_ids ? tokens('modifier_groups', known.group_ids) : [];
    const { remove, add: toAdd } = reconcileOrder(current, it.groups);
    for (const g of remove) removeByGroup.set(g, [...(removeByGroup.get(g) ?? []), it.key]);
    toAdd.forEach((g, r) => {
      rounds[r] ??= new Map();
      rounds[r]!.set(g, [...(rounds[r]!.get(g) ?? []), it.key]);
    });
  }
  for (const [g, all] of removeByGroup) {
    const parts = chunks(all, listBound('unlinkModifierGroupFromItems', 'item_ids'));
    parts.forEach((items, i) => {
      add({
        id: `unlink:group-items:${refText(g)}:${items.join(',')}`,
        stage: 9,
        lane: `group-items:${refText(g)}`,
        action: 'unlink',
        entity: 'modifier_group',
        ...(typeof g === 'string' ? { key: g } : {}),
        op: 'unlinkModifierGroupFromItems',
        text: `stop offering modifier group ${nameIn('modifier_groups')(g)} on items ${names('items', items)}${partText(i, parts.length)}`,
        build: (r) => ({
          body: { group_id: r('modifier_groups', g), item_ids: items.map((x) => r('items', x)) },
        }),
      });
    });
  }
  rounds.forEach((byGroup, round) => {
    for (const [g, all] of byGroup) {
      const group = groupsByKey.get(g)!;
      const parts = chunks(all, listBound('linkModifierGroupToItem', 'item_ids'));
      parts.forEach((items, i) => {
        add({
          id: `link:group-items:${g}:${round}:${items.join(',')}`,
          stage: 9 + (round + 1) / 1000,
          lane: `group-items:${g}`,
          action: 'link',
          entity: 'modifier_group',
          key: g,
          op: 'linkModifierGroupToItem',
          text: `offer modifier group ${g} on items ${names('items', items)}${partText(i, parts.length)}`,
          build: (r) => ({
            body: {
              group_id: r('modifier_groups', g),
              item_ids: items.map((x) => r('items', x)),
              min: group.min,
              max: group.max,
              modifier_ids: group.modifiers.map((m) => r('items', m)),
            },
          }),
        });
      });
    }
  });

  // 10–11. sync and publish: after changes, to finish an interrupted push, or when asked.
  const authoring = steps.length;
  const publish: Plan['publish'] =
    authoring > 0
      ? 'changes'
      : state.run || input.unfinished
        ? 'resume'
        : input.republish
          ? 'forced'
          : 'none';
  if (publish !== 'none') {
    const branches = input.branch_ids;
    const where = branches ? `branches ${branches.join(', ')}` : 'every branch of the brand';
    const body = { brand_id, ...(branches ? { branch_ids: branches } : {}) };
    add({
      id: 'sync',
      stage: 10,
      lane: 'sync',
      action: 'sync',
      op: 'syncMenuToStores',
      text: `sync brand ${brand_id} to ${where}`,
      build: () => ({ body }),
    });
    add({
      id: 'publish',
      stage: 11,
      lane: 'publish',
      action: 'publish',
      op: 'publishMenu',
      text: `publish brand ${brand_id} (${where})`,
      build: () => ({ body }),
    });
  }
  return {
    brand_id,
    branch_ids: input.branch_ids,
    steps,
    created,
    updated,
    unchanged,
    links,
    unlinks,
    publish,
  };

  function createStep(
    stage: number,
    lane: string,
    entity: Entity,
    kind: EntityKind,
    key: string,
    title: string,
    op: string,
    body: () => Record<string, unknown>,
  ): Step {
    // A key whose recorded id is gone (deleted since) is created anew: the vanished id becomes part
    // of the Idempotency-Key, so the server does not replay the create that made the deleted one.
    const gone = state.ids[kind][key];
    return {
      id: `create:${entity}:${key}`,
      stage,
      lane,
      action: 'create',
      entity,
      key,
      op,
      text: `create ${entity.replace('_', ' ')} ${key} ${title}`,
      ...(gone !== undefined ? { before: { replaces: gone } } : {}),
      build: () => ({ body: defined(body()) }),
      creates: { kind, key },
    };
  }

  function updateStep(
    stage: number,
    entity: Entity,
    kind: EntityKind,
    key: string,
    op: string,
    changes: Change[],
  ): Step {
    const body = Object.fromEntries(changes.map((c) => [c.field, c.to]));
    return {
      id: `update:${entity}:${key}`,
      stage,
      lane: `${entity}:${key}`,
      action: 'update',
      entity,
      key,
      op,
      text: `update ${entity.replace('_', ' ')} ${key}: ${describeChanges(changes)}`,
      changes,
      before: changes.map((c) => [c.field, c.from]),
      build: (r) => ({ params: { id: r(kind, key) }, body }),
    };
  }
}

/** Resolves refs against the ids known so far (matched, or created during this push). */
export function resolver(ids: Ids): Resolve {
  return (kind, ref) => {
    if (typeof ref === 'number') return ref;
    const id = ids[kind].get(ref);
    if (id === undefined) throw new Error(`internal: no id yet for ${kind} "${ref}"`);
    return id;
  };
}
