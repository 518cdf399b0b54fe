import type { ClientOptions, PartnerClient } from '../../client/client.js';
import { newAgent } from '../../client/undici-transport.js';
import { routesOf } from '../context.js';
import { MANIFEST } from '../manifest/data.js';
import { loadAssets } from './assets.js';
import { Hub } from './hub.js';
import { InspectHttpError, type InspectApi, type InspectServer, startInspectServer } from './http-server.js';
import { ListenSource } from './listen-source.js';
import { LocalSource } from './local-source.js';
import { MenuHistory } from './menu-history.js';
import { MenuSource } from './menu-source.js';
import { OwnRequests, RequestsSource } from './requests-source.js';
import { newInspectToken } from './token.js';
import { type StoredWebhook, WebhookStore } from './webhook-store.js';
import type { InspectInfo, WebhookDetail } from '../../contract/inspect-wire.js';

// `partner inspect`, `listen --inspect`, `local start --inspect`: the sources each has, a store
// of rows, the event stream and the page's server, put together.

const MAX_ROWS = 10_000;

/**
 * What `listen` feeds: created before its receiver starts, handed to startInspect after.
 * @public listen-run.ts reaches it through a lazy import() that knip does not follow.
 */
export function createRecorder(maxRows = MAX_ROWS): { store: WebhookStore; listen: ListenSource } {
  const store = new WebhookStore(maxRows);
  return { store, listen: new ListenSource(store) };
}

/** A source that could not be set up is shown on the page with the reason. */
type Maybe<T> = T | { error: string };
const failed = <T>(m: Maybe<T> | undefined): m is { error: string } =>
  typeof m === 'object' && m !== null && 'error' in m && !('call' in m);

export interface InspectOptions {
  mode: InspectInfo['mode'];
  version: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  recorder?: { store: WebhookStore; listen: ListenSource };
  listen?: { url: string; forwardTo: string | null };
  /** The local server's operator API: deliveries, replay, the request log. */
  operator?: Maybe<{ baseUrl: string; token: string }>;
  /** The partner credential the menu preview reads with. */
  partner?: Maybe<{ baseUrl: string; key: string; secret: string }>;
  /** Credentials over plain http to a non-loopback host (--insecure). */
  insecure?: boolean;
  /** Where the snapshots seen are kept (menu-history.ts). */
  historyDir: string;
  /** Loop timings in ms (tests shorten them). */
  pollMs?: { fast: number; slow: number };
}

export interface Inspect {
  url: string;
  port: number;
  store: WebhookStore;
  close(): Promise<void>;
}

/** Runs `step` again and again while on: soon after a change, more slowly when nothing moved. */
class Loop {
  private gen = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly step: () => Promise<boolean>,
    private readonly ms: { fast: number; slow: number },
  ) {}

  set(on: boolean): void {
    clearTimeout(this.timer);
    const gen = ++this.gen;
    if (!on) return;
    const tick = async () => {
      const changed = await this.step().catch(() => false);
      if (gen !== this.gen) return;
      this.timer = setTimeout(tick, changed ? this.ms.fast : this.ms.slow);
      this.timer.unref();
    };
    void tick();
  }
}

export async function startInspect(o: InspectOptions): Promise<Inspect> {
  const assets = loadAssets();
  const recorder = o.recorder ?? createRecorder();
  const { store } = recorder;
  const hub = new Hub();
  store.onChange((row) => hub.send('webhook', row));

  const clients: PartnerClient[] = [];
  // What this process asked itself is told apart in the Requests view (hidden unless asked for).
  const own = new OwnRequests();
  const { PartnerClient: Client } = await import('../../client/client.js');
  const client = (c: Partial<ClientOptions> & { baseUrl: string }) => {
    const made = new Client({
      ...c,
      insecure: o.insecure === true,
      routes: routesOf(MANIFEST),
      userAgent: `partner-cli/${o.version} inspect`,
      onRequest: (e) => own.add(e.request_id),
    });
    clients.push(made);
    return made;
  };
  const op = failed(o.operator) ? undefined : o.operator;
  const operator = op && client({ baseUrl: op.baseUrl, operatorToken: op.token });
  const local = operator
    ? new LocalSource(store, operator, o.listen?.url, (eventId) => recorder.listen.touch(eventId))
    : undefined;
  let requests: RequestsSource | undefined;
  if (op && operator) {
    // Long polls on a pool of their own, dropped on close rather than waited out.
    const agent = newAgent();
    const poller = client({ baseUrl: op.baseUrl, operatorToken: op.token, dispatcher: agent });
    requests = new RequestsSource(operator, poller, () => agent.destroy().catch(() => undefined), own);
    requests.onRow((row) => hub.send('request', row));
  }
  const cred = failed(o.partner) ? undefined : o.partner;
  const partner = cred && {
    client: client({ baseUrl: cred.baseUrl, credential: { key: cred.key, secret: cred.secret } }),
    key: cred.key,
  };
  const menu = partner ? new MenuSource(partner.client, new MenuHistory(o.historyDir)) : undefined;

  const ms = o.pollMs ?? { fast: 250, slow: 1000 };
  // A source that fails, or recovers, is said on the open pages at once (the header shows it).
  let lastInfo = '';
  const publishInfo = () => {
    const text = JSON.stringify(api.info());
    if (text === lastInfo) return;
    lastInfo = text;
    hub.send('info', JSON.parse(text));
  };
  requests?.onStatus(publishInfo);
  const loops = [
    ...(local
      ? [
          new Loop(async () => {
            const changed = await local.poll();
            publishInfo();
            return changed;
          }, ms),
        ]
      : []),
  ];
  // Sources are read only while a page is open: a forgotten `partner inspect` costs nothing.
  let reading = false;
  hub.onCount((open) => {
    if (open > 0 === reading) return; // a second tab changes nothing
    reading = open > 0;
    for (const l of loops) l.set(reading);
    requests?.follow(reading);
  });

  const detail = (w: StoredWebhook): WebhookDetail => {
    const { raw: _raw, ...rest } = w;
    return {
      ...rest,
      // A receipt of listen: the server's attempts at delivering it to listen (with --local).
      attempts: rest.source === 'listen' && local ? local.attemptsFor(rest.event_id) : rest.attempts,
      can_replay: local !== undefined && w.event_id !== null && w.status !== 'rejected',
      can_resend: w.source === 'listen',
      resend_default: o.listen?.forwardTo ?? null,
    };
  };
  const row = (key: string) => {
    const w = store.get(key);
    if (!w)
      throw new InspectHttpError(
        404,
        'not_found',
        `no webhook row ${key} (rows beyond the newest ${store.max} are dropped)`,
      );
    return w;
  };
  const need = <T>(v: T | undefined, what: string, why: string | undefined): T => {
    if (v === undefined)
      throw new InspectHttpError(409, 'not_available', `${what}: ${why ?? 'not available in this run'}`);
    return v;
  };
  const why = (m: Maybe<unknown> | undefined, none: string) => (failed(m) ? m.error : none);

  const api: InspectApi = {
    info: () => ({
      version: o.version,
      mode: o.mode,
      max_rows: store.max,
      listen: o.listen ? { url: o.listen.url, forward_to: o.listen.forwardTo } : null,
      local: operator
        ? { base_url: operator.baseUrl, error: local?.lastError ?? null }
        : o.operator
          ? { base_url: null, error: why(o.operator, '') }
          : null,
      requests_error: requests
        ? (requests.lastError ?? null)
        : why(o.operator, 'no local server in this run'),
      menu: partner
        ? { base_url: partner.client.baseUrl, key: partner.key, error: null }
        : o.partner
          ? { base_url: null, key: null, error: why(o.partner, '') }
          : null,
    }),
    streamStart: async () => {
      await Promise.all([local?.poll(), requests?.list().catch(() => undefined)]);
      return () => [
        ['webhooks', store.list()],
        // Always sent, empty without a request log: the page knows its first data has come.
        ['requests', requests ? requests.rows() : []],
      ];
    },
    webhooks: async () => {
      await local?.poll();
      return store.list();
    },
    webhook: async (key) => detail(row(key)),
    replay: async (key) => {
      const w = row(key);
      const src = need(local, 'replay', why(o.operator, 'replay needs the local server (its operator API)'));
      if (!w.event_id) throw new InspectHttpError(400, 'bad_request', 'this delivery carried no event id');
      const n = await src.replay(w.event_id);
      return { ok: true, message: `replayed ${w.event_id} to ${n} receiver${n === 1 ? '' : 's'}` };
    },
    resend: async (key, url) => {
      const w = row(key);
      if (w.source !== 'listen')
        throw new InspectHttpError(
          400,
          'bad_request',
          'resend is for events listen received; replay a delivery',
        );
      const r = await recorder.listen.resend(w, url);
      return r.error
        ? { ok: false, message: `POST ${url}: ${r.error} (${r.duration_ms} ms)` }
        : {
            ok: r.status !== null && r.status >= 200 && r.status < 300,
            message: `POST ${url}: ${r.status} (${r.duration_ms} ms)`,
          };
    },
    requests: async () => need(requests, 'requests', why(o.operator, 'needs the local server')).list(),
    request: async (id) => need(requests, 'requests', why(o.operator, 'needs the local server')).get(id),
    menuTargets: async () => need(menu, 'menu', why(o.partner, 'needs a profile')).listTargets(),
    menu: async (brand, branch) => need(menu, 'menu', why(o.partner, 'needs a profile')).menu(brand, branch),
  };

  const server: InspectServer = await startInspectServer({
    port: o.port ?? 0,
    token: newInspectToken(),
    assets,
    hub,
    api,
  });
  return {
    url: server.url,
    port: server.port,
    store,
    close: async () => {
      for (const l of loops) l.set(false);
      await requests?.close();
      await server.close();
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    },
  };
}
