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
