import type { ApiResponse, CallInput, Clock } from '../client/client.js';
import type { Ids } from './model.js';
import { canonical, type Plan, resolver, type Step, sha256 } from './plan.js';
import type { RunRecord, TargetState } from './state.js';

// Runs a plan: stage by stage in the spec's order, lanes of a stage side by side (at most
// `concurrency` requests in flight; the client's pacer keeps them under the rate limit), a
// lane's steps in order. Every step carries an Idempotency-Key derived from the push run and
// the step itself, so the same step sent again (a retry after a lost answer, or a resumed push)
// is replayed by the server instead of applied twice. After each step the state file is saved.

export interface PushClient {
  callRaw(id: string, input?: CallInput): Promise<ApiResponse>;
}

export interface StepEvent {
  step: Step;
  /** Steps finished so far (this one included when done). */
  done: number;
  total: number;
  kind: 'start' | 'done' | 'retry' | 'skipped';
  id?: number;
  replayed?: boolean;
  /** For retries: why, and the wait. */
  error?: Error;
  waitMs?: number;
}

export interface SyncOutcome {
  brand_id: number;
  branches: number[];
  synced_at: string;
}
export interface PublishOutcome {
  version: number;
  published_at: string;
  branches: number[];
  providers: number[];
}

export interface ExecResult {
  done: number;
  replayed: number;
  sync?: SyncOutcome;
  publish?: PublishOutcome;
  /** Publish skipped: no branch carries the brand. */
  noBranches?: boolean;
}

export interface ExecOptions {
  client: PushClient;
  plan: Plan;
  ids: Ids;
  target: TargetState & { run: RunRecord };
  save(): void;
  clock: Clock;
  concurrency?: number;
  shouldStop?: () => boolean;
  onStep?: (e: StepEvent) => void;
  /** Waits before the in-run retries of a step after a network error or a 5xx (default 250, 1000 ms). */
  retryDelaysMs?: number[];
  /**
   * A create of an item refused because its SKU is already taken in the brand (an answer that
   * arrived after the tree was read, or an item the tree does not show): the id of that item,
   * which the push then adopts and updates to the file's fields; undefined to fail the step.
   */
  adoptSku?: (sku: string, refusal: unknown) => Promise<number | undefined>;
}

/** Stopped before the end (a failed step, or Ctrl-C): what was done is saved in the state file. */
export class PushStopped extends Error {
  override readonly name = 'PushStopped';
  constructor(
    readonly reason: 'failed' | 'interrupted',
    readonly done: number,
    readonly total: number,
    readonly step?: Step,
    options?: { cause?: unknown },
  ) {
    super(reason === 'failed' ? `step failed: ${step?.text}` : 'interrupted', options);
  }
}

export function idempotencyKey(target: TargetState & { run: RunRecord }, step: Step, built: unknown): string {
  const sequence = step.action === 'sync' || step.action === 'publish' ? target.run.writes : null;
  const material = [target.run.id, target.brand_id, step.id, built, step.before ?? null, sequence];
  const refused = target.run.refused?.[step.id];
  if (refused) material.push({ refused });
  return `menu-push-${sha256(canonical(material)).slice(0, 48)}`;
}

function skuTaken(err: unknown): boolean {
  const e = err as { name?: string; status?: number; details?: unknown };
  if (e?.name !== 'ApiError' || e.status !== 400 || !Array.isArray(e.details)) return false;
  return e.details.some(
    (d: { path?: unknown[] }) => Array.isArray(d?.path) && d.path.at(-1) === 'partner_item_id',
  );
}

/** A 4xx answer other than 429: the server applied nothing and stored the refusal under the key. */
function refusal(err: unknown): boolean {
  const e = err as { name?: string; status?: number };
  return e?.name === 'ApiError' && (e.status ?? 0) >= 400 && (e.status ?? 0) < 500 && e.status !== 429;
}

function retryable(err: unknown): boolean {
  const e = err as { name?: string; status?: number; code?: string; details?: { reason?: string } };
  if (e?.name === 'NetworkError') return true;
  if (e?.name !== 'ApiError') return false;
  if ((e.status ?? 0) >= 500) return true;
  return e.code === 'state_idempotency_conflict' && e.details?.reason === 'in_flight';
}

export async function execute(o: ExecOptions): Promise<ExecResult> {
  const { plan, target } = o;
  const total = plan.steps.length;
  const resolve = resolver(o.ids);
  const delays = o.retryDelaysMs ?? [250, 1000];
  const result: ExecResult = { done: 0, replayed: 0 };
  let failure: { err: unknown; step: Step } | undefined;
  const stop = () => failure !== undefined || (o.shouldStop?.() ?? false);

  // At most `concurrency` requests in flight; one at a time once the credential's bucket runs low,
  // where the client's pacer (which spends tokens one request after another) is exact.
  const concurrency = Math.max(1, o.concurrency ?? 4);
  let inFlight = 0;
  let lowTokens = false;
  const waiting: (() => void)[] = [];
  const acquire = async () => {
    while (inFlight >= (lowTokens ? 1 : concurrency)) await new Promise<void>((r) => waiting.push(r));
    inFlight++;
  };
  const release = () => {
    inFlight--;
    for (const w of waiting.splice(0)) w();
  };
  const observe = (headers: Record<string, string>) => {
    const remaining = Number(headers['ratelimit-remaining']);
    if (Number.isFinite(remaining) && headers['ratelimit-remaining'] !== undefined)
      lowTokens = remaining < concurrency * 2 + 2;
  };

  /** One request of a step, with the in-run retries (same Idempotency-Key: a lost answer is replayed). */
  const send = async (
    step: Step,
    op: string,
    built: { params?: Record<string, number>; body: Record<string, unknown> },
    key: string,
  ): Promise<ApiResponse> => {
    for (let attempt = 0; ; attempt++) {
      await acquire();
      let error: unknown;
      try {
        const res = await o.client.callRaw(op, {
          ...(built.params ? { params: built.params } : {}),
          body: built.body,
          idempotencyKey: key,
        });
        observe(res.headers);
        return res;
      } catch (err) {
        error = err;
      } finally {
        release();
      }
      const wait = delays[attempt];
      if (wait === undefined || !retryable(error) || o.shouldStop?.()) throw error;
      o.onStep?.({ step, done: result.done, total, kind: 'retry', error: error as Error, waitMs: wait });
      await o.clock.sleep(wait);
    }
  };

  const runStep = async (step: Step) => {
    if (step.action === 'publish' && result.noBranches) {
      result.done++;
      o.onStep?.({ step, done: result.done, total, kind: 'skipped' });
      return;
    }
    o.onStep?.({ step, done: result.done, total, kind: 'start' });
    const built = step.build(resolve);
    const key = idempotencyKey(target, step, built);
    let res: ApiResponse;
    try {
      res = await send(step, step.op, built, key);
    } catch (err) {
      const sku = built.body.partner_item_id;
      const adopted =
        step.op === 'createItem' && typeof sku === 'string' && skuTaken(err)
          ? await o.adoptSku?.(sku, err)
          : undefined;
      if (adopted === undefined) {
        if (refusal(err)) {
          target.run.refused ??= {};
          target.run.refused[step.id] = (target.run.refused[step.id] ?? 0) + 1;
          o.save();
        }
        throw err;
      }
      // Make the adopted item what the file says (every field the create would have set).
      const { brand_id: _brand, ...fields } = built.body;
      const patch = { params: { id: adopted }, body: fields };
      res = await send(
        step,
        'updateItem',
        patch,
        idempotencyKey(target, { ...step, id: `adopt:${step.id}` }, patch),
      );
    }
    const data = res.data as Record<string, unknown>;
    let id: number | undefined;
    if (step.creates) {
      id = Number(data?.id);
      if (!Number.isInteger(id)) throw new Error(`${step.op} answered without data.id`);
      o.ids[step.creates.kind].set(step.creates.key, id);
      target.ids[step.creates.kind][step.creates.key] = id;
    }
    if (step.written) {
      target.written ??= {};
      target.written[step.written.key] = step.written.hash;
    }
    if (step.action === 'sync') {
      result.sync = data as unknown as SyncOutcome;
      if (result.sync.branches.length === 0) result.noBranches = true;
    } else if (step.action === 'publish') result.publish = data as unknown as PublishOutcome;
    else target.run.writes++;
    if (res.replayed) result.replayed++;
    o.save();
    result.done++;
    o.onStep?.({
      step,
      done: result.done,
      total,
      kind: 'done',
      ...(id !== undefined ? { id } : {}),
      replayed: res.replayed,
    });
  };

  const stages = new Map<number, Map<string, Step[]>>();
  for (const s of plan.steps) {
    let lanes = stages.get(s.stage);
    if (!lanes) {
      lanes = new Map();
      stages.set(s.stage, lanes);
    }
    const lane = lanes.get(s.lane);
    if (lane) lane.push(s);
    else lanes.set(s.lane, [s]);
  }
  const order = [...stages.keys()].sort((a, b) => a - b);
  for (const stage of order) {
    const queue = [...stages.get(stage)!.values()];
    const worker = async () => {
      for (let lane = queue.shift(); lane; lane = queue.shift()) {
        for (const step of lane) {
          if (stop()) return;
          try {
            await runStep(step);
          } catch (err) {
            failure ??= { err, step };
            return;
          }
        }
      }
    };
    const n = Math.min(concurrency, queue.length);
    await Promise.all(Array.from({ length: n }, worker));
    if (failure) throw new PushStopped('failed', result.done, total, failure.step, { cause: failure.err });
    if (o.shouldStop?.()) throw new PushStopped('interrupted', result.done, total);
  }
  return result;
}
