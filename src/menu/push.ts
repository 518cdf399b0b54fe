import { randomUUID } from 'node:crypto';
import { ApiError } from '../client/errors.js';
import type { ApiResponse, CallInput, Clock } from '../client/client.js';
import { offerProblems } from './bounds.js';
import { type LoadedMenu, MenuFileError, type ParsedMenu, validateMenu } from './load.js';
import { type BusinessTree, type Current, currentOf, desiredOf, type Ids, matchKeys } from './model.js';
import { type Plan, plan as makePlan } from './plan.js';
import { type ExecResult, execute, type StepEvent } from './run.js';
import { formatPath, type MenuFile } from './schema.js';
import { ENTITY_KINDS, StateFile, type TargetState, targetId } from './state.js';

// A menu push from code, the same one `partner menu push` makes (docs/library.md): read the
// brand's business-level tree, match the file's keys to ids (state, then SKU, then title), plan
// the calls in the spec's order, and run them with Idempotency-Keys derived from the push and the
// step, saving the state after every step so an interrupted push resumes where it stopped.

/** What the push needs of a client: `PartnerClient` from `partner/client` is one. */
export interface MenuPushClient {
  readonly baseUrl: string;
  callRaw(id: string, input?: CallInput): Promise<ApiResponse>;
}

export interface PlanMenuPushOptions {
  client: MenuPushClient;
  /** A menu from `loadMenuFile` or `parseMenuText`, or a menu object (validated here). */
  menu: LoadedMenu | ParsedMenu | MenuFile;
  brandId: number;
  /** Branches to sync and publish (default: every branch of the brand). */
  branchIds?: number[];
  /**
   * The state: a file path (created when missing; the CLI keeps one per target in its state dir),
   * a StateFile, or nothing for a state in memory only (the push then cannot resume elsewhere).
   */
  state?: string | StateFile;
  /** Names the menu in the state (default: the loaded file's path, else `menu`). */
  menuId?: string;
  /** Forget what the state recorded for this target (ids are matched again by SKU and title). */
  resetState?: boolean;
  /** Sync and publish even when nothing changed. */
  republish?: boolean;
}

export interface RunMenuPushOptions {
  /** Requests in flight at most (default 4; the client's pacer keeps them under the rate limit). */
  concurrency?: number;
  onStep?: (e: StepEvent) => void;
  /** Polled between steps: true stops after the requests in flight (PushStopped 'interrupted'). */
  shouldStop?: () => boolean;
  clock?: Clock;
}

export interface MenuPush {
  plan: Plan;
  /** The brand as it was read. */
  current: Current;
  business_id: number;
  state: StateFile;
  target: TargetState;
  ids: Ids;
  /**
   * Runs the plan. Resolves with what was done; throws PushStopped when a step fails or
   * `shouldStop` says so, with the progress saved in the state.
   */
  run(o?: RunMenuPushOptions): Promise<ExecResult>;
}

const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};

/** Copies the ids the planner matched into the state (a cache); true when something changed. */
export function recordMatches(target: TargetState, ids: Ids): boolean {
  let changed = false;
  for (const kind of ENTITY_KINDS) {
    for (const [key, id] of ids[kind]) {
      if (target.ids[kind][key] !== id) {
        target.ids[kind][key] = id;
        changed = true;
      }
    }
  }
  return changed;
}

/**
 * The item of the brand that holds `sku`: found in a fresh read of the tree, or (for an item the
 * tree does not show, e.g. a modifier of a group no item offers) named by the refusal's details,
 * provided the tree knows that id.
 */
export async function itemHoldingSku(
  client: MenuPushClient,
  brandId: number,
  sku: string,
  refusal: unknown,
): Promise<number | undefined> {
  const tree = (await client.callRaw('getMenu', { query: {} })).data as BusinessTree;
  const brand = tree.brands?.find((b) => b.brand_id === brandId);
  if (!brand) return undefined;
  const items = currentOf(brand).items;
  for (const it of items.values()) if (it.fields.partner_item_id === sku) return it.id;
  const details = (refusal as { details?: unknown }).details;
  for (const d of Array.isArray(details) ? details : []) {
    const m = /\bitem (\d+)\b/.exec(String((d as { message?: unknown })?.message ?? ''));
    const id = m ? Number(m[1]) : undefined;
    if (id !== undefined && items.has(id) && items.get(id)!.fields.partner_item_id === undefined) return id;
  }
  return undefined;
}

function parsedOf(menu: PlanMenuPushOptions['menu']): ParsedMenu & { path?: string; display?: string } {
  if (typeof (menu as ParsedMenu).lineOf === 'function' && (menu as ParsedMenu).menu)
    return menu as ParsedMenu;
  return validateMenu(menu, 'menu');
}

/** Reads the brand, matches and plans; nothing is written (a dry run is this and no `run`). */
export async function planMenuPush(o: PlanMenuPushOptions): Promise<MenuPush> {
  const parsed = parsedOf(o.menu);
  const display = parsed.display ?? o.menuId ?? 'menu';
  const desired = desiredOf(parsed.menu);
  const offers = offerProblems(desired);
  if (offers.length)
    throw new MenuFileError(
      display,
      offers.map((p) => ({ line: parsed.lineOf(p.path), path: formatPath(p.path), message: p.message })),
    );
  const read = await o.client.callRaw('getMenu', { query: {} });
  const tree = read.data as BusinessTree;
  const brandTree = tree.brands?.find((b) => b.brand_id === o.brandId);
  if (!brandTree)
    throw new ApiError({
      code: 'resource_not_found',
      status: 404,
      message: `brand ${o.brandId} not found in business ${tree.business_id}`,
    });
  const state =
    o.state instanceof StateFile
      ? o.state
      : o.state === undefined
        ? StateFile.memory()
        : StateFile.open(o.state);
  const id = targetId(
    o.client.baseUrl,
    tree.business_id,
    o.brandId,
    o.branchIds,
    o.menuId ?? parsed.path ?? 'menu',
  );
  const target = o.resetState ? state.replace(id) : state.target(id);
  const current = currentOf(brandTree);
  const matching = matchKeys(desired, current, target);
  const plan = makePlan({
    desired,
    current,
    matching,
    state: target,
    brand_id: o.brandId,
    branch_ids: o.branchIds,
    republish: o.republish === true,
  });
  const ids = matching.ids;
  return {
    plan,
    current,
    business_id: tree.business_id,
    state,
    target,
    ids,
    async run(r = {}) {
      const clock = r.clock ?? realClock;
      if (plan.steps.length === 0) {
        if (recordMatches(target, ids)) state.save();
        return { done: 0, replayed: 0 };
      }
      recordMatches(target, ids);
      // From here on the push writes: the run record seeds its Idempotency-Keys and survives a crash.
      target.run ??= { id: randomUUID(), started_at: new Date(clock.now()).toISOString(), writes: 0 };
      const run = target.run;
      state.save();
      const started = clock.now();
      const result = await execute({
        client: o.client,
        plan,
        ids,
        target: target as TargetState & { run: typeof run },
        save: () => state.save(),
        clock,
        ...(r.concurrency !== undefined ? { concurrency: r.concurrency } : {}),
        ...(r.shouldStop ? { shouldStop: r.shouldStop } : {}),
        ...(r.onStep ? { onStep: r.onStep } : {}),
        adoptSku: (sku, refusal) => itemHoldingSku(o.client, o.brandId, sku, refusal),
      });
      delete target.run;
      target.last_push = {
        at: new Date(started).toISOString(),
        file: target.file,
        version: result.publish?.version ?? null,
      };
      state.save();
      return result;
    },
  };
}

/** Plans and runs a push in one call. */
export async function pushMenu(
  o: PlanMenuPushOptions & RunMenuPushOptions,
): Promise<ExecResult & { plan: Plan; state: StateFile }> {
  const push = await planMenuPush(o);
  const result = await push.run(o);
  return { ...result, plan: push.plan, state: push.state };
}
