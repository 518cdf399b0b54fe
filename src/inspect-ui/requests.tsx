import { useEffect, useMemo, useState } from 'preact/hooks';
import type { InspectInfo, RequestDetail, RequestRow } from '../contract/inspect-wire.js';
import { getJson } from './api.js';
import { clock, dateTime } from './format.js';
import { HeaderTable, JsonView } from './json-view.js';
import { type Rows, useRows } from './rows.js';
import { VirtualList } from './virtual-list.js';

// Requests: the local server's request log, newest first, filtered by method, status, path and
// key; a click shows both sides in full (the server masks secrets before anything is logged).

interface Filters {
  method: string;
  status: string;
  path: string;
  key: string;
  own: boolean;
}

function matches(r: RequestRow, f: Filters): boolean {
  if (r.own && !f.own) return false;
  if (f.method && r.method !== f.method) return false;
  if (f.status && String(r.status)[0] !== f.status[0]) return false;
  if (f.path && !r.path.includes(f.path.trim())) return false;
  if (f.key && !(r.credential_key ?? '').includes(f.key.trim())) return false;
  return true;
}

function Row({ r }: { r: RequestRow }) {
  return (
    <>
      <span class="c-time">{clock(r.at)}</span>
      <span class="c-method">{r.method}</span>
      <span class="c-path mono" title={r.path}>
        {r.path}
      </span>
      <span class={`c-code s${String(r.status)[0]}xx`}>{r.status}</span>
      <span class="c-dur">{Math.round(r.duration_ms)} ms</span>
      <span class="c-rid mono">{r.request_id}</span>
      <span class="c-key mono">{r.credential_key ?? '—'}</span>
    </>
  );
}

function Detail({ id }: { id: string }) {
  const [d, setD] = useState<RequestDetail | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setD(null);
    getJson<RequestDetail>(`/api/requests/${encodeURIComponent(id)}`)
      .then((x) => {
        if (!live) return;
        setD(x);
        setErr(null);
      })
      .catch((e: Error) => live && setErr(e.message));
    return () => {
      live = false;
    };
  }, [id]);
  if (err) return <div class="detail error">{err}</div>;
  if (!d) return <div class="detail muted">loading…</div>;
  const side = (title: string, m: RequestDetail['request']) => (
    <>
      <h3>
        {title}
        {m.body_truncated && <span class="badge mark">cut at 64 KiB of {m.body_size} bytes</span>}
      </h3>
      <HeaderTable headers={m.headers} />
      <JsonView text={m.body} />
    </>
  );
  return (
    <div class="detail">
      <h2>
        {d.method} <span class="mono">{d.path}</span>{' '}
        <span class={`scode s${String(d.status)[0]}xx`}>{d.status}</span>
      </h2>
      <table class="kv meta">
        <tbody>
          <tr>
            <th>request id</th>
            <td class="mono">{d.request_id}</td>
          </tr>
          <tr>
            <th>at</th>
            <td>
              {dateTime(d.at)}, {Math.round(d.duration_ms)} ms
            </td>
          </tr>
          <tr>
            <th>credential</th>
            <td class="mono">{d.credential_key ?? '—'}</td>
          </tr>
          {d.error_code && (
            <tr>
              <th>error</th>
              <td class="bad mono">{d.error_code}</td>
            </tr>
          )}
        </tbody>
      </table>
      {d.detail_dropped && (
        <p class="muted">Headers and bodies were dropped to keep the log within its memory budget.</p>
      )}
      {side('Request', d.request)}
      {side('Response', d.response)}
    </div>
  );
}

export function RequestsView({
  rows,
  info,
  error,
}: {
  rows: Rows<RequestRow>;
  info: InspectInfo | null;
  error: string | null;
}) {
  const all = useRows(rows);
  const [f, setF] = useState<Filters>({ method: '', status: '', path: '', key: '', own: false });
  const [selected, setSelected] = useState<string | null>(null);
  const shown = useMemo(() => all.filter((r) => matches(r, f)), [all, f]);
  const set = (k: keyof Filters) => (e: Event) =>
    setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const sel = selected ? rows.get(selected) : undefined;
  return (
    <div class="view">
      <div class="filters">
        <select value={f.method} onChange={set('method')} aria-label="method">
          <option value="">any method</option>
          {['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <select value={f.status} onChange={set('status')} aria-label="status">
          <option value="">any status</option>
          {['2xx', '3xx', '4xx', '5xx'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <input
          type="search"
          placeholder="path contains"
          value={f.path}
          onInput={set('path')}
          aria-label="path"
        />
        <input
          type="search"
          placeholder="key"
          value={f.key}
          onInput={set('key')}
          aria-label="credential key"
        />
        <label class="check">
          <input
            type="checkbox"
            checked={f.own}
            onChange={(e) => setF({ ...f, own: (e.currentTarget as HTMLInputElement).checked })}
          />
          inspect's own reads
        </label>
        <span class="count">
          {shown.length === all.length ? `${all.length}` : `${shown.length} of ${all.length}`} request
          {all.length === 1 ? '' : 's'}
        </span>
      </div>
      <div class="split">
        <VirtualList
          label="requests"
          items={shown}
          rowHeight={30}
          keyOf={(r) => r.request_id}
          selected={selected}
          onSelect={setSelected}
          row={(r) => <Row r={r} />}
          empty={
            error ??
            (info?.local
              ? all.length === 0
                ? `No requests yet to ${info.local.base_url ?? 'the local server'}`
                : 'Nothing matches the filters'
              : 'The request log is the local server’s: run partner inspect where one runs, or partner local start --inspect')
          }
        />
        {sel ? <Detail id={sel.request_id} /> : <div class="detail muted">Select a request to see it.</div>}
      </div>
    </div>
  );
}
