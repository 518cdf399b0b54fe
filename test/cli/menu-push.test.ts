import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithProfile } from '../helpers/profile.js';
import { startProxy } from '../helpers/proxy.js';
import { call, type TestServer } from '../helpers/server.js';
import { freshBrand } from '../server/menus-helpers.js';
import { fakePrompter, runCli, tempDir } from './run-cli.js';

// `partner menu push` / `menu diff` against the real server (SQLite file), in-process with
// an injected Io, through a fault-injecting proxy (lost answers, a dead network) and as the
// built binary killed with SIGKILL mid-push.

const root = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = join(root, 'docs/examples/menu.sample.yaml');
const bin = join(root, 'bin/partner.js');

let s: TestServer;
let configDir: string;

beforeAll(async () => {
  // A limit the many pushes of this file do not reach; the pacing test issues its own credential.
  ({ s, configDir } = await startWithProfile({ rateLimit: 1_000_000 }));
});
afterAll(async () => {
  await s?.close();
});

const cli = (argv: string[], o: Parameters<typeof runCli>[1] = {}) => runCli(argv, { configDir, ...o });

/** A copy of the sample in a fresh dir (so each test has its own state file). */
function sampleCopy(text?: string): string {
  const dir = tempDir('partner-menu-');
  const file = join(dir, 'menu.yaml');
  if (text === undefined) copyFileSync(SAMPLE, file);
  else writeFileSync(file, text);
  return file;
}

// biome-ignore lint/suspicious/noExplicitAny: the business tree as JSON
type Json = any;

/** The push state of a menu file: one file per target under the config dir's menu-push/. */
function stateOf(file: string): { path: string; target: Json } | undefined {
  const dir = join(configDir, 'menu-push');
  if (!existsSync(dir)) return undefined;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const doc = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    const target = Object.values(doc.targets).find((t: Json) => t.file === file);
    if (target) return { path: join(dir, name), target };
  }
  return undefined;
}

async function brandTree(brandId: number): Promise<Json> {
  const r = await call(s, 'GET', '/v1/partner/menus');
  return r.body.data.brands.find((b: Json) => b.brand_id === brandId);
}

/** The tree without ids: what two pushes of the same file to two brands must share. */
function normalise(v: Json): Json {
  if (Array.isArray(v)) return v.map(normalise);
  if (v && typeof v === 'object') {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'id' || /_ids?$/.test(k)) continue;
      out[k] = normalise(x);
    }
    return out;
  }
  return v;
}

const shape = async (brandId: number) => {
  const t = await brandTree(brandId);
  return normalise({ sections: t.sections, unlinked: t.unlinked });
};

/** Rows of the brand in the server's database: duplicates would show here. */
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

const SAMPLE_ROWS = { sections: 2, categories: 4, items: 14, groups: 2 };

let cleanShape: Json;
let cleanBrand: number;

describe('menu push', () => {
  it('pushes the sample to a fresh brand without a terminal: business tree and published menu have it', async () => {
    const { brandId, branches } = await freshBrand(s);
    const file = sampleCopy();
    const r = await cli(['menu', 'push', file, '--brand', String(brandId), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.created).toEqual({ sections: 2, categories: 4, items: 8, modifiers: 6, modifier_groups: 2 });
    expect(out.published.version).toBe(1);
    expect(out.published.branches.sort()).toEqual([...branches].sort());
    expect(rows(brandId)).toEqual(SAMPLE_ROWS);

    const t = await brandTree(brandId);
    expect(t.sections.map((x: Json) => x.title)).toEqual(['All day', 'Drinks']);
    expect(t.sections[0].availableTimes['1'].slots).toHaveLength(2);
    const rice = t.sections[0].categories[0];
    expect(rice.items.map((i: Json) => i.partner_item_id)).toEqual(['SKU-NG', 'SKU-NAB', 'SKU-NU']);
    const ng = rice.items[0];
    expect(ng.prices).toEqual({ 1: '35000.00', 2: '38000.00' });
    expect(ng.modifierGroups.map((g: Json) => [g.title, g.min, g.max])).toEqual([
      ['Spice level', 1, 1],
      ['Extra toppings', 0, 3],
    ]);
    expect(ng.modifierGroups[0].modifiers.map((m: Json) => m.partner_item_id)).toEqual([
      'MOD-MILD',
      'MOD-HOT',
      'MOD-XHOT',
    ]);
    expect(t.unlinked).toEqual({ categories: [], items: [], modifierGroups: [] });

    // Synced and published: the store menu serves the same tree.
    const menu = (await call(s, 'GET', `/v1/partner/menus?brand_id=${brandId}&branch_id=${branches[0]}`)).body
      .data;
    expect(menu.version).toBe(1);
    const items = menu.sections.flatMap((x: Json) => x.categories.flatMap((c: Json) => c.items));
    expect(items.map((i: Json) => i.partner_item_id)).toEqual([
      'SKU-NG',
      'SKU-NAB',
      'SKU-NU',
      'SKU-MG',
      'SKU-MA',
      'SKU-ET',
      'SKU-EJ',
      'SKU-KT',
    ]);
    expect(items[0].modifierGroups[1].modifiers[2]).toMatchObject({
      title: 'Extra chicken',
      prices: { 2: '14000.00' },
    });

    // The state file maps every key to its id.
    const { target } = stateOf(file)!;
    expect(target.run).toBeUndefined();
    expect(target.ids.items['nasi-goreng']).toBe(ng.id);
    expect(target.last_push.version).toBe(1);
    cleanShape = await shape(brandId);
    cleanBrand = brandId;
  });

  it('a second push of the same file creates nothing, does not publish again, and says so', async () => {
    const { brandId } = await freshBrand(s);
    const file = sampleCopy();
    expect((await cli(['menu', 'push', file, '--brand', String(brandId)])).code).toBe(0);
    const before = await brandTree(brandId);
    const again = await cli(['menu', 'push', file, '--brand', String(brandId)]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Up to date: brand \d+ matches .*menu\.yaml; nothing to push\.\n$/);
    expect(again.stderr).toBe('');
    const json = JSON.parse((await cli(['menu', 'push', file, '--brand', String(brandId), '--json'])).stdout);
    expect(json).toMatchObject({ steps: 0, published: null, synced: null });
    expect(json.unchanged).toEqual({
      sections: 2,
      categories: 4,
      items: 8,
      modifiers: 6,
      modifier_groups: 2,
    });
    expect(await brandTree(brandId)).toEqual(before);
    expect(rows(brandId)).toEqual(SAMPLE_ROWS);
    // Without the state file the keys are found again by SKU and title: still nothing to do.
    const other = sampleCopy();
    const fresh = await cli(['menu', 'diff', other, '--brand', String(brandId), '--json']);
    expect(JSON.parse(fresh.stdout).steps).toBe(0);
    const pubs = (await call(s, 'GET', `/v1/partner/menus/publications?brand_id=${brandId}&size=100`)).body
      .data;
    expect(new Set(pubs.results.map((p: Json) => p.version))).toEqual(new Set([1]));
    // --republish syncs and publishes anyway.
    const re = await cli(['menu', 'push', file, '--brand', String(brandId), '--republish', '--json']);
    expect(JSON.parse(re.stdout)).toMatchObject({ steps: 2, published: { version: 2 } });
    expect(rows(brandId)).toEqual(SAMPLE_ROWS);
  });

  it('--dry-run prints the plan and writes nothing (not even the state file)', async () => {
    const { brandId } = await freshBrand(s);
    const file = sampleCopy();
    const r = await cli(['menu', 'push', file, '--brand', String(brandId), '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Dry run: .* would make 39 write calls, within the rate limit \(1,000,000\/min\); nothing is written:/,
    );
    expect(r.stdout).toContain('  + create item nasi-goreng "Nasi goreng"');
    expect(r.stdout).toContain('  + offer modifier group toppings on items nasi-goreng, mie-goreng');
    expect(r.stdout).toContain(`  » publish brand ${brandId}`);
    expect(rows(brandId)).toEqual({ sections: 0, categories: 0, items: 0, groups: 0 });
    expect(stateOf(file)).toBeUndefined();
    const j = JSON.parse(
      (await cli(['menu', 'push', file, '--brand', String(brandId), '--dry-run', '--json'])).stdout,
    );
    expect(j).toMatchObject({ dry_run: true, steps: 39, publish: true });
    expect(j.plan[0]).toEqual({
      stage: 1,
      action: 'create',
      entity: 'section',
      key: 'all-day',
      operation: 'createSection',
      text: 'create section all-day "All day"',
    });
  });

  it('a validation error is reported as FILE:LINE before any request (exit 2)', async () => {
    const proxy = await startProxy(s.baseUrl);
    try {
      const lines = readFileSync(SAMPLE, 'utf8').split('\n');
      const at = lines.findIndex((l) => l.includes('SKU-EJ'));
      lines[at] = lines[at]!.replace('"12000.00"', '12000');
      const file = sampleCopy(lines.join('\n'));
      const r = await cli(['menu', 'push', file, '--brand', '1', '--yes', '--base-url', proxy.url]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `${file}:${at + 1}: sections[1].categories[0].items[1].prices."1": must be a decimal string`,
      );
      expect(r.stderr).toMatch(/1 problem in the menu file; nothing was sent/);
      expect(r.stdout).toBe('');
      expect(proxy.log).toEqual([]);
      const d = await cli(['menu', 'diff', file, '--brand', '1', '--base-url', proxy.url]);
      expect(d.code).toBe(2);
      expect(proxy.log).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('an unknown provider id is reported with its line before anything is written', async () => {
    const { brandId } = await freshBrand(s);
    const text = readFileSync(SAMPLE, 'utf8').replace(
      '{"1": "8000.00", "2": "9000.00"}',
      '{"1": "8000.00", "77": "9000.00"}',
    );
    const file = sampleCopy(text);
    const line = text.split('\n').findIndex((l) => l.includes('"77"')) + 1;
    const r = await cli(['menu', 'push', file, '--brand', String(brandId)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${file}:${line}: sections[1].categories[0].items[0].prices."77": no provider 77`,
    );
    expect(rows(brandId).sections).toBe(0);
  });

  it('changed titles and prices become updates; diff shows them first; order changes are repaired', async () => {
    const { brandId } = await freshBrand(s);
    const file = sampleCopy();
    expect((await cli(['menu', 'push', file, '--brand', String(brandId), '--yes'])).code).toBe(0);
    const before = await brandTree(brandId);
    const changed = readFileSync(SAMPLE, 'utf8')
      .replace('title: Nasi goreng,', 'title: Nasi goreng spesial,')
      .replace('prices: {"1": "35000.00", "2": "38000.00"}', 'prices: {"1": "36000.00", "2": "38000.00"}')
      .replace('title: Spice level', 'title: Spiciness')
      .replace(/( {10}- \{key: es-teh.*\n)( {10}- \{key: es-jeruk.*\n)/, '$2$1');
    writeFileSync(file, changed);
    const d = await cli(['menu', 'diff', file, '--brand', String(brandId)]);
    expect(d.code).toBe(0);
    expect(d.stdout).toContain(
      '  ~ update item nasi-goreng: title "Nasi goreng" → "Nasi goreng spesial", prices.1 "35000.00" → "36000.00"',
    );
    expect(d.stdout).toContain('  ~ update modifier group spice: title "Spice level" → "Spiciness"');
    expect(d.stdout).toContain('  - unlink item es-teh from category cold');
    expect(d.stdout).toContain('  + link item es-teh → category cold');
    expect((await cli(['menu', 'diff', file, '--brand', String(brandId), '--exit-code'])).code).toBe(1);
    // Re-ordering unlinks and links again: without a terminal that needs --yes.
    const refused = await cli(['menu', 'push', file, '--brand', String(brandId)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/removes 1 link .*pass --yes/);
    const r = await cli(['menu', 'push', file, '--brand', String(brandId), '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.created).toEqual({ sections: 0, categories: 0, items: 0, modifiers: 0, modifier_groups: 0 });
    expect(out.updated).toMatchObject({ items: 1, modifier_groups: 1 });
    expect(out.published.version).toBe(2);
    const after = await brandTree(brandId);
    const ng = after.sections[0].categories[0].items[0];
    expect(ng).toMatchObject({
      id: before.sections[0].categories[0].items[0].id,
      title: 'Nasi goreng spesial',
    });
    expect(ng.prices).toEqual({ 1: '36000.00', 2: '38000.00' });
    expect(ng.modifierGroups[0].title).toBe('Spiciness');
    expect(after.sections[1].categories[0].items.map((i: Json) => i.partner_item_id)).toEqual([
      'SKU-EJ',
      'SKU-ET',
    ]);
    expect(rows(brandId)).toEqual(SAMPLE_ROWS);
    expect((await cli(['menu', 'diff', file, '--brand', String(brandId), '--exit-code'])).code).toBe(0);
  });

  it('on a terminal it shows the plan and asks; declining writes nothing', async () => {
    const { brandId } = await freshBrand(s);
    const file = sampleCopy();
    const no = fakePrompter([false]);
    const r = await cli(['menu', 'push', file, '--brand', String(brandId)], { tty: true, prompter: no });
    expect(r.code).toBe(1);
    expect(no.calls).toEqual([{ kind: 'confirm', message: `Push to brand ${brandId} and publish?` }]);
    expect(r.stdout).toContain('  + create section all-day "All day"');
    expect(r.stderr).toContain('Cancelled.');
    expect(rows(brandId).sections).toBe(0);
    const yes = fakePrompter([true]);
    const ok = await cli(['menu', 'push', file, '--brand', String(brandId), '--no-color'], {
      tty: true,
      prompter: yes,
    });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/Pushed .*menu\.yaml to brand \d+ in [\d.]+ s \(39 steps\):/);
    expect(ok.stdout).toContain(
      '  created    2 sections, 4 categories, 8 items, 2 modifier groups, 6 modifiers',
    );
    expect(ok.stdout).toMatch(/Published version 1 to branches \d+, \d+ \(providers 1, 2\)\./);
    expect(await shape(brandId)).toEqual(cleanShape);
  });

  it('--branch limits sync and publish to that branch; a missing --brand is a usage error', async () => {
    const { brandId, branches } = await freshBrand(s);
    const file = sampleCopy();
    const r = await cli([
      'menu',
      'push',
      file,
      '--brand',
      String(brandId),
      '--branch',
      String(branches[1]),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).published.branches).toEqual([branches[1]]);
    const first = await call(s, 'GET', `/v1/partner/menus?brand_id=${brandId}&branch_id=${branches[0]}`);
    expect(first.status).toBe(404);
    const missing = await cli(['menu', 'push', file]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing --brand ID/);
    const unknown = await cli(['menu', 'push', file, '--brand', '99999', '--yes']);
    expect(unknown.code).toBe(4);
  });
});

// ─── interrupted pushes ─────────────────────────────────────────────────────────────────────

describe('menu push: the state', () => {
  const tiny = (tag: string) =>
    [
      'sections:',
      '  - key: mains',
      `    title: Mains ${tag}`,
      '    categories:',
      '      - key: food',
      `        title: Food ${tag}`,
      '        items:',
      `          - {key: x, title: Burger ${tag}, partner_item_id: SKU-${tag}-1, prices: {"1": "10.00"}}`,
      '',
    ].join('\n');

  it('two menu files of one folder pushed to one brand do not see each other (state per file, not beside it)', async () => {
    const { brandId } = await freshBrand(s);
    const dir = tempDir('partner-menu-');
    const a = join(dir, 'a.yaml');
    const b = join(dir, 'b.yaml');
    writeFileSync(a, tiny('A'));
    writeFileSync(b, tiny('B'));
    const brand = ['--brand', String(brandId)];
    expect((await cli(['menu', 'push', a, ...brand])).code).toBe(0);
    // b.yaml uses the same keys: with a state shared by the folder they would name a.yaml's ids.
    const diff = JSON.parse((await cli(['menu', 'diff', b, ...brand, '--json'])).stdout);
    expect(diff.create).toEqual({ sections: 1, categories: 1, items: 1, modifiers: 0, modifier_groups: 0 });
    expect(diff.plan.filter((x: Json) => x.action === 'update')).toEqual([]);
    expect((await cli(['menu', 'push', b, ...brand])).code).toBe(0);
    const tree = await brandTree(brandId);
    expect(tree.sections.map((x: Json) => x.title)).toEqual(['Mains A', 'Mains B']);
    expect(JSON.parse((await cli(['menu', 'diff', a, ...brand, '--json'])).stdout).steps).toBe(0);
    expect(JSON.parse((await cli(['menu', 'diff', b, ...brand, '--json'])).stdout).steps).toBe(0);
    // Nothing lands in the user's folder; each file has its own private state file.
    expect(readdirSync(dir).sort()).toEqual(['a.yaml', 'b.yaml']);
    const [sa, sb] = [stateOf(a)!, stateOf(b)!];
    expect(sa.path).not.toBe(sb.path);
    expect(sa.path.startsWith(join(configDir, 'menu-push'))).toBe(true);
    expect(statSync(sa.path).mode & 0o777).toBe(0o600);
    expect(sa.target).toMatchObject({ base_url: s.baseUrl, brand_id: brandId, branch_ids: null, file: a });
  });

  it('an old state beside the menu file: its own part is taken over with a note, another file ignores it', async () => {
    const { brandId } = await freshBrand(s);
    const file = sampleCopy();
    const brand = ['--brand', String(brandId)];
    expect((await cli(['menu', 'push', file, ...brand])).code).toBe(0);
    // What an older version would have left: one file per folder, keyed by server, business, brand.
    const { path, target } = stateOf(file)!;
    rmSync(path);
    const old = join(file, '../.partner-menu-state.json');
    const oldKey = `${s.baseUrl} business ${s.credential.businessId} brand ${brandId}`;
    writeFileSync(
      old,
      JSON.stringify({
        version: 1,
        targets: {
          [oldKey]: {
            base_url: s.baseUrl,
            business_id: s.credential.businessId,
            brand_id: brandId,
            ids: target.ids,
            last_push: { at: '2026-01-01T00:00:00.000Z', file, version: 1 },
          },
        },
      }),
    );
    // Renamed: only the recorded id can tell it is the same section.
    writeFileSync(file, readFileSync(file, 'utf8').replace('title: All day', 'title: All day long'));
    const taken = await cli(['menu', 'diff', file, ...brand, '--json']);
    expect(taken.stderr).toMatch(
      /^note: took this file's push state from .*\.partner-menu-state\.json \(now kept in /m,
    );
    expect(JSON.parse(taken.stdout).plan.map((x: Json) => x.text)).toContain(
      'update section all-day: title "All day" → "All day long"',
    );
    expect((await cli(['menu', 'push', file, ...brand])).code).toBe(0);
    const quiet = await cli(['menu', 'diff', file, ...brand]);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toMatch(/^No changes/);

    // Another menu file of the folder: the old state is not its own.
    const other = join(file, '../other.yaml');
    writeFileSync(other, readFileSync(file, 'utf8'));
    const ignored = await cli(['menu', 'diff', other, ...brand, '--json']);
    expect(ignored.stderr).toMatch(
      /^note: ignoring .*\.partner-menu-state\.json \(older versions shared it/m,
    );
    expect(JSON.parse(ignored.stdout).steps).toBe(0); // matched by SKU and title instead
  });

  it('--reset-state plans as if nothing were recorded (ids are matched again by SKU and title)', async () => {
    const { brandId } = await freshBrand(s);
    const file = sampleCopy();
    const brand = ['--brand', String(brandId)];
    expect((await cli(['menu', 'push', file, ...brand])).code).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8').replace('title: Drinks', 'title: Beverages'));
    const kept = JSON.parse((await cli(['menu', 'diff', file, ...brand, '--json'])).stdout);
    expect(kept.update.sections).toBe(1);
    const reset = JSON.parse((await cli(['menu', 'diff', file, ...brand, '--reset-state', '--json'])).stdout);
    expect(reset.update.sections).toBe(0);
    expect(reset.create.sections).toBe(1);
  });

  it('--state naming a file that is not a state file: exit 2 naming it, the file left as it was', async () => {
    const { brandId } = await freshBrand(s);
    const file = sampleCopy();
    const notState = join(tempDir('partner-state-'), 'notes.json');
    writeFileSync(notState, '{"hello": "world"}\n');
    const r = await cli(['menu', 'push', file, '--brand', String(brandId), '--state', notState, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${notState} is not a partner menu state file`);
    expect(readFileSync(notState, 'utf8')).toBe('{"hello": "world"}\n');
    expect(rows(brandId)).toEqual({ sections: 0, categories: 0, items: 0, groups: 0 });
  });
});

describe('menu push: interrupted and resumed', () => {
  it('a lost answer is retried with the same Idempotency-Key and replayed, not applied twice', async () => {
    const { brandId } = await freshBrand(s);
    const proxy = await startProxy(s.baseUrl);
    try {
      // Request 1 reads the tree, 2 the providers, 3 and 4 probe the scopes (menus:create,
      // menus:update); then the writes: 14 is an item create, 27 a link.
      proxy.ctl.loseAnswer = new Set([14, 27]);
      const file = sampleCopy();
      const r = await cli([
        'menu',
        'push',
        file,
        '--brand',
        String(brandId),
        '--base-url',
        proxy.url,
        '--concurrency',
        '1',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/retrying in 250 ms: create item/);
      for (const lost of [14, 27]) {
        const first = proxy.log[lost - 1]!;
        expect(first.fate).toBe('answer lost');
        expect(first.replayed).toBe(false);
        const retry = proxy.log[lost]!;
        expect(retry.key).toBe(first.key);
        expect(retry.status).toBe(first.status);
        expect(retry.replayed).toBe(true);
      }
      expect(rows(brandId)).toEqual(SAMPLE_ROWS);
      expect(await shape(brandId)).toEqual(cleanShape);
    } finally {
      await proxy.close();
    }
  });

  // 2 reads and 2 scope probes, then the 39 writes (42 the sync, 43 the publish).
  it.each([7, 11, 16, 24, 33, 39, 41, 42, 43])(
    'network lost at request %i (its answer lost too), then resumed: same tree as one clean push',
    async (cut) => {
      const { brandId } = await freshBrand(s);
      const proxy = await startProxy(s.baseUrl);
      try {
        const file = sampleCopy();
        proxy.ctl.cutAfter = cut;
        proxy.ctl.loseAnswer = new Set([cut]);
        const argv = ['menu', 'push', file, '--brand', String(brandId), '--base-url', proxy.url];
        const broken = await cli(argv);
        expect(broken.code).toBe(7);
        expect(broken.stderr).toMatch(
          /Push stopped after \d+ of 39 steps, at: .*run the same command again to resume\./,
        );
        expect(broken.stderr).toMatch(/error: network: /);
        const { target } = stateOf(file)!;
        expect(target.run.id).toEqual(expect.any(String));

        proxy.ctl.cutAfter = Number.POSITIVE_INFINITY;
        proxy.ctl.loseAnswer = new Set();
        const resumed = await cli([...argv, '--json']);
        expect(resumed.code, resumed.stderr).toBe(0);
        const out = JSON.parse(resumed.stdout);
        expect(out.published.version).toBe(1);
        expect(rows(brandId)).toEqual(SAMPLE_ROWS);
        expect(await shape(brandId)).toEqual(cleanShape);
        // Nothing left to do, and the run is closed.
        const again = await cli(['menu', 'diff', file, '--brand', String(brandId), '--json']);
        expect(JSON.parse(again.stdout).steps).toBe(0);
      } finally {
        await proxy.close();
      }
    },
  );

  it('an item whose SKU appears after the tree was read is adopted and corrected, not duplicated', async () => {
    const { brandId } = await freshBrand(s);
    const proxy = await startProxy(s.baseUrl);
    try {
      let raced = false;
      // What a request of an earlier, killed push that was still in flight would do.
      proxy.ctl.before = async (e, body) => {
        if (raced || e.path !== '/v1/partner/menus/items' || !body.includes('"SKU-NU"')) return;
        raced = true;
        const r = await call(s, 'POST', '/v1/partner/menus/items', {
          body: {
            brand_id: brandId,
            title: 'Old uduk',
            partner_item_id: 'SKU-NU',
            prices: { 1: '1.00' },
            onlyModifier: false,
          },
        });
        expect(r.status).toBe(201);
      };
      const r = await cli([
        'menu',
        'push',
        sampleCopy(),
        '--brand',
        String(brandId),
        '--base-url',
        proxy.url,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(raced).toBe(true);
      // The item create refused, then the adopting PATCH (the scope probes before the writes aside).
      const writes = proxy.log.slice(4);
      expect(writes.filter((x) => x.status === 400)).toHaveLength(1);
      expect(writes.filter((x) => x.method === 'PATCH')).toHaveLength(1);
      expect(rows(brandId)).toEqual(SAMPLE_ROWS);
      expect(await shape(brandId)).toEqual(cleanShape);
    } finally {
      await proxy.close();
    }
  });

  it('a modifier group no item offers (its modifiers hidden from the tree) survives a lost state file', async () => {
    const { brandId } = await freshBrand(s);
    const text = readFileSync(SAMPLE, 'utf8').replace(
      'sections:\n',
      [
        '  - key: sauces',
        '    title: Sauces',
        '    min: 0',
        '    max: 2',
        '    modifiers:',
        '      - {key: sambal, title: Sambal, partner_item_id: MOD-SAMBAL, prices: {"1": "1000.00"}, description: Hot}',
        '      - {key: kecap, title: Kecap, partner_item_id: MOD-KECAP, prices: {"1": "500.00"}}',
        'sections:',
        '',
      ].join('\n'),
    );
    const file = sampleCopy(text);
    expect((await cli(['menu', 'push', file, '--brand', String(brandId)])).code).toBe(0);
    const expected = { ...SAMPLE_ROWS, items: 16, groups: 3 };
    expect(rows(brandId)).toEqual(expected);
    const tree = await brandTree(brandId);
    expect(tree.unlinked.modifierGroups.map((g: Json) => g.title)).toEqual(['Sauces']);
    // With its state, a re-push knows those modifiers are as the file says.
    expect(
      JSON.parse((await cli(['menu', 'diff', file, '--brand', String(brandId), '--json'])).stdout).steps,
    ).toBe(0);
    // Without it, the modifiers' SKUs are refused on create: the push adopts them, no duplicates.
    rmSync(stateOf(file)!.path);
    const r = await cli(['menu', 'push', file, '--brand', String(brandId), '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(rows(brandId)).toEqual(expected);
    const after = await brandTree(brandId);
    expect(normalise(after.unlinked.modifierGroups)).toEqual(normalise(tree.unlinked.modifierGroups));
    expect(
      JSON.parse((await cli(['menu', 'diff', file, '--brand', String(brandId), '--json'])).stdout).steps,
    ).toBe(0);
  });

  it('paces itself under the rate limit: not one 429, even starting from a nearly empty bucket', async () => {
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['brands:read', 'menus:read', 'menus:create', 'menus:update'],
      rateLimit: 600,
    });
    const { brandId } = await freshBrand(s);
    // Drain the bucket to a few tokens (however slowly this machine spends them): the push's 43
    // requests (2 reads, 2 scope probes, 39 writes) must then follow the 10/s refill.
    let remaining = 600;
    let seen = Date.now();
    for (let round = 0; round < 50 && remaining > 5; round++) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(60, remaining - 3) }, () =>
          call(s, 'GET', '/v1/partner/providers', { cred }),
        ),
      );
      seen = Date.now();
      remaining = Math.min(...answers.map((a) => Number(a.headers.get('ratelimit-remaining') ?? 600)));
    }
    expect(remaining).toBeLessThanOrEqual(5);
    const proxy = await startProxy(s.baseUrl);
    try {
      const r = await cli(
        ['menu', 'push', sampleCopy(), '--brand', String(brandId), '--base-url', proxy.url, '--json'],
        {
          env: { PARTNER_KEY: cred.key, PARTNER_SECRET: cred.secret },
        },
      );
      const ms = Date.now() - seen;
      expect(r.code, r.stderr).toBe(0);
      expect(proxy.log, JSON.stringify(proxy.log.map((e) => [e.method, e.path, e.status]))).toHaveLength(43);
      expect(proxy.log.filter((e) => e.status === 429)).toEqual([]);
      // No 429 and all 43 answered: at most `remaining` were there at once, the rest came at 10/s.
      expect(ms).toBeGreaterThanOrEqual(((43 - remaining) / 10) * 1000 - 100);
      expect(await shape(brandId)).toEqual(cleanShape);
    } finally {
      await proxy.close();
    }
  });

  it('the built binary killed with SIGKILL mid-push resumes without duplicates', async () => {
    if (!existsSync(join(root, 'dist/cli.js'))) {
      const b = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
      expect(b.status).toBe(0);
    }
    const { brandId } = await freshBrand(s);
    const proxy = await startProxy(s.baseUrl);
    proxy.ctl.delayMs = 15;
    try {
      const file = sampleCopy();
      const child = spawn(
        process.execPath,
        [bin, 'menu', 'push', file, '--brand', String(brandId), '--base-url', proxy.url],
        {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: tempDir('partner-home-'),
            PARTNER_CONFIG_DIR: configDir,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let err = '';
      const exited = new Promise<number | null>((r) => child.once('exit', (code, sig) => r(sig ? -1 : code)));
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (d) => {
          err += d;
          if ((err.match(/^\[/gm) ?? []).length >= 12) {
            child.kill('SIGKILL');
            resolve();
          }
        });
        child.once('exit', () => reject(new Error(`push ended before it was killed:\n${err}`)));
      });
      expect(await exited).toBe(-1);
      expect(rows(brandId).items).toBeLessThan(SAMPLE_ROWS.items);
      // Same base URL (so the same state entry and push run): requests the killed process had in
      // flight may land before or after the resumed ones; their Idempotency-Keys make them one.
      proxy.ctl.delayMs = 0;
      const resumed = await cli([
        'menu',
        'push',
        file,
        '--brand',
        String(brandId),
        '--base-url',
        proxy.url,
        '--json',
      ]);
      expect(
        resumed.code,
        `${resumed.stderr}\n${err}\n${JSON.stringify(await brandTree(brandId), null, 1)}`,
      ).toBe(0);
      expect(rows(brandId)).toEqual(SAMPLE_ROWS);
      expect(await shape(brandId)).toEqual(cleanShape);
    } finally {
      await proxy.close();
    }
  });

  it('Ctrl-C stops after the requests in flight, saves, exits 130; the next push finishes', async () => {
    const { brandId } = await freshBrand(s);
    const proxy = await startProxy(s.baseUrl);
    proxy.ctl.delayMs = 10;
    try {
      const file = sampleCopy();
      let stop!: (sig: string) => void;
      const stopped = new Promise<string>((r) => {
        stop = r;
      });
      let lines = 0;
      const r = await cli(['menu', 'push', file, '--brand', String(brandId), '--base-url', proxy.url], {
        untilStopped: () => stopped,
        onStderr: (chunk) => {
          lines += (chunk.match(/^\[/gm) ?? []).length;
          if (lines === 6) stop('SIGINT');
        },
      });
      expect(r.code).toBe(130);
      expect(r.stderr).toMatch(/Interrupted after \d+ of 39 steps\./);
      expect(rows(brandId).sections).toBe(2);
      const resumed = await cli(['menu', 'push', file, '--brand', String(brandId)]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await shape(brandId)).toEqual(cleanShape);
      expect(cleanBrand).not.toBe(brandId);
    } finally {
      await proxy.close();
    }
  });
});
