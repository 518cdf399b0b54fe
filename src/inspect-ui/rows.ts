import { useEffect, useState } from 'preact/hooks';

// The rows of a list as the page holds them: merged from the first load and the event stream in
// whatever order they come (the higher `rev` of two copies wins), newest first, at most `max`.
// Changes are drawn once per frame, so a burst of thousands of events costs a few renders.

export class Rows<T> {
  private readonly map = new Map<string, T>();
  sorted: T[] = [];
  private dirty = false;
  private frame = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly keyOf: (t: T) => string,
    private readonly seqOf: (t: T) => number,
    private readonly revOf: (t: T) => number,
    public max = 10_000,
  ) {}

  get(key: string): T | undefined {
    return this.map.get(key);
  }

  get size(): number {
    return this.sorted.length;
  }

  upsert(t: T): void {
    const k = this.keyOf(t);
    const old = this.map.get(k);
    if (old && this.revOf(old) > this.revOf(t)) return;
    this.map.set(k, t);
    this.schedule();
  }

  merge(list: readonly T[]): void {
    for (const t of list) this.upsert(t);
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private schedule(): void {
    this.dirty = true;
    if (this.frame) return;
    // requestAnimationFrame does not run in a hidden tab; a timer does, more slowly.
    this.frame = document.hidden
      ? (setTimeout(() => this.flush(), 250) as unknown as number)
      : requestAnimationFrame(() => this.flush());
  }

  flush(): void {
    this.frame = 0;
    if (!this.dirty) return;
    this.dirty = false;
    const all = [...this.map.values()].sort((a, b) => this.seqOf(b) - this.seqOf(a));
    for (const gone of all.slice(this.max)) this.map.delete(this.keyOf(gone));
    this.sorted = all.slice(0, this.max);
    for (const fn of this.listeners) fn();
  }
}

/** Re-renders the component whenever the rows change; answers them newest first. */
export function useRows<T>(rows: Rows<T>): T[] {
  const [, bump] = useState(0);
  useEffect(() => rows.subscribe(() => bump((n) => n + 1)), [rows]);
  return rows.sorted;
}
