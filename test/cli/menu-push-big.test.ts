import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listBound } from '../../src/menu/bounds.js';
import { BIG, bigMenu } from '../helpers/big-menu.js';
import { startWithProfile } from '../helpers/profile.js';
import { startProxy } from '../helpers/proxy.js';
import { call, type TestServer } from '../helpers/server.js';
import { freshBrand } from '../server/menus-helpers.js';
import { profileDir, runCli, tempDir } from './run-cli.js';

// A generated 2,000-item menu past every list bound of the menu API (a section of 520
// categories, a group offered on 1,397 items, a group of 600 modifiers) pushed to the real
// server through a logging proxy: a real server error mid-push, an interrupt, a resume that
// redoes nothing, a re-push that writes nothing, and a re-order that unlinks in pieces.

let s: TestServer;
let configDir: string;
let proxy: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  ({ s, configDir } = await startWithProfile({ rateLimit: 1_000_000 }));
  proxy = await startProxy(s.baseUrl);
});
afterAll(async () => {
  await proxy?.close();
  await s?.close();
});

let dir: string;
const cli = (argv: string[], o: Parameters<typeof runCli>[1] = {}) =>
  runCli(argv, { configDir, cwd: dir, ...o });
// Writes applied: the scope probes a push sends before its first write are refused (4xx).
const writes = () => proxy.log.filter((e) => e.method !== 'GET' && (e.status ?? 200) < 300).length;
const parts = (n: number, op: Parameters<typeof listBound>[0], field: string) =>
  Math.ceil(n / listBound(op, field));

function rows(brandId: number) {
  const db = s.server.services.db;
  const n = (table: string) =>
    (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE brand_id = ?`).get(brandId) as { n: number }).n;
  return {
    sections: n('menu_sections'),
    categories: n('menu_categories'),
    items: n('menu_items'),
    groups: n('menu_modifier_groups'),
  };
}

describe('menu push: a 2,000-item menu', () => {
  let brandId: number;
  let file: string;
  let argv: string[];
  const { categories: C, items: I, toppings: T } = BIG;
  // create section, categories, their links, items, their links (one per item), groups, the 3
  // sizes and the toppings, their links, the sizes group offered on every item, sync, publish
  const calls =
    1 +
    C +
    parts(C, 'linkCategoryToSection', 'category_ids') +
    I +
    I +
    2 +
    (3 + T) +
    1 +
    parts(T, 'linkModifiersToGroup', 'modifier_ids') +
    parts(I, 'linkModifierGroupToItem', 'item_ids') +
    2;

  beforeAll(async () => {
    ({ brandId } = await freshBrand(s));
    dir = tempDir('partner-big-');
    file = join(dir, 'big.json');
    writeFileSync(file, JSON.stringify(bigMenu(), null, 1));
    argv = ['menu', 'push', 'big.json', '--brand', String(brandId), '--base-url', proxy.url];
  });

  it('--dry-run and diff report the number of calls the push will make, and write nothing', async () => {
    expect(I + T + 3).toBe(2000);
    const dry = await cli([...argv, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.calls).toBe(calls);
    expect(plan.plan).toHaveLength(calls);
    const human = await cli([...argv, '--dry-run']);
    expect(human.stdout.split('\n')[0]).toMatch(
      new RegExp(
        `^Dry run: big\\.json → brand ${brandId} ".*" would make ${calls.toLocaleString('en-US')} write calls`,
      ),
    );
    expect(plan.paced_seconds).toBe(0); // this credential's limit is far above 3,930 calls
    // At the default 600/min, from a full bucket: (calls − 599 left after the read) ÷ 10 per s.
    const slow = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['menus:read'],
      rateLimit: 600,
    });
    const slowDir = profileDir(s.baseUrl, slow);
    const paced = await cli([...argv, '--dry-run', '--json'], { configDir: slowDir });
    expect(JSON.parse(paced.stdout).paced_seconds).toBe(Math.round((calls - 599) / 10));
    const pacedText = await cli([...argv, '--dry-run'], { configDir: slowDir });
    expect(pacedText.stdout.split('\n')[0]).toMatch(
      new RegExp(
        `would make ${calls.toLocaleString('en-US')} write calls, about ${Math.floor(Math.round((calls - 599) / 10) / 60)} min ${Math.round((calls - 599) / 10) % 60} s at 600/min; nothing is written:$`,
      ),
    );
    const diff = await cli(['menu', 'diff', 'big.json', '--brand', String(brandId), '--base-url', proxy.url]);
    expect(diff.stdout.split('\n')[0]).toMatch(new RegExp(`: ${calls.toLocaleString('en-US')} write calls`));
    expect(writes()).toBe(0);
  });

  it('a server error mid-push stops with one short message naming the step and the error code', async () => {
    let deleted = false;
    // The section is deleted by someone else just before its categories are linked: the server
    // answers 404 for a list of 500 categories.
    proxy.ctl.before = async (e, body) => {
      // Not the scope probe before the writes (an empty body the server refuses).
      if (deleted || e.path !== '/v1/partner/menus/categories/link' || body === '{}') return;
      deleted = true;
      const tree = (await call(s, 'GET', '/v1/partner/menus')).body.data;
      const brand = tree.brands.find((b: { brand_id: number }) => b.brand_id === brandId);
      const id = brand.sections[0].id;
      expect((await call(s, 'DELETE', `/v1/partner/menus/sections/${id}`)).status).toBe(200);
    };
    const r = await cli(argv);
    proxy.ctl.before = undefined;
    expect(deleted).toBe(true);
    expect(r.code, r.stderr).toBe(4);
    const done = 1 + C;
    expect(r.stderr).toMatch(
      new RegExp(
        `^Push stopped after ${done} of ${calls} steps, at: link categories cat-0, cat-1, .* and \\d+ more → section everything \\(part 1 of 2\\): resource_not_found\\. `,
        'm',
      ),
    );
    expect(r.stderr).toMatch(/^error: resource_not_found: /m);
    // No wall of ids: the per-step progress lines and these few lines.
    const tail = r.stderr.slice(r.stderr.indexOf('Push stopped'));
    expect(tail.length, tail).toBeLessThan(600);
  });

  it('interrupted, then resumed: finishes without redoing a step, everything exists once', {
    timeout: 120_000,
  }, async () => {
    const before = writes();
    let lines = 0;
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((r) => {
      stop = r;
    });
    const first = await cli(argv, {
      untilStopped: () => stopped,
      onStderr: (chunk) => {
        lines += chunk.match(/^\[/gm)?.length ?? 0;
        if (lines >= 900) stop('SIGINT');
      },
    });
    expect(first.code, first.stderr.slice(-500)).toBe(130);
    const m = /Interrupted after (\d+) of (\d+) steps/.exec(first.stderr);
    expect(m, first.stderr.slice(-500)).not.toBeNull();
    const [done, total] = [Number(m![1]), Number(m![2])];
    // The deleted section is made again; its categories exist and are matched.
    expect(total).toBe(calls - C);
    expect(done).toBeGreaterThanOrEqual(900);
    expect(done).toBeLessThan(total);
    // Every write sent was answered and recorded (the ones in flight at Ctrl-C included).
    expect(writes() - before).toBe(done);

    const mid = writes();
    const second = await cli([...argv, '--json']);
    expect(second.code, second.stderr.slice(-500)).toBe(0);
    const out = JSON.parse(second.stdout);
    expect(out.steps).toBe(total - done);
    expect(out.replayed).toBe(0);
    expect(writes() - mid).toBe(total - done);
    expect(out.published.version).toBe(1);

    expect(rows(brandId)).toEqual({ sections: 1, categories: C, items: I + T + 3, groups: 2 });
    const tree = (await call(s, 'GET', '/v1/partner/menus')).body.data;
    const brand = tree.brands.find((b: { brand_id: number }) => b.brand_id === brandId);
    expect(brand.sections).toHaveLength(1);
    const cats = brand.sections[0].categories;
    expect(cats.map((c: { title: string }) => c.title)).toEqual(
      Array.from({ length: C }, (_, c) => `Category ${c}`),
    );
    const items = cats.flatMap((c: { items: unknown[] }) => c.items);
    expect(items).toHaveLength(I);
    for (const it of items as { modifierGroups: { title: string; modifiers: unknown[] }[] }[]) {
      expect(it.modifierGroups.map((g) => [g.title, g.modifiers.length])).toEqual([['Size', 3]]);
    }
    expect(
      brand.unlinked.modifierGroups.map((g: { modifier_ids: number[] }) => g.modifier_ids.length),
    ).toEqual([T]);
  });

  it('pushed again: nothing to do, not one write call', async () => {
    const before = writes();
    const r = await cli(argv);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Up to date: brand \d+ matches big\.json; nothing to push\./);
    expect(writes()).toBe(before);
  });

  it('the categories reversed: unlinked and linked again in pieces within the bounds', async () => {
    const menu = bigMenu();
    menu.sections[0]!.categories.reverse();
    writeFileSync(file, JSON.stringify(menu, null, 1));
    const before = writes();
    const r = await cli([...argv, '--yes', '--json']);
    expect(r.code, r.stderr.slice(-500)).toBe(0);
    const out = JSON.parse(r.stdout);
    // The last category stays; the other 519 are unlinked and linked again after it.
    const n = parts(C - 1, 'unlinkCategoryFromSection', 'category_ids');
    expect(out.unlinks).toBe(n);
    expect(out.links).toBe(parts(C - 1, 'linkCategoryToSection', 'category_ids'));
    expect(writes() - before).toBe(out.steps);
    const tree = (await call(s, 'GET', '/v1/partner/menus')).body.data;
    const brand = tree.brands.find((b: { brand_id: number }) => b.brand_id === brandId);
    expect(brand.sections[0].categories.map((c: { title: string }) => c.title)).toEqual(
      Array.from({ length: C }, (_, c) => `Category ${C - 1 - c}`),
    );
  });
});
