import { useEffect, useMemo, useState } from 'preact/hooks';
import type {
  InspectInfo,
  MenuChanges,
  MenuTargets,
  MenuView,
  SnapshotItem,
} from '../contract/inspect-wire.js';
import { getJson } from './api.js';
import { clock, dateTime, money } from './format.js';

// Menu preview: the published snapshot of one brand at one branch drawn as a marketplace shows it
// to customers (sections, categories, items with their price on each provider, modifier groups
// with their bounds), with live availability, snooze and stock badges and what changed since the
// previous publish. Read again every few seconds while shown.

const REFRESH_MS = 3000;

function bounds(min: number, max: number): string {
  if (min === 0) return max === 1 ? 'optional, pick 1' : `optional, up to ${max}`;
  if (min === max) return `required, pick ${min}`;
  return `required, pick ${min}–${max}`;
}

function Badges({ item, now, provider }: { item: SnapshotItem; now: number; provider: string }) {
  const snoozed = item.snoozed_until !== null && Date.parse(item.snoozed_until) > now;
  const hidden = provider !== '' && item.visibilities[provider] === false;
  return (
    <div class="badges">
      {!item.enabled && <span class="badge off">disabled</span>}
      {snoozed && <span class="badge snoozed">snoozed until {clock(item.snoozed_until!).slice(0, 5)}</span>}
      {item.stock === 0 && <span class="badge off">out of stock</span>}
      {!snoozed && item.stock !== 0 && !item.isAvailable && <span class="badge off">sold out</span>}
      {item.stock !== null && item.stock > 0 && <span class="badge stock">{item.stock} left</span>}
      {hidden && <span class="badge off">hidden here</span>}
    </div>
  );
}

function Prices(p: { item: SnapshotItem; targets: MenuTargets; currency: string; provider: string }) {
  const names = new Map(p.targets.providers.map((x) => [String(x.id), x.title]));
  if (p.provider !== '') {
    const v = p.item.prices[p.provider];
    return (
      <div class="prices">
        {v === undefined ? (
          <span class="muted">no price here</span>
        ) : (
          <span class="price">{money(v, p.currency)}</span>
        )}
      </div>
    );
  }
  // Providers asking the same price share a line: "GrabFood · GoFood  IDR 30,000".
  const byPrice = new Map<string, string[]>();
  for (const [id, v] of Object.entries(p.item.prices))
    byPrice.set(v, [...(byPrice.get(v) ?? []), names.get(id) ?? `provider ${id}`]);
  if (byPrice.size === 0) return <div class="prices muted">no price</div>;
  return (
    <div class="prices">
      {[...byPrice].map(([v, who]) => (
        <div class="price" key={v}>
          {money(v, p.currency)} <span class="prov">{who.join(' · ')}</span>
        </div>
      ))}
    </div>
  );
}

function Item(p: {
  item: SnapshotItem;
  change: 'new' | string[] | undefined;
  targets: MenuTargets;
  currency: string;
  provider: string;
  now: number;
}) {
  const { item, change } = p;
  const out =
    !item.enabled ||
    item.stock === 0 ||
    !item.isAvailable ||
    (p.provider !== '' && item.visibilities[p.provider] === false);
  return (
    <article
      class={`item${out ? ' unavailable' : ''}${change ? ' changed' : ''}`}
      data-sku={item.partner_item_id}
    >
      {change === 'new' && <span class="ribbon new">new</span>}
      {Array.isArray(change) && <span class="ribbon upd">changed: {change.join(', ')}</span>}
      <h4>{item.title}</h4>
      <div class="sku mono">{item.partner_item_id}</div>
      <Prices item={item} targets={p.targets} currency={p.currency} provider={p.provider} />
      <Badges item={item} now={p.now} provider={p.provider} />
      {item.modifierGroups.map((g) => (
        <div class="mgroup" key={g.id}>
          <div class="mg-title">
            {g.title} <span class="muted">· {bounds(g.min, g.max)}</span>
          </div>
          <ul>
            {g.modifiers.map((m) => (
              <li key={m.id} class={m.isAvailable ? '' : 'unavailable'}>
                {m.title}
                <span class="muted">
                  {' '}
                  +{money(p.provider ? m.prices[p.provider] : Object.values(m.prices)[0], p.currency) || '—'}
                </span>
                {!m.isAvailable && <span class="badge off">sold out</span>}
              </li>
            ))}
          </ul>
        </div>
      ))}
    </article>
  );
}

function Removed({ changes, previous }: { changes: MenuChanges; previous: number }) {
  if (changes.removed.length === 0) return null;
  return (
    <div class="removed">
      Removed since v{previous}: {changes.removed.map((r) => `${r.title} (${r.kind})`).join(', ')}
    </div>
  );
}

export function MenuPreview({ info }: { info: InspectInfo | null }) {
  const [targets, setTargets] = useState<MenuTargets | null>(null);
  const [brand, setBrand] = useState<number | null>(null);
  const [branch, setBranch] = useState<number | null>(null);
  const [provider, setProvider] = useState('');
  const [view, setView] = useState<MenuView | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    if (!info?.menu || info.menu.error) return;
    getJson<MenuTargets>('/api/menu/targets')
      .then((t) => {
        setTargets(t);
        const b = t.brands.find((x) => x.branches.length > 0);
        if (b) {
          setBrand(b.id);
          setBranch(b.branches[0]!.id);
        }
      })
      .catch((e: Error) => setErr(e.message));
  }, [info?.menu?.key]);

  useEffect(() => {
    const t = setInterval(() => !document.hidden && setTick((n) => n + 1), REFRESH_MS);
    return () => clearInterval(t);
  }, []);

  useEffect(() => {
    if (brand === null || branch === null) return;
    let live = true;
    getJson<MenuView>(`/api/menu?brand_id=${brand}&branch_id=${branch}`)
      .then((v) => {
        if (!live) return;
        setView(v);
        setErr(null);
      })
      .catch((e: Error) => live && setErr(e.message));
    return () => {
      live = false;
    };
  }, [brand, branch, tick]);

  const brandRow = targets?.brands.find((b) => b.id === brand);
  const branchRow = brandRow?.branches.find((b) => b.id === branch);
  const now = useMemo(() => Date.now(), [view]);
  if (!info?.menu)
    return <div class="view pad muted">No partner profile in this run: the menu preview reads with one.</div>;
  if (info.menu.error) return <div class="view pad error">Menu preview: {info.menu.error}</div>;
  const snap = view?.brand_id === brand && view?.branch_id === branch ? view.snapshot : undefined;
  const changes = view?.changes ?? null;
  return (
    <div class="view menu">
      <div class="filters">
        <select
          aria-label="brand"
          value={brand ?? ''}
          onChange={(e) => {
            const id = Number((e.currentTarget as HTMLSelectElement).value);
            setBrand(id);
            setBranch(targets?.brands.find((b) => b.id === id)?.branches[0]?.id ?? null);
          }}
        >
          {targets?.brands.map((b) => (
            <option key={b.id} value={b.id}>
              {b.title}
            </option>
          ))}
        </select>
        <select
          aria-label="branch"
          value={branch ?? ''}
          onChange={(e) => setBranch(Number((e.currentTarget as HTMLSelectElement).value))}
        >
          {brandRow?.branches.map((b) => (
            <option key={b.id} value={b.id}>
              {b.title}
            </option>
          ))}
        </select>
        <div class="chips" role="radiogroup" aria-label="provider">
          {[
            { id: '', title: 'All providers' },
            ...(targets?.providers ?? []).map((p) => ({ id: String(p.id), title: p.title })),
          ].map((p) => (
            <button
              type="button"
              key={p.id}
              class={`chip${provider === p.id ? ' on' : ''}`}
              aria-pressed={provider === p.id}
              onClick={() => setProvider(p.id)}
            >
              {p.title}
            </button>
          ))}
        </div>
        <span class="count">
          {snap
            ? `v${snap.version} published ${dateTime(snap.published_at)}${view?.previous_version ? ` · compared with v${view.previous_version}` : ' · no earlier publish seen'}`
            : ''}
        </span>
      </div>
      {err && <div class="pad error">{err}</div>}
      {snap === null && (
        <div class="pad muted">
          Not published yet at this branch: push and publish a menu (partner menu push FILE --brand {brand}).
        </div>
      )}
      {snap && (
        <div class="store">
          <nav class="sections">
            {snap.sections.map((s) => (
              <a key={s.id} href={`#sec-${s.id}`}>
                {s.title}
              </a>
            ))}
          </nav>
          <div class="catalog">
            {changes && view?.previous_version && (
              <Removed changes={changes} previous={view.previous_version} />
            )}
            {snap.sections.map((s) => (
              <section key={s.id} id={`sec-${s.id}`} class={`msection${s.isEnabled ? '' : ' unavailable'}`}>
                <h2>
                  {s.title}
                  {!s.isEnabled && <span class="badge off">disabled</span>}
                  {provider !== '' && s.visibilities[provider] === false && (
                    <span class="badge off">hidden here</span>
                  )}
                  {changes?.sections[String(s.id)] === 'new' && <span class="ribbon new">new</span>}
                </h2>
                {s.categories.map((c) => (
                  <div key={c.id} class="mcategory">
                    <h3>
                      {c.title}
                      {changes?.categories[String(c.id)] === 'new' && <span class="ribbon new">new</span>}
                    </h3>
                    <div class="items">
                      {c.items.map((i) => (
                        <Item
                          key={i.id}
                          item={i}
                          change={changes?.items[String(i.id)]}
                          targets={targets!}
                          currency={branchRow?.currency_code ?? ''}
                          provider={provider}
                          now={now}
                        />
                      ))}
                    </div>
                  </div>
                ))}
              </section>
            ))}
          </div>
        </div>
      )}
    </div>
  );
}
