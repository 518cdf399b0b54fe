import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { InspectInfo, RequestRow, WebhookRow } from '../contract/inspect-wire.js';
import { follow, getJson } from './api.js';
import { MenuPreview } from './menu.js';
import { RequestsView } from './requests.js';
import { Rows, useRows } from './rows.js';
import { WebhooksView } from './webhooks.js';

// The page of `partner inspect`: three views over what the CLI process holds, kept live by one
// event stream.

type Tab = 'webhooks' | 'requests' | 'menu';

const webhooks = new Rows<WebhookRow>(
  (r) => r.key,
  (r) => r.seq,
  (r) => r.rev,
);
const requests = new Rows<RequestRow>(
  (r) => r.request_id,
  (r) => r.seq,
  (r) => r.seq,
);

function App() {
  const [info, setInfo] = useState<InspectInfo | null>(null);
  const [tab, setTab] = useState<Tab>('webhooks');
  const [live, setLive] = useState(false);
  const [fatal, setFatal] = useState<string | null>(null);
  const nWebhooks = useRows(webhooks).length;
  const nRequests = useRows(requests).length;

  useEffect(() => {
    const loadInfo = () =>
      getJson<InspectInfo>('/api/info')
        .then((i) => {
          setInfo(i);
          webhooks.max = requests.max = i.max_rows;
        })
        .catch((e: Error) => setFatal(e.message));
    void loadInfo();
    let first = true;
    return follow({
      open: () => {
        setLive(true);
        if (!first) void loadInfo();
      },
      event: (type, data) => {
        if (type === 'webhook') webhooks.upsert(data as WebhookRow);
        else if (type === 'info') setInfo(data as InspectInfo);
        else if (type === 'request') requests.upsert(data as RequestRow);
        // The lists as they were when the stream (re)opened; merged by rev with what is held.
        else if (type === 'webhooks') webhooks.merge(data as WebhookRow[]);
        else if (type === 'requests') {
          requests.merge(data as RequestRow[]);
          if (first) {
            first = false;
            webhooks.flush();
            requests.flush();
            // Measured by the browser tests: the page drawn with its data.
            requestAnimationFrame(() => performance.mark('inspect-ready'));
          }
        }
      },
      closed: () => setLive(false),
      ended: () => {
        setLive(false);
        setFatal('The partner run this page belongs to has ended: open the URL the new run printed.');
      },
    });
  }, []);

  const tabs: [Tab, string][] = [
    ['webhooks', `Webhooks${nWebhooks ? ` (${nWebhooks})` : ''}`],
    ['requests', `Requests${nRequests ? ` (${nRequests})` : ''}`],
    ['menu', 'Menu preview'],
  ];
  return (
    <>
      <header>
        <span class="brand">partner inspect</span>
        <div class="tabs" role="tablist">
          {tabs.map(([t, label]) => (
            <button
              type="button"
              role="tab"
              key={t}
              id={`tab-${t}`}
              aria-selected={tab === t}
              class={tab === t ? 'on' : ''}
              onClick={() => setTab(t)}
            >
              {label}
            </button>
          ))}
        </div>
        <span class="sources">
          {info?.listen && <span title="partner listen">listen {info.listen.url}</span>}
          {info?.local?.base_url && <span title="local server">server {info.local.base_url}</span>}
          {info?.local?.error && <span class="bad">server: {info.local.error}</span>}
        </span>
        <span class={`live ${live ? 'on' : 'off'}`}>{live ? 'live' : 'reconnecting…'}</span>
      </header>
      {fatal && <div class="pad error">{fatal}</div>}
      <main>
        {tab === 'webhooks' && <WebhooksView rows={webhooks} info={info} />}
        {tab === 'requests' && (
          <RequestsView rows={requests} info={info} error={info?.requests_error ?? null} />
        )}
        {tab === 'menu' && <MenuPreview info={info} />}
      </main>
    </>
  );
}

const root = document.getElementById('app')!;
root.textContent = ''; // the static shell of index.html
render(<App />, root);
