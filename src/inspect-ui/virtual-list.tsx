import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

// A list of fixed-height rows of which only those in view (and a few around) are in the DOM, so
// 10,000 rows cost as much to draw as 40.

interface Props<T> {
  items: readonly T[];
  rowHeight: number;
  keyOf(item: T): string;
  selected: string | null;
  onSelect(key: string): void;
  row(item: T): ComponentChildren;
  empty: ComponentChildren;
  label: string;
}

const OVERSCAN = 8;

export function VirtualList<T>(p: Props<T>) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    setHeight(el.clientHeight);
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // A filter that shortens the list below the scroll position: back to where rows are.
  useEffect(() => {
    const el = box.current;
    if (el && top > p.items.length * p.rowHeight) {
      el.scrollTop = 0;
      setTop(0);
    }
  }, [p.items.length, p.rowHeight, top]);

  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    e.preventDefault();
    const i = p.items.findIndex((it) => p.keyOf(it) === p.selected);
    const next = p.items[Math.max(0, Math.min(p.items.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1)))];
    if (!next) return;
    p.onSelect(p.keyOf(next));
    const el = box.current;
    const at = p.items.indexOf(next) * p.rowHeight;
    if (el && (at < el.scrollTop || at + p.rowHeight > el.scrollTop + el.clientHeight))
      el.scrollTop = at - el.clientHeight / 2;
  };

  const first = Math.max(0, Math.floor(top / p.rowHeight) - OVERSCAN);
  const last = Math.min(p.items.length, Math.ceil((top + height) / p.rowHeight) + OVERSCAN);
  const shown = p.items.slice(first, last);
  return (
    <div
      class="vlist"
      ref={box}
      tabIndex={0}
      role="listbox"
      aria-label={p.label}
      onScroll={(e) => setTop((e.currentTarget as HTMLDivElement).scrollTop)}
      onKeyDown={onKey}
    >
      {p.items.length === 0 ? (
        <div class="empty">{p.empty}</div>
      ) : (
        <div class="vlist-space" style={{ height: `${p.items.length * p.rowHeight}px` }}>
          {shown.map((it, i) => {
            const k = p.keyOf(it);
            return (
              <div
                key={k}
                class={`vrow${k === p.selected ? ' selected' : ''}`}
                role="option"
                tabIndex={-1}
                aria-selected={k === p.selected}
                data-key={k}
                style={{
                  transform: `translateY(${(first + i) * p.rowHeight}px)`,
                  height: `${p.rowHeight}px`,
                }}
                onClick={() => p.onSelect(k)}
                onKeyDown={() => undefined}
              >
                {p.row(it)}
              </div>
            );
          })}
        </div>
      )}
    </div>
  );
}
