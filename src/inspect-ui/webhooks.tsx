import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ActionResult, InspectInfo, WebhookDetail, WebhookRow } from '../contract/inspect-wire.js';
import { getJson, postJson } from './api.js';
import { clock, dateTime, money, shortType, statusName } from './format.js';
import { HeaderTable, JsonView } from './json-view.js';
import { type Rows, useRows } from './rows.js';
import { VirtualList } from './virtual-list.js';

// Webhooks: what `listen` received and what the local server delivered, newest first, filtered
// by type, order and status; a click shows headers, the body with each order's cart as a table,
// the attempts, and replay (local server) or resend (listen).

const STATUSES = ['received', 'rejected', 'pending', 'delivered', 'failed', 'duplicate', 'stale'] as const;

interface Filters {
  type: string;
  order: string;
  status: string;
  source: string;
}

function matches(r: WebhookRow, f: Filters): boolean {
  if (f.type && r.event_type !== f.type) return false;
  if (f.source && r.source !== f.source) return false;
  if (f.order) {
    const want = f.order.replace(/^#/, '').trim();
    if (want && !r.order_ids.some((id) => String(id) === want)) return false;
  }
  if (f.status === 'duplicate') return r.duplicate;
  if (f.status === 'stale') return r.stale;
  if (f.status && r.status !== f.status) return false;
  return true;
}

function Verdict({ r }: { r: WebhookRow }) {
  const text = { verified: 'verified', invalid: 'invalid signature', signed: 'signed', unsigned: 'unsigned' }[
    r.verdict
  ];
  return <span class={`badge v-${r.verdict}`}>{text}</span>;
}

function Row({ r }: { r: WebhookRow }) {
  return (
    <>
      <span class="c-time">{clock(r.at)}</span>
      <span class={`c-src src-${r.source}`}>{r.source === 'listen' ? 'listen' : 'server'}</span>
      <span class="c-type">{shortType(r.event_type)}</span>
      <span class="c-orders">{r.order_ids.map((id) => `#${id}`).join(' ')}</span>
      <span class={`c-status st-${r.status}`}>{r.status}</span>
      <span class="c-verdict">
        <Verdict r={r} />
        {r.duplicate && <span class="badge mark">duplicate</span>}
        {r.stale && <span class="badge mark">stale</span>}
      </span>
      <span class="c-id mono">{r.event_id ?? '—'}</span>
    </>
  );
}

interface CartLine {
  title?: string;
  partner_item_id?: string;
  quantity?: number;
  unit_price?: string;
  total?: string;
  modifiers?: { title?: string; quantity?: number; unit_price?: string }[];
}
interface Order {
  id?: number;
  status?: number;
  total?: string;
  currency?: string;
  cart?: CartLine[];
  customer?: { name?: string };
  updated_at?: string;
}

function Orders({ body }: { body: string }) {
  let orders: Order[] = [];
  try {
    const p = JSON.parse(body) as { orders?: Order[] };
    orders = Array.isArray(p.orders) ? p.orders : [];
  } catch {
    return null;
  }
  return (
    <>
      {orders.map((o) => (
        <section class="order" key={String(o.id)}>
          <h4>
            Order #{String(o.id)} · <span class="st">{statusName(o.status)}</span> ·{' '}
            {money(o.total, o.currency)}
            {o.customer?.name ? ` · ${o.customer.name}` : ''}
          </h4>
          {Array.isArray(o.cart) && o.cart.length > 0 ? (
            <table class="grid cart">
              <thead>
                <tr>
                  <th>Item</th>
                  <th>SKU</th>
                  <th class="num">Qty</th>
                  <th class="num">Unit price</th>
                  <th>Modifiers</th>
                  <th class="num">Total</th>
                </tr>
              </thead>
              <tbody>
                {o.cart.map((l, i) => (
                  <tr key={`${l.partner_item_id}-${i}`}>
                    <td>{l.title}</td>
                    <td class="mono">{l.partner_item_id}</td>
                    <td class="num">{l.quantity}</td>
                    <td class="num">{money(l.unit_price, o.currency)}</td>
                    <td>
                      {(l.modifiers ?? [])
                        .map((m) => `${m.quantity ?? 1} × ${m.title} (+${money(m.unit_price, o.currency)})`)
                        .join(', ')}
                    </td>
                    <td class="num">{money(l.total, o.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="muted">empty cart</p>
          )}
        </section>
      ))}
    </>
  );
}

function Detail({ rowKey, rev }: { rowKey: string; rev: number }) {
  const [d, setD] = useState<WebhookDetail | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [result, setResult] = useState<ActionResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [url, setUrl] = useState<string | null>(null);
  const [exact, setExact] = useState(false);

  useEffect(() => {
    setResult(null);
    setUrl(null);
  }, [rowKey]);
  // Fetched again whenever the row changes (a retry, a replay, a resend).
  useEffect(() => {
    let live = true;
    getJson<WebhookDetail>(`/api/webhooks/${encodeURIComponent(rowKey)}`)
      .then((x) => {
        if (!live) return;
        setD(x);
        setErr(null);
      })
      .catch((e: Error) => live && setErr(e.message));
    return () => {
      live = false;
    };
  }, [rowKey, rev]);

  if (err) return <div class="detail error">{err}</div>;
  if (!d || d.key !== rowKey) return <div class="detail muted">loading…</div>;
  const act = async (path: string, body: unknown) => {
    setBusy(true);
    try {
      setResult(await postJson<ActionResult>(path, body));
    } catch (e) {
      setResult({ ok: false, message: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };
  const target = url ?? d.resend_default ?? '';
  return (
    <div class="detail">
      <h2>
        {d.event_type} <Verdict r={d} />
        {d.duplicate && <span class="badge mark">duplicate</span>}
        {d.stale && <span class="badge mark">stale</span>}
      </h2>
      <table class="kv meta">
        <tbody>
          <tr>
            <th>event id</th>
            <td class="mono">{d.event_id ?? '—'}</td>
          </tr>
          <tr>
            <th>{d.source === 'listen' ? 'received by' : 'delivered by'}</th>
            <td>{d.source === 'listen' ? 'partner listen' : `the local server to ${d.url}`}</td>
          </tr>
          <tr>
            <th>{d.source === 'listen' ? 'received' : 'created'}</th>
            <td>{dateTime(d.at)}</td>
          </tr>
          <tr>
            <th>brand / branch</th>
            <td>
              {String(d.brand_id ?? '—')} / {String(d.branch_id ?? '—')}
            </td>
          </tr>
          <tr>
            <th>{d.source === 'listen' ? 'attempt' : 'status'}</th>
            <td>
              {d.source === 'listen'
                ? d.attempt
                : `${d.status}, ${d.attempt} attempt${d.attempt === 1 ? '' : 's'}${d.next_attempt_at ? `, next at ${clock(d.next_attempt_at)}` : ''}`}
            </td>
          </tr>
          {d.reason && (
            <tr>
              <th>rejected</th>
              <td class="bad">{d.reason} (answered 401)</td>
            </tr>
          )}
          {d.batched_event_ids.length > 0 && (
            <tr>
              <th>batched</th>
              <td class="mono">{d.batched_event_ids.join(', ')}</td>
            </tr>
          )}
        </tbody>
      </table>
      <div class="actions">
        {d.can_replay && (
          <button
            type="button"
            disabled={busy}
            onClick={() => act(`/api/webhooks/${encodeURIComponent(d.key)}/replay`, {})}
          >
            Replay
          </button>
        )}
        {d.can_resend && (
          <form
            class="resend"
            onSubmit={(e) => {
              e.preventDefault();
              void act(`/api/webhooks/${encodeURIComponent(d.key)}/resend`, { url: target });
            }}
          >
            <input
              type="url"
              placeholder="http://127.0.0.1:3000/webhooks"
              value={target}
              aria-label="resend to URL"
              onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)}
            />
            <button type="submit" disabled={busy || !target}>
              Resend to URL
            </button>
          </form>
        )}
        {result && <span class={`result ${result.ok ? 'ok' : 'bad'}`}>{result.message}</span>}
      </div>
      <Orders body={d.body} />
      {d.attempts.length > 0 && (
        <>
          <h3>Delivery attempts</h3>
          <table class="grid">
            <thead>
              <tr>
                <th class="num">#</th>
                <th>at</th>
                <th class="num">status</th>
                <th class="num">duration</th>
                <th>error</th>
              </tr>
            </thead>
            <tbody>
              {d.attempts.map((a) => (
                <tr key={a.attempt}>
                  <td class="num">{a.attempt}</td>
                  <td>{clock(a.at)}</td>
                  <td class={`num ${a.status_code !== null && a.status_code < 300 ? 'good' : 'bad'}`}>
                    {a.status_code ?? '—'}
                  </td>
                  <td class="num">{a.duration_ms} ms</td>
                  <td class="bad">{a.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {d.resends.length > 0 && (
        <>
          <h3>Resent</h3>
          <table class="grid">
            <tbody>
              {d.resends.map((r) => (
                <tr key={r.at}>
                  <td>{clock(r.at)}</td>
                  <td class="mono">{r.url}</td>
                  <td class="num">{r.status ?? r.error}</td>
                  <td class="num">{r.duration_ms} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h3>Headers</h3>
      <HeaderTable headers={d.headers} />
      <h3>
        Body{' '}
        <label class="check inline">
          <input
            type="checkbox"
            checked={exact}
            onChange={(e) => setExact((e.currentTarget as HTMLInputElement).checked)}
          />
          exact bytes (what was signed)
        </label>
      </h3>
      {exact ? <pre class="code raw">{d.body}</pre> : <JsonView text={d.body} />}
    </div>
  );
}

export function WebhooksView({ rows, info }: { rows: Rows<WebhookRow>; info: InspectInfo | null }) {
  const all = useRows(rows);
  const [f, setF] = useState<Filters>({ type: '', order: '', status: '', source: '' });
  const [selected, setSelected] = useState<string | null>(null);
  const shown = useMemo(() => all.filter((r) => matches(r, f)), [all, f]);
  const types = useMemo(() => {
    const set = new Set([
      'service.order.created.v2',
      'service.order.status.updated',
      'service.order.cart.updated',
    ]);
    for (const r of all) set.add(r.event_type);
    return [...set];
  }, [all]);
  const sel = selected ? rows.get(selected) : undefined;
  const set = (k: keyof Filters) => (e: Event) =>
    setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const both = info?.listen && info.local;
  return (
    <div class="view">
      <div class="filters">
        <select value={f.type} onChange={set('type')} aria-label="event type">
          <option value="">all types</option>
          {types.map((t) => (
            <option key={t} value={t}>
              {shortType(t)}
            </option>
          ))}
        </select>
        <input
          type="search"
          placeholder="order #"
          value={f.order}
          onInput={set('order')}
          aria-label="order"
        />
        <select value={f.status} onChange={set('status')} aria-label="status">
          <option value="">any status</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        {both && (
          <select value={f.source} onChange={set('source')} aria-label="source">
            <option value="">listen and server</option>
            <option value="listen">listen</option>
            <option value="local">server</option>
          </select>
        )}
        <span class="count">
          {shown.length === all.length ? `${all.length}` : `${shown.length} of ${all.length}`} event
          {all.length === 1 ? '' : 's'}
        </span>
      </div>
      <div class="split">
        <VirtualList
          label="webhook events"
          items={shown}
          rowHeight={30}
          keyOf={(r) => r.key}
          selected={selected}
          onSelect={setSelected}
          row={(r) => <Row r={r} />}
          empty={
            all.length === 0
              ? info?.listen
                ? `Waiting for deliveries to ${info.listen.url}`
                : info?.local
                  ? 'No deliveries yet: register a receiver (partner operator webhooks add) and place an order'
                  : 'No webhook source in this run'
              : 'Nothing matches the filters'
          }
        />
        {sel ? (
          <Detail rowKey={sel.key} rev={sel.rev} />
        ) : (
          <div class="detail muted">Select an event to see it.</div>
        )}
      </div>
    </div>
  );
}
