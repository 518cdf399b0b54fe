import { formatDuration, parseDuration } from '../../contract/duration.js';
import type { PartnerClient, RequestLog } from '../../client/client.js';
import { statusName } from '../../contract/order-statuses.js';
import { type Ctx, routesOf } from '../context.js';
import { EXIT, Exit, UsageError } from '../errors.js';
import { canPrompt, wrapColumns } from '../io.js';
import { wrapForTerminal } from '../output/text-width.js';
import { resolvePartnerTarget } from '../target.js';
import {
  type CursorData,
  cursorPath,
  emptyCursor,
  nextFrom,
  OrderTracker,
  readCursor,
  type WatchChange,
  type WatchFilters,
  type WatchOrder,
  writeCursor,
} from '../flows/orders-watch-cursor.js';
import { sleepOrWake, stopper, Wake } from '../flows/orders-watch-time.js';
import {
  actionForKey,
  actionsFor,
  KeyReader,
  LiveView,
  type WatchAction,
} from '../flows/orders-watch-tty.js';
import type { OrdersWatchOptions } from './orders-watch.js';

// `partner orders watch` (docs/flows.md): polls GET /orders with a moving created_at window,
// re-reads open orders the window no longer covers, shows every new order and every change
// once (also across restarts, through a cursor file), backs off on 429/5xx/network errors, and
// on a terminal offers a live table with actions on the selected order.

/** How far each window reaches back before the previous one ended, and ahead of the client clock. */
const OVERLAP_MS = 120_000;
/** GET /orders accepts at most 90 days; a longer catch-up walks in steps of this. */
const MAX_RANGE_MS = 89 * 86_400_000;
const MAX_PAGES = 50;
/** Open orders older than the window, re-read individually per poll (least recently read first). */
const MAX_REREADS = 10;
const MAX_BACKOFF_MS = 60_000;

/** Thrown out of the client's backoff wait when the watch must stop: abandons the request. */
class Stopping extends Error {
  override readonly name = 'Stopping';
}

/** `--since`: an ISO time, a duration meaning "that long ago" (`30m`, `2h`, `1d`), or `now`. */
function parseSince(text: string, now: number): number {
  const s = text.trim();
  if (s === 'now') return now;
  const d = parseDuration(s);
  if (d !== undefined && !/^\d+$/.test(s)) return now - d;
  if (/^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s))) {
    const t = Date.parse(/T/.test(s) ? s : `${s}T00:00:00Z`);
    if (t > now + OVERLAP_MS) throw new UsageError(`--since ${s} is in the future`);
    return t;
  }
  throw new UsageError(`--since expects an ISO time (2024-05-01T10:00:00Z), a duration such as 30m, or now`);
}

const isoOf = (ms: number) => new Date(ms).toISOString();

function isTransient(err: unknown): boolean {
  const e = err as { name?: string; status?: number };
  if (e?.name === 'NetworkError') return true;
  return e?.name === 'ApiError' && (e.status === 429 || (e.status ?? 0) >= 500);
}

function describe(err: unknown): string {
  const e = err as { name?: string; status?: number; code?: string; message?: string };
  if (e?.name === 'NetworkError') return `network error (${e.message})`;
  if (e?.status === 429) return 'rate limited (429 rate_limit_exceeded)';
  return `server error ${e?.status ?? ''} ${e?.code ?? ''}`.trim();
}

export async function runOrdersWatch(ctx: Ctx, opts: OrdersWatchOptions): Promise<number> {
  const { io } = ctx;
  const branch = opts.branch ?? null;
  const statusIds = opts.status ?? null;
  const { interval, maxPolls } = opts;
  const durationMs = opts.duration;
  const overlap = opts.overlap ?? OVERLAP_MS;
  const startNow = io.clock.now();
  const since = opts.since !== undefined ? parseSince(opts.since, startNow) : undefined;

  const target = resolvePartnerTarget({
    configDir: io.configDir,
    env: io.env,
    profile: ctx.globals.profile,
    baseUrl: ctx.globals.baseUrl,
  });
  ctx.credentialSource = target.source;
  const filters: WatchFilters = { branch_id: branch, status: statusIds };
  const file = cursorPath(io.configDir, {
    profile: target.profile?.name,
    baseUrl: target.baseUrl,
    key: target.key,
    filters,
  });
  let live: LiveView | undefined;
  const say = (msg: string) => {
    // With the live view on a terminal that is also stderr, a line written there would tear the
    // frame: the view's status line says it instead.
    if (!live || !io.stderrIsTTY) io.stderr.write(`partner orders watch: ${msg}\n`);
    if (live) {
      live.status = msg;
      live.render(io.clock.now(), matches);
    }
  };

  // --since starts afresh; otherwise the cursor continues where the last run stopped.
  // Without either, a first run starts an overlap before now (an order that just landed shows).
  let state: CursorData;
  if (since !== undefined) {
    state = emptyCursor(target.baseUrl, target.key, filters, since);
  } else {
    const { cursor, problem } = readCursor(file, { base_url: target.baseUrl, key: target.key });
    if (problem) io.stderr.write(`partner orders watch: ${problem}\n`);
    state = cursor ?? emptyCursor(target.baseUrl, target.key, filters, startNow - overlap);
  }
  const initialFrom = nextFrom(state, overlap) ?? startNow - overlap;
  const tracker = new OrderTracker(state, statusIds ? new Set(statusIds) : null);
  const matches = (s: number) => tracker.matches(s);

  const stop = stopper(io);
  const started = performance.now();
  const deadline = durationMs !== undefined ? started + durationMs : Number.POSITIVE_INFINITY;
  const left = () => deadline - performance.now();

  // The watch's own client: no pacing (a silent wait would look like a hang) and one retry of a
  // 429/502 whose wait goes through `backoffWait`, which says so and stops on request.
  let lastRetry: RequestLog | undefined;
  const backoffWait = async (ms: number) => {
    const why =
      lastRetry?.status === 429
        ? 'rate limited (429 rate_limit_exceeded)'
        : `server answered ${lastRetry?.status ?? '?'}`;
    say(`${why}: backing off ${formatDuration(ms)} before retrying (honouring Retry-After)`);
    if (stop.stopped || left() <= 0) throw new Stopping('stopping');
    const full = await sleepOrWake(Math.min(ms, left()), [stop.promise]);
    if (!full) throw new Stopping('stopping');
    if (left() <= 0) throw new Stopping('stopping');
  };
  const { PartnerClient } = await import('../../client/client.js');
  const client: PartnerClient = new PartnerClient({
    baseUrl: target.baseUrl,
    credential: { key: target.key, secret: target.secret },
    insecure: ctx.insecure,
    routes: routesOf(ctx.manifest),
    clock: { now: () => io.clock.now(), sleep: backoffWait },
    retry: { maxRetries: 1, maxRetryAfterMs: 15 * 60_000, baseDelayMs: 1000, maxDelayMs: 30_000 },
    pace: false,
    timeoutMs: 15_000,
    onRequest: (e) => {
      if (e.retryInMs !== undefined) lastRetry = e;
      if (ctx.verbose) {
        const status = e.status === 0 ? 'no answer' : String(e.status);
        const line = `* ${e.method} ${e.url} → ${status} in ${Math.round(e.ms)} ms${e.request_id ? ` (request_id ${e.request_id})` : ''}`;
        // Written over the live screen it would tear the frame (and vanish at the next redraw):
        // on the same terminal it goes into the frame's recent lines; a redirected stderr gets it.
        // In the frame the outcome comes first and the path without the origin, so that what
        // matters survives the cut to the terminal's width.
        if (live && io.stderrIsTTY) {
          const u = new URL(e.url);
          live.note(`* ${status} in ${Math.round(e.ms)} ms  ${e.method} ${u.pathname}${u.search}`);
        } else io.stderr.write(`${line}\n`);
      }
    },
    userAgent: `partner-cli/${__PARTNER_VERSION__} orders-watch`,
  });

  // A branch the credential does not see would be polled forever with nothing to show (the list
  // filters, it does not refuse): look it up once first. A credential without the branch scopes,
  // or a server not answering yet, is left to the polls.
  if (branch !== null) {
    try {
      await client.call('getBranch', { params: { id: branch } });
    } catch (err) {
      const e = err as { name?: string; status?: number; code?: unknown };
      if (e.name === 'ApiError' && e.status === 404) {
        io.stderr.write(
          `error: --branch ${branch}: no such branch for this credential (resource_not_found); \`partner branches list\` shows its branches\n`,
        );
        throw new Exit(EXIT.notFound);
      }
    }
  }

  // Status names: the dictionary is fetched once (spec §1 order operations); the built-in copy
  // of the same stable table answers if that fails.
  const names = new Map<number, string>();
  const nameOf = (id: number) => names.get(id) ?? statusName(id);

  const json = ctx.json;
  const liveOn = io.stdoutIsTTY && !json;
  const interactive = liveOn && canPrompt(io);
  const title = `orders watch · ${target.profile ? `profile ${target.profile.name}` : 'credential from env'} · branch ${branch ?? 'all'} · status ${statusIds ? statusIds.map(nameOf).join(',') : 'all'} · every ${formatDuration(interval)}`;
  live = liveOn
    ? new LiveView({
        io,
        color: ctx.color,
        title,
        interactive,
        statusName: nameOf,
        onResize: () => live?.render(io.clock.now(), matches),
      })
    : undefined;

  const counts = { polls: 0, new: 0, changed: 0 };
  const lastRead = new Map<number, number>();
  const actions: WatchAction[] = [];
  const wake = new Wake();
  void stop.promise.then(() => wake.fire());
  const keys = interactive
    ? new KeyReader(io, (key) => {
        const a = actionForKey(key, live?.selected);
        if (a === 'up' || a === 'down') {
          live?.move(a === 'up' ? -1 : 1, matches);
          live?.render(io.clock.now(), matches);
          return;
        }
        if (!a) return;
        if (a.kind === 'quit') stop.stop('quit');
        else actions.push(a);
        wake.fire();
      })
    : undefined;

  const emit = (ch: WatchChange) => {
    const o = ch.order;
    if (ch.kind === 'new') counts.new++;
    else counts.changed++;
    const prev = ch.previous_status;
    if (json) {
      io.stdout.write(
        `${JSON.stringify({
          kind: ch.kind,
          order_id: o.id,
          status: o.status,
          status_name: nameOf(o.status),
          ...(prev !== undefined ? { previous_status: prev, previous_status_name: nameOf(prev) } : {}),
          updated_at: o.updated_at,
          order: o,
        })}\n`,
      );
      return;
    }
    const total = [o.total, o.currency].filter((x) => x !== undefined && x !== null).join(' ');
    const customer = (o.customer as { name?: string } | undefined)?.name ?? '';
    if (live) {
      const time = new Date(Date.parse(o.updated_at)).toLocaleTimeString('en-GB', { hour12: false });
      live.note(
        ch.kind === 'new'
          ? `${time} new #${o.id} ${nameOf(o.status)} · brand ${o.brand_id} · branch ${o.branch_id} · ${total}`
          : `${time} #${o.id} ${prev !== undefined ? `${nameOf(prev)} → ${nameOf(o.status)}` : `${nameOf(o.status)} (updated)`}`,
      );
      return;
    }
    // A pipe: tab-separated, no decoration (docs/flows.md lists the columns).
    io.stdout.write(
      `${[
        ch.kind,
        o.id,
        nameOf(o.status),
        prev !== undefined ? nameOf(prev) : '',
        o.updated_at,
        o.brand_id,
        o.branch_id,
        total,
        customer,
      ].join('\t')}\n`,
    );
  };

  async function pollOnce(): Promise<{ changes: WatchChange[]; catchingUp: boolean }> {
    const now = io.clock.now();
    const from = nextFrom(state, overlap) ?? initialFrom;
    let to = now + overlap;
    let catchingUp = false;
    if (to - from > MAX_RANGE_MS) {
      to = from + MAX_RANGE_MS;
      catchingUp = true;
    }
    const listed: WatchOrder[] = [];
    let pages = 0;
    let total = 0;
    for await (const page of client.pages<WatchOrder>('listOrders', {
      query: { from: isoOf(from), to: isoOf(to), ...(branch !== null ? { branch_id: branch } : {}) },
      size: 100,
      maxPages: MAX_PAGES,
    })) {
      listed.push(...page.results);
      pages++;
      total = page.total;
    }
    if (pages >= MAX_PAGES && listed.length < total)
      say(`more than ${MAX_PAGES * 100} orders in one window; only the first ${listed.length} were read`);
    // Open orders the window no longer covers: re-read, least recently read first.
    const inList = new Set(listed.map((o) => o.id));
    const stale = tracker
      .openOrders()
      .filter((o) => !inList.has(o.id))
      .sort((a, b) => (lastRead.get(a.id) ?? 0) - (lastRead.get(b.id) ?? 0))
      .slice(0, MAX_REREADS);
    const reread: WatchOrder[] = [];
    for (const { id } of stale) {
      try {
        reread.push((await client.call('getOrder', { params: { id } })) as WatchOrder);
        lastRead.set(id, now);
      } catch (err) {
        const e = err as { name?: string; status?: number };
        if (e.name !== 'ApiError' || e.status !== 404) throw err;
        tracker.drop(id);
        say(`order #${id} is gone (404); no longer watched`);
      }
    }
    for (const o of [...listed, ...reread]) {
      lastRead.set(o.id, now);
      live?.upsert(o);
    }
    const changes = tracker.apply([...listed, ...reread]);
    const windowEnd = catchingUp ? to : now;
    state.window_end = isoOf(windowEnd);
    tracker.prune(windowEnd - overlap - 1000);
    return { changes, catchingUp };
  }

  async function runAction(a: WatchAction): Promise<void> {
    if (a.kind === 'quit') return;
    let id = a.kind === 'menu' ? a.id : a.id;
    let what: 'accept' | 'ready' | 'delivered' | 'cancel' | 'comment' | 'back' | undefined =
      a.kind === 'status'
        ? a.status === 'ACCEPTED'
          ? 'accept'
          : a.status === 'READY'
            ? 'ready'
            : 'delivered'
        : a.kind === 'menu'
          ? undefined
          : a.kind;
    keys?.pause();
    live?.beforePrompt(io.clock.now(), matches);
    try {
      if (a.kind === 'menu') {
        const list = live?.visible(matches) ?? [];
        if (list.length === 0) {
          live?.note('no orders to act on yet');
          return;
        }
        const ordered = [...list].sort((x, y) => (x.id === id ? -1 : y.id === id ? 1 : 0));
        const picked = await io.prompter.select({
          message: 'Order:',
          choices: ordered.map((o) => ({
            name: `#${o.id} ${nameOf(o.status)} · brand ${o.brand_id} · branch ${o.branch_id} · ${[o.total, o.currency].filter(Boolean).join(' ')}`,
            value: String(o.id),
          })),
        });
        id = Number(picked);
        const status = live?.rows.get(id)?.status ?? 1;
        what = await io.prompter.select({
          message: `Action on order #${id}:`,
          choices: [
            ...actionsFor(status).map((v) => ({ name: v, value: v })),
            { name: 'back', value: 'back' as const },
          ],
        });
      }
      if (id === undefined || what === undefined || what === 'back') return;
      if (what === 'comment') {
        const text = await io.prompter.input({ message: `Comment for order #${id} ("" clears it):` });
        await client.call('setOrderComment', {
          params: { id },
          body: { comment: text === '' ? null : text },
        });
        live?.note(`you: #${id} comment ${text === '' ? 'cleared' : 'set'}`);
        return;
      }
      let reason: string | undefined;
      if (what === 'cancel') {
        reason = (
          await io.prompter.input({
            message: `Cancellation reason for order #${id} (empty: do not cancel):`,
          })
        ).trim();
        if (!reason) {
          live?.note(`#${id}: not cancelled`);
          return;
        }
      }
      const status = { accept: 'ACCEPTED', ready: 'READY', delivered: 'DELIVERED', cancel: 'CANCELLED' }[
        what
      ];
      await client.call('patchOrderStatus', {
        body: { id, status, platform: 'enterprise', ...(reason ? { cancellation_reason: reason } : {}) },
      });
      live?.note(`you: #${id} → ${status}`);
    } catch (err) {
      if (err instanceof Stopping) return;
      const e = err as { name?: string; code?: string; message?: string };
      if (e.name === 'ExitPromptError') {
        live?.note(`#${id ?? '?'}: left the prompt, nothing changed`);
        return;
      }
      // A refused action (409 invalid transition, 404…) is shown, not fatal.
      const msg = `#${id ?? '?'}: ${e.name === 'ApiError' ? `${e.code}: ` : ''}${e.message ?? String(err)}`;
      if (live) live.note(msg);
      else io.stderr.write(`partner orders watch: ${msg}\n`);
    } finally {
      if (!stop.stopped) keys?.resume();
    }
  }

  let failures = 0;
  try {
    try {
      const rows = (await client.call('listOrderStatuses')) as { id: number; status: string }[];
      for (const r of rows) names.set(r.id, r.status);
    } catch (err) {
      const e = err as { name?: string; status?: number };
      if (e.name === 'ApiError' && (e.status === 401 || e.status === 403)) throw err;
      // Transient: the built-in dictionary answers; the first poll will back off if it persists.
    }
    if (live) {
      live.start();
      live.render(io.clock.now(), matches);
    } else {
      const from = state.window_end
        ? `continuing from ${state.window_end} (cursor ${file})`
        : `orders created since ${isoOf(initialFrom)}`;
      io.stderr.write(
        wrapForTerminal(
          `partner orders watch: ${from}; branch ${branch ?? 'all'}, status ${statusIds ? statusIds.map(nameOf).join(',') : 'all'}, every ${formatDuration(interval)}; Ctrl-C stops\n`,
          wrapColumns(io, 'stderr'),
        ),
      );
    }
    keys?.resume();

    while (!stop.stopped) {
      if (maxPolls !== undefined && counts.polls >= maxPolls) break;
      if (left() <= 0) break;
      counts.polls++;
      let result: { changes: WatchChange[]; catchingUp: boolean };
      try {
        result = await pollOnce();
      } catch (err) {
        if (err instanceof Stopping) break;
        if (!isTransient(err)) throw err;
        failures++;
        const base = Math.min(MAX_BACKOFF_MS, Math.max(interval, 500) * 2 ** (failures - 1));
        const wait = Math.round(base * (0.8 + Math.random() * 0.4));
        if (maxPolls !== undefined && counts.polls >= maxPolls) {
          say(`${describe(err)}; giving up: --max-polls ${maxPolls} reached`);
          break;
        }
        say(`${describe(err)}; backing off ${formatDuration(wait)} (failure ${failures} in a row)`);
        await sleepOrWake(Math.min(wait, left()), [stop.promise]);
        continue;
      }
      if (failures > 0) say(`polling again after ${failures} failed poll${failures === 1 ? '' : 's'}`);
      failures = 0;
      for (const ch of result.changes) emit(ch);
      writeCursor(file, state, io.clock.now());
      if (live) {
        live.lastPoll = `poll ${counts.polls} at ${new Date(io.clock.now()).toLocaleTimeString('en-GB', { hour12: false })}${result.catchingUp ? ' (catching up)' : ''}`;
        live.status = '';
        live.render(io.clock.now(), matches);
      }
      if (maxPolls !== undefined && counts.polls >= maxPolls) break;
      if (!result.catchingUp && actions.length === 0)
        await sleepOrWake(Math.min(interval, Math.max(0, left())), [wake.next()]);
      // Actions picked by key run between polls; the next poll shows what they changed.
      while (actions.length > 0 && !stop.stopped) {
        await runAction(actions.shift()!);
        live?.render(io.clock.now(), matches);
      }
    }
  } finally {
    keys?.pause();
    live?.stop();
    stop.dispose();
    await client.close().catch(() => undefined);
  }
  io.stderr.write(
    wrapForTerminal(
      `partner orders watch: ${counts.polls} poll${counts.polls === 1 ? '' : 's'}, ${counts.new} new, ${counts.changed} changed; cursor ${file}\n`,
      wrapColumns(io, 'stderr'),
    ),
  );
  return 0;
}
