import { randomUUID } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { ApiError } from '../../client/errors.js';
import type { Ctx } from '../context.js';
import { EXIT, Exit, UsageError } from '../errors.js';
import { canPrompt, type Io, wrapColumns } from '../io.js';
import { wrapForTerminal } from '../output/text-width.js';
import { listBound, offerProblems } from '../../menu/bounds.js';
import { type LoadedMenu, loadMenuFile, MenuFileError, type FileProblem } from '../../menu/load.js';
import {
  type BusinessTree,
  type Current,
  currentOf,
  type Desired,
  desiredOf,
  matchKeys,
} from '../../menu/model.js';
import { type Plan, plan as makePlan } from '../../menu/plan.js';
import { barProgress, lineProgress, type Progress } from '../flows/menu-push/progress.js';
import { planLines, planSummary, planView, summaryLines, summaryView } from '../flows/menu-push/render.js';
import { itemHoldingSku, recordMatches } from '../../menu/push.js';
import { execute, PushStopped } from '../../menu/run.js';
import { formatPath } from '../../menu/schema.js';
import { branchProblems, type PushProblem, scopeProblems } from '../../menu/preflight.js';
import {
  markFinished,
  menuStateDir,
  oldStateFor,
  openStateFile,
  type StateFile,
  statePath,
  type TargetState,
  targetId,
  type Unfinished,
  unfinishedCovered,
} from '../flows/menu-push/state.js';
import type { MenuDiffOptions, MenuPushOptions } from './menu.js';

// `partner menu push FILE` and `partner menu diff FILE` (docs/menu-push.md).

/** The flags a plan reads, push's and diff's alike. */
type PlanFlags = Pick<MenuDiffOptions, 'brand' | 'branch' | 'state' | 'resetState'> & { republish?: boolean };

function writeProblems(io: Io, err: MenuFileError, outcome = 'nothing was sent'): never {
  for (const l of err.lines()) io.stderr.write(`${l}\n`);
  throw new UsageError(
    `${err.file}: ${err.problems.length} problem${err.problems.length === 1 ? '' : 's'} in the menu file; ${outcome}`,
  );
}

/** Provider and price-group ids used as map keys must exist: checked before anything is written. */
async function checkMapKeys(
  client: Awaited<ReturnType<Ctx['partner']>>['client'],
  loaded: LoadedMenu,
  desired: Desired,
): Promise<FileProblem[]> {
  const problems: FileProblem[] = [];
  const uses: {
    path: (string | number)[];
    field: 'prices' | 'visibilities' | 'groupPrices';
    keys: string[];
  }[] = [];
  for (const it of [...desired.items, ...desired.modifiers]) {
    uses.push({ path: it.path, field: 'prices', keys: Object.keys(it.prices) });
    if (it.visibilities)
      uses.push({ path: it.path, field: 'visibilities', keys: Object.keys(it.visibilities) });
    if (it.groupPrices) uses.push({ path: it.path, field: 'groupPrices', keys: Object.keys(it.groupPrices) });
  }
  for (const s of desired.sections)
    if (s.visibilities) uses.push({ path: s.path, field: 'visibilities', keys: Object.keys(s.visibilities) });
  const known = async (op: string): Promise<Set<string> | undefined> => {
    try {
      const list = (await client.call(op)) as { id: number }[];
      return new Set(list.map((x) => String(x.id)));
    } catch (err) {
      // A credential without brands:read cannot list them: the server still checks on write.
      if ((err as ApiError).name === 'ApiError' && (err as ApiError).isAuth) return undefined;
      throw err;
    }
  };
  const providers = await known('listProviders');
  const groups = uses.some((u) => u.field === 'groupPrices') ? await known('listPriceGroups') : undefined;
  for (const u of uses) {
    const set = u.field === 'groupPrices' ? groups : providers;
    if (!set) continue;
    for (const k of u.keys) {
      if (set.has(k)) continue;
      const path = [...u.path, u.field, k];
      const what = u.field === 'groupPrices' ? 'price group' : 'provider';
      problems.push({
        line: loaded.lineOf(path),
        path: formatPath(path),
        message: `no ${what} ${k} in your business (known: ${[...set].join(', ') || 'none'})`,
      });
    }
  }
  return problems.sort((a, b) => a.line - b.line);
}

/** Problems found before the first write: each said, the first one thrown (its exit code). */
function refuse(io: Io, problems: PushProblem[], businessId: number, outcome = ''): void {
  const errors = problems.map((p): Error => {
    if (p.kind === 'scope')
      return new ApiError({
        code: 'auth_forbidden',
        status: 403,
        request_id: p.request_id,
        message: `the credential lacks ${p.scope}, which ${p.ops.join(', ')} need${p.ops.length === 1 ? 's' : ''}${outcome} (\`partner auth status\` shows the scopes it holds; ask the operator for one with ${p.scope})`,
      });
    if (p.kind === 'branch_missing')
      return new ApiError({
        code: 'resource_not_found',
        status: 404,
        request_id: p.request_id,
        message: `--branch ${p.branch_id}: no branch ${p.branch_id} in business ${businessId}${outcome} (\`partner branches list\` shows yours)`,
      });
    return new UsageError(
      `--branch ${p.branch_id}: branch ${p.branch_id} does not carry brand ${p.brand_id}, so it cannot be synced or published${outcome} (leave --branch out for every branch of the brand)`,
    );
  });
  const [first, ...more] = errors;
  if (!first) return;
  for (const e of more) io.stderr.write(`error: ${e.message}\n`);
  throw first;
}

interface Prepared {
  loaded: LoadedMenu;
  client: Awaited<ReturnType<Ctx['partner']>>['client'];
  state: StateFile;
  target: TargetState;
  current: Current;
  plan: Plan;
  ids: ReturnType<typeof matchKeys>['ids'];
  /** See pacedSeconds(). */
  pacedSeconds: number | undefined;
  /** The credential's limit per minute and pacedSeconds(), when the read said them. */
  rate: { limit: number; pacedSeconds: number } | undefined;
  /** Unfinished pushes of this brand that this one finishes when it publishes. */
  unfinished: Unfinished[];
  business_id: number;
}

async function prepare(ctx: Ctx, file: string | undefined, flags: PlanFlags): Promise<Prepared> {
  if (!file) throw new UsageError('missing FILE (the menu file, YAML or JSON)');
  const explicitBrand = flags.brand;
  const branch_ids = flags.branch?.length ? flags.branch : undefined;
  const maxBranches = Math.min(
    listBound('syncMenuToStores', 'branch_ids'),
    listBound('publishMenu', 'branch_ids'),
  );
  if (branch_ids && branch_ids.length > maxBranches)
    throw new UsageError(
      `--branch: ${branch_ids.length} branches, but one sync or publish takes at most ${maxBranches}; leave --branch out to sync and publish every branch of the brand`,
    );
  // 1. The whole file, before any request.
  let loaded: LoadedMenu;
  try {
    loaded = await loadMenuFile(file, ctx.io.cwd);
  } catch (err) {
    if (err instanceof MenuFileError) writeProblems(ctx.io, err);
    throw err;
  }
  const desired = desiredOf(loaded.menu);
  const offers = offerProblems(desired).map((p) => ({
    line: loaded.lineOf(p.path),
    path: formatPath(p.path),
    message: p.message,
  }));
  if (offers.length) writeProblems(ctx.io, new MenuFileError(loaded.display, offers));
  const { client, target } = await ctx.partner();
  const brand_id = explicitBrand ?? target.profile?.default_brand_id;
  if (brand_id === undefined)
    throw new UsageError('missing --brand ID (the brand to push to; `partner brands list` shows them)');

  // 2. What exists: the business-level tree (what the next sync would replay), with ids.
  const read = await ctx.spin('Reading the business menu…', () => client.callRaw('getMenu', { query: {} }));
  const tree = read.data as BusinessTree;
  const brandTree = tree.brands?.find((b) => b.brand_id === brand_id);
  if (!brandTree) {
    throw new ApiError({
      code: 'resource_not_found',
      status: 404,
      message: `brand ${brand_id} not found in business ${tree.business_id} (\`partner brands list\` shows yours)`,
    });
  }
  const problems = await checkMapKeys(client, loaded, desired);
  if (problems.length)
    writeProblems(ctx.io, new MenuFileError(loaded.display, problems), 'nothing was written');
  // Every branch of --branch, before anything is written (a wrong one used to stop the push at
  // the sync, after every authoring call).
  refuse(ctx.io, await branchProblems(client, brand_id, branch_ids), tree.business_id);

  // 3. The state of this target (server, business, brand, branch set, menu file).
  const id = targetId(client.baseUrl, tree.business_id, brand_id, branch_ids, loaded.path);
  const explicit =
    flags.state !== undefined
      ? isAbsolute(flags.state)
        ? flags.state
        : resolve(ctx.io.cwd, flags.state)
      : undefined;
  const state = openStateFile(explicit ?? statePath(menuStateDir(ctx.io.env, ctx.io.configDir), id));
  let t = state.target(id);
  if (flags.resetState) t = state.replace(id);
  else if (!explicit && !state.existed) {
    // Older versions kept one state file beside the menu files of a folder: take this file's part.
    const old = oldStateFor(id);
    if (old?.state) {
      t = state.replace(id, old.state);
      ctx.io.stderr.write(
        `note: took this file's push state from ${old.path} (now kept in ${state.path}); delete the old file once every menu file beside it has been pushed\n`,
      );
    } else if (old) {
      ctx.io.stderr.write(
        `note: ignoring ${old.path} (older versions shared it between the menu files of a folder); state is now kept in ${state.path}\n`,
      );
    }
  }
  const current = currentOf(brandTree);
  const matching = matchKeys(desired, current, t);
  // Pushes of this brand that stopped before publishing, which this push's sync and publish finish.
  const unfinished = flags.resetState
    ? []
    : unfinishedCovered(menuStateDir(ctx.io.env, ctx.io.configDir), id, explicit);
  const plan = makePlan({
    desired,
    current,
    matching,
    state: t,
    brand_id,
    branch_ids,
    republish: flags.republish === true,
    unfinished: unfinished.length > 0,
  });
  const paced = pacedSeconds(plan.steps.length, read.headers);
  return {
    loaded,
    client,
    state,
    target: t,
    current,
    plan,
    ids: matching.ids,
    pacedSeconds: paced,
    unfinished,
    business_id: tree.business_id,
    rate:
      paced === undefined
        ? undefined
        : { limit: Number(read.headers['ratelimit-limit']), pacedSeconds: paced },
  };
}

/**
 * The least time `calls` requests take under the credential's rate limit, from the RateLimit
 * headers of the read (a bucket of `limit` refilled at limit/60 per second); undefined without them.
 */
function pacedSeconds(calls: number, headers: Record<string, string>): number | undefined {
  const limit = Number(headers['ratelimit-limit']);
  const remaining = Number(headers['ratelimit-remaining']);
  if (!(limit > 0) || !Number.isFinite(remaining)) return undefined;
  // Two more reads (providers, price groups) happen before the writes; close enough.
  return (Math.max(0, calls - remaining) * 60) / limit;
}

/**
 * `2,041 write calls, about 3 min 24 s at 600/min`: how many calls the push makes and, from the
 * RateLimit headers of the read, how long the credential's limit makes them take (the person
 * deciding to run a big push needs that number).
 */
function callsText(calls: number, rate: Prepared['rate']): string {
  const n = `${calls.toLocaleString('en-US')} write call${calls === 1 ? '' : 's'}`;
  if (!rate) return n;
  const per = `${rate.limit.toLocaleString('en-US')}/min`;
  const s = Math.round(rate.pacedSeconds);
  if (s < 1) return `${n}, within the rate limit (${per})`;
  const m = Math.floor(s / 60);
  const time = m === 0 ? `${s} s` : `${m} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${n}, about ${time} at ${per}`;
}

function stopSignal(io: Io, onStop: () => void): { stopped: () => boolean; dispose: () => void } {
  let stopped = false;
  const on = () => {
    if (stopped) return;
    stopped = true;
    onStop();
  };
  if (io.untilStopped) {
    io.untilStopped().then(on, () => undefined);
    return { stopped: () => stopped, dispose: () => undefined };
  }
  process.once('SIGINT', on);
  process.once('SIGTERM', on);
  return {
    stopped: () => stopped,
    dispose: () => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    },
  };
}

/** Lines for a person: wrapped at word boundaries on a terminal, whole when piped. */
function print(io: Io, which: 'stdout' | 'stderr', lines: string[]): void {
  if (lines.length) io[which].write(wrapForTerminal(`${lines.join('\n')}\n`, wrapColumns(io, which)));
}

export async function runMenuDiff(ctx: Ctx, args: string[], flags: MenuDiffOptions): Promise<number> {
  const p = await prepare(ctx, args[0], flags);
  const { plan, loaded } = p;
  const authoring = plan.steps.filter((s) => s.action !== 'sync' && s.action !== 'publish');
  if (ctx.json)
    ctx.io.stdout.write(`${JSON.stringify(planView(plan, loaded.display, p.pacedSeconds), null, 2)}\n`);
  else if (plan.steps.length === 0) {
    ctx.io.stdout.write(`No changes: brand ${plan.brand_id} matches ${loaded.display}.\n`);
  } else {
    print(ctx.io, 'stdout', [
      `${loaded.display} → brand ${plan.brand_id} "${p.current.title}": ${callsText(p.plan.steps.length, p.rate)}`,
      ...planLines(plan, { color: ctx.color }),
      `${planSummary(plan)}; ${callsText(plan.steps.length, p.rate)}`,
    ]);
  }
  return flags.exitCode && authoring.length + (plan.publish === 'resume' ? 1 : 0) > 0 ? EXIT.other : EXIT.ok;
}

export async function runMenuPush(ctx: Ctx, args: string[], flags: MenuPushOptions): Promise<number> {
  const { concurrency } = flags;
  const p = await prepare(ctx, args[0], flags);
  const { plan, loaded, state, target } = p;
  const io = ctx.io;

  if (flags.dryRun) {
    if (ctx.json)
      io.stdout.write(
        `${JSON.stringify({ ...planView(plan, loaded.display, p.pacedSeconds), dry_run: true }, null, 2)}\n`,
      );
    else if (plan.steps.length === 0)
      io.stdout.write(`Dry run: nothing to do, brand ${plan.brand_id} matches ${loaded.display}.\n`);
    else
      print(io, 'stdout', [
        `Dry run: ${loaded.display} → brand ${plan.brand_id} "${p.current.title}" would make ${callsText(p.plan.steps.length, p.rate)}; nothing is written:`,
        ...planLines(plan, { color: ctx.color }),
        `${planSummary(plan)}; ${callsText(plan.steps.length, p.rate)}`,
      ]);
    return EXIT.ok;
  }

  if (plan.steps.length === 0) {
    if (recordMatches(p.target, p.ids)) state.save();
    if (ctx.json) {
      io.stdout.write(
        `${JSON.stringify({ ...summaryView({ file: loaded.display, plan, result: { done: 0, replayed: 0 }, ms: 0, stateFile: state.path }) }, null, 2)}\n`,
      );
    } else
      io.stdout.write(`Up to date: brand ${plan.brand_id} matches ${loaded.display}; nothing to push.\n`);
    return EXIT.ok;
  }

  // The credential's scopes for every kind of call the plan makes, before the first write (a
  // push without menus:update used to write its creates, then stop at the first update).
  refuse(
    io,
    await ctx.spin('Checking the credential…', () => scopeProblems(p.client, plan)),
    p.business_id,
    '; nothing was written',
  );

  if (!flags.yes) {
    if (canPrompt(io)) {
      // With --json, stdout carries only the summary object.
      print(io, ctx.json ? 'stderr' : 'stdout', [
        `${loaded.display} → brand ${plan.brand_id} "${p.current.title}": ${callsText(p.plan.steps.length, p.rate)}`,
        ...planLines(plan, { color: ctx.color, limit: 40 }),
        `${planSummary(plan)}; ${callsText(plan.steps.length, p.rate)}`,
      ]);
      const ok = await io.prompter.confirm({
        message: `Push to brand ${plan.brand_id}${plan.publish !== 'none' ? ' and publish' : ''}?`,
        default: false,
      });
      if (!ok) {
        io.stderr.write('Cancelled.\n');
        return EXIT.other;
      }
    } else if (plan.unlinks > 0) {
      throw new UsageError(
        `the push removes ${plan.unlinks} link${plan.unlinks === 1 ? '' : 's'} the file no longer has (see \`partner menu diff\`); pass --yes to confirm (no terminal to ask on)`,
      );
    }
  }

  // From here on the push writes: the run record seeds its Idempotency-Keys and survives a crash.
  recordMatches(p.target, p.ids);
  target.run ??= { id: randomUUID(), started_at: new Date(io.clock.now()).toISOString(), writes: 0 };
  const run = target.run;
  state.save();

  const progress: Progress | undefined = io.stderrIsTTY
    ? barProgress(io.stderr, io.clock, ctx.colorErr, (p.rate?.pacedSeconds ?? 0) * 1000)
    : ctx.json
      ? undefined
      : lineProgress(io.stderr);
  const signal = stopSignal(io, () => {
    progress?.end();
    io.stderr.write('Stopping after the requests in flight… (again to quit at once)\n');
  });
  const started = io.clock.now();
  const wall = performance.now();
  try {
    const result = await execute({
      client: p.client,
      plan,
      ids: p.ids,
      target: target as TargetState & { run: typeof run },
      save: () => state.save(),
      clock: io.clock,
      concurrency,
      shouldStop: signal.stopped,
      adoptSku: (sku, refusal) => itemHoldingSku(p.client, plan.brand_id, sku, refusal),
      ...(progress ? { onStep: (e) => progress.event(e) } : {}),
    });
    progress?.end();
    delete target.run;
    target.last_push = {
      at: new Date(started).toISOString(),
      file: loaded.path,
      version: result.publish?.version ?? null,
    };
    // Published (or nothing to publish to): the unfinished pushes it covered are finished too.
    if (result.sync) markFinished(p.unfinished, state);
    else state.save();
    const summary = {
      file: loaded.display,
      plan,
      result,
      ms: performance.now() - wall,
      stateFile: state.path,
    };
    if (ctx.json) io.stdout.write(`${JSON.stringify(summaryView(summary), null, 2)}\n`);
    else print(io, 'stdout', summaryLines(summary));
    return EXIT.ok;
  } catch (err) {
    progress?.end();
    if (!(err instanceof PushStopped)) throw err;
    const where = `${err.done} of ${err.total} steps`;
    const saved = `What was done is saved in ${state.path}`;
    const resume = `${saved}; run the same command again to resume.`;
    if (err.reason === 'interrupted') {
      io.stderr.write(`Interrupted after ${where}. ${resume}\n`);
      throw new Exit(130);
    }
    const cause = err.cause as
      | { name?: string; code?: unknown; wireCode?: string; status?: number }
      | undefined;
    const code =
      cause?.name === 'NetworkError' ? 'network error' : (cause?.wireCode ?? String(cause?.code ?? 'failed'));
    // Running it again fixes what was transient (no answer, a 5xx, the rate limit); a refusal
    // (400, 403, 404, 409…) comes back the same until its cause, below, is fixed.
    const transient = cause?.name !== 'ApiError' || (cause.status ?? 0) >= 500 || cause.status === 429;
    io.stderr.write(
      `Push stopped after ${where}, at: ${err.step?.text}: ${code}. ${
        transient
          ? resume
          : `${saved}. Running it again meets the same refusal until its cause (below) is fixed; then the same command goes on from here.`
      }\n`,
    );
    throw err.cause;
  } finally {
    signal.dispose();
  }
}
