import type { OperationSpec } from '../../contract/operation.js';

/**
 * Which methods a concrete path serves, from the operation table. A static path wins over a
 * parameter pattern that would also match it (`/orders/status` is PATCH only, not the
 * `/orders/{id}` GET), as in the router, so every method on a path gets the same `Allow`.
 */
export class AllowedMethods {
  private readonly statics = new Map<string, readonly string[]>();
  private readonly patterns: { re: RegExp; methods: Set<string> }[] = [];

  constructor(ops: readonly OperationSpec[]) {
    const byPath = new Map<string, Set<string>>();
    for (const op of ops) {
      const m = byPath.get(op.path) ?? new Set<string>();
      m.add(op.method);
      if (op.method === 'GET') m.add('HEAD');
      byPath.set(op.path, m);
    }
    for (const [path, methods] of byPath) {
      if (path.includes('{')) {
        const re = new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`);
        this.patterns.push({ re, methods });
      } else this.statics.set(path, Object.freeze([...methods]));
    }
  }

  /** The methods of `url`'s path (query and one trailing slash ignored), or undefined for no route. */
  of(url: string): readonly string[] | undefined {
    const q = url.indexOf('?');
    let path = q < 0 ? url : url.slice(0, q);
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const exact = this.statics.get(path);
    if (exact) return exact;
    const out = new Set<string>();
    for (const p of this.patterns) if (p.re.test(path)) for (const m of p.methods) out.add(m);
    return out.size > 0 ? [...out] : undefined;
  }
}
