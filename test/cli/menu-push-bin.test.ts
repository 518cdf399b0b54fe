import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshBrand } from '../server/menus-helpers.js';
import { ensureBuilt, partnerBin } from './bin-cli.js';
import { profileDir, tempDir } from './run-cli.js';

// `partner menu push` / `menu diff` as a person runs them (the built binary) against a real
// server: what the plan says before anything is written, and what a push refuses to start.

const root = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = join(root, 'docs/examples/menu.sample.yaml');

let s: TestServer;

beforeAll(async () => {
  ensureBuilt();
  s = await startTestServer({ seed: 'demo', rateLimit: 1_000_000 });
});
afterAll(async () => {
  await s?.close();
});

function sampleCopy(): string {
  const file = join(tempDir('partner-menu-'), 'menu.yaml');
  copyFileSync(SAMPLE, file);
  return file;
}

describe('menu diff and --dry-run say the calls and the time at the rate limit', () => {
  it('at 20/min: 39 write calls, about 1 min (19 tokens left after the read)', async () => {
    const { brandId } = await freshBrand(s);
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['menus:read', 'brands:read'],
      rateLimit: 20,
    });
    const configDir = profileDir(s.baseUrl, cred);
    const file = sampleCopy();
    const diff = await partnerBin(['menu', 'diff', file, '--brand', String(brandId)], { configDir });
    expect(diff.code, diff.stderr).toBe(0);
    const lines = diff.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/: 39 write calls, about 1 min at 20\/min$/);
    // The summary line, where a long plan ends: the same numbers.
    expect(lines.at(-1)).toMatch(/^create .*; unchanged: .*; 39 write calls, about 1 min at 20\/min$/);
  });

  it('a bucket the push fits in says so', async () => {
    const { brandId } = await freshBrand(s);
    const configDir = profileDir(s.baseUrl, s.credential);
    const dry = await partnerBin(['menu', 'push', sampleCopy(), '--brand', String(brandId), '--dry-run'], {
      configDir,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /; 39 write calls, within the rate limit \(1,000,000\/min\)$/,
    );
  });
});

/** Rows the brand has in the business-level menu (what a push writes). */
async function rows(brandId: number) {
  const n = async (table: string) =>
    Number(
      (await s.rows<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE brand_id = ?`, brandId))[0]!.n,
    );
  return { sections: await n('menu_sections'), items: await n('menu_items') };
}

describe('a push checks its targets and the scopes before the first write', () => {
  it('--branch naming no branch of the business: exit 4 naming the flag, nothing written', async () => {
    const { brandId } = await freshBrand(s);
    const configDir = profileDir(s.baseUrl, s.credential);
    const r = await partnerBin(
      ['menu', 'push', sampleCopy(), '--brand', String(brandId), '--branch', '99', '--yes'],
      {
        configDir,
      },
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/error: resource_not_found: --branch 99: no branch 99 in business 1/);
    expect(await rows(brandId)).toEqual({ sections: 0, items: 0 });
  });

  it('--branch naming a branch that does not carry the brand: exit 2, nothing written', async () => {
    const { brandId, branches } = await freshBrand(s);
    const list = (
      await s.rows<{ id: number }>('SELECT id FROM branches WHERE business_id = ? ORDER BY id', 1)
    ).map((b) => Number(b.id));
    const other = list.find((id) => !branches.includes(id))!;
    const configDir = profileDir(s.baseUrl, s.credential);
    const r = await partnerBin(
      ['menu', 'push', sampleCopy(), '--brand', String(brandId), '--branch', String(other), '--yes'],
      { configDir },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--branch ${other}: branch ${other} does not carry brand ${brandId}`);
    expect(await rows(brandId)).toEqual({ sections: 0, items: 0 });
  });

  it('a credential without menus:update: exit 3 naming the scope, nothing written, no resume hint', async () => {
    const { brandId } = await freshBrand(s);
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['menus:read', 'menus:create', 'brands:read'],
    });
    const r = await partnerBin(['menu', 'push', sampleCopy(), '--brand', String(brandId), '--yes'], {
      configDir: profileDir(s.baseUrl, cred),
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /error: auth_forbidden: the credential lacks menus:update, which .* nothing was written/,
    );
    expect(r.stderr).not.toMatch(/resume/);
    expect(await rows(brandId)).toEqual({ sections: 0, items: 0 });
  });
});

describe('a push that stopped before publishing is finished by the next push of the brand', () => {
  // Three pushes by the binary: bounded generously, the machine may be busy.
  it('--branch 99 unchecked (no branch read scope) stops at the sync; the push without --branch publishes', {
    timeout: 90_000,
  }, async () => {
    const { brandId } = await freshBrand(s);
    // Without brands:read the branches cannot be read beforehand: the server refuses at the sync.
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['menus:read', 'menus:create', 'menus:update'],
    });
    const configDir = profileDir(s.baseUrl, cred);
    const file = sampleCopy();
    const bad = await partnerBin(
      ['menu', 'push', file, '--brand', String(brandId), '--branch', '99', '--yes'],
      {
        configDir,
      },
    );
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(
      /Push stopped after 37 of 39 steps, at: sync brand \d+ to branches 99: resource_not_found/,
    );
    // A 404 is not fixed by running the same command again: no resume hint for it.
    expect(bad.stderr).not.toMatch(/run the same command again to resume/);
    expect(bad.stderr).toMatch(/Running it again meets the same refusal until its cause \(below\) is fixed/);

    const good = await partnerBin(['menu', 'push', file, '--brand', String(brandId), '--yes'], { configDir });
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/^Published version \d+ to branches /m);
    const published = await s.rows<{ n: number }>(
      'SELECT count(*) AS n FROM menu_snapshots WHERE brand_id = ?',
      brandId,
    );
    expect(Number(published[0]!.n)).toBeGreaterThan(0);
    // Finished: the next push has nothing to do.
    const again = await partnerBin(['menu', 'push', file, '--brand', String(brandId), '--yes'], {
      configDir,
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Up to date: /);
  });
});
