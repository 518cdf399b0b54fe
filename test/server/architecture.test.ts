import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PartnerCtx } from '../../src/server/handlers/context.js';
import type { TenantTx } from '../../src/server/store/store.js';

// The server's layers, checked on the source: SQL lives only in a backend of the store, the
// domain stays pure, and nothing outside the composition root knows which backend runs.

const root = new URL('../../src/server/', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

const source = (f: string) => readFileSync(join(root, f), 'utf8');
const imports = (f: string) => [...source(f).matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
const all = files('.');
const under = (dir: string) => all.filter((f) => f.startsWith(`${dir}/`));
// store/sql/: the repositories, written once against the seam both backends implement.
const isBackend = (f: string) =>
  f.startsWith('store/sqlite/') || f.startsWith('store/postgres/') || f.startsWith('store/sql/');
// Where a backend is chosen: the composition root and the one module that opens a store.
const composition = new Set(['index.ts', 'store/open.ts']);

describe('server layers', () => {
  it('finds the files it checks', () => {
    expect(under('handlers').length).toBeGreaterThan(5);
    expect(under('store/sqlite').length).toBeGreaterThan(3);
    expect(under('store/postgres').length).toBeGreaterThan(0);
  });

  it('holds SQL only in store backends (handlers, services, seed, dispatcher, http hold none)', () => {
    const sqlish = /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b|\bsql\(|\.prepare\(/;
    const offenders = all
      .filter((f) => !isBackend(f))
      .filter((f) => sqlish.test(source(f)))
      .map((f) => relative('.', f));
    expect(offenders).toEqual([]);
  });

  it('keeps the domain pure: it imports nothing of http, store, services or handlers', () => {
    const bad = under('domain').flatMap((f) =>
      imports(f)
        .filter((i) => /^\.\.\/(http|store|services|handlers|delivery|seed)\//.test(i))
        .map((i) => `${f} → ${i}`),
    );
    expect(bad).toEqual([]);
  });

  it('names a backend only in the store itself and the composition root', () => {
    const bad = all
      .filter((f) => !isBackend(f) && !composition.has(f))
      .flatMap((f) =>
        imports(f)
          .filter((i) => /\/(sqlite|postgres)\//.test(i) || i === 'better-sqlite3' || i === 'pg')
          .map((i) => `${f} → ${i}`),
      );
    expect(bad).toEqual([]);
  });

  it('writes the repositories once: store/sql/ names neither backend nor its driver', () => {
    expect(under('store/sql').length).toBeGreaterThan(0);
    const bad = under('store/sql').flatMap((f) =>
      imports(f)
        .filter((i) => /\/(sqlite|postgres)\//.test(i) || i === 'better-sqlite3' || i === 'pg')
        .map((i) => `${f} → ${i}`),
    );
    expect(bad).toEqual([]);
  });

  it('keeps http/ to the wire: handlers, services and the store never import it', () => {
    const bad = [...under('handlers'), ...under('services'), ...under('store'), ...under('seed')].flatMap(
      (f) =>
        imports(f)
          .filter((i) => /(^|\/)http\//.test(i))
          .map((i) => `${f} → ${i}`),
    );
    expect(bad).toEqual([]);
  });
});

// Tenancy is structural, checked by the compiler (npm test runs tsc over test/): each marked line
// must stay a type error. Never called.
function tenancyIsStructural(ctx: PartnerCtx, t: TenantTx): void {
  // @ts-expect-error a partner handler cannot reach the unscoped store
  void ctx.services.store;
  // @ts-expect-error the tenant view has no way to another business
  void ctx.store.tenant;
  // @ts-expect-error a tenant repository takes no business id
  void t.orders.get(1, 2);
}
void tenancyIsStructural;
