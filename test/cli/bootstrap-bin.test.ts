import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ensureBuilt, partnerBin } from './bin-cli.js';
import { profileDir } from './run-cli.js';

// `partner bootstrap --brand/--branch` with the credential in PARTNER_KEY/PARTNER_SECRET, through
// the binary: the credential has no profile, so there is nowhere to save defaults (docs/flows.md):
// exit 2, and the default profile (another credential, perhaps of another business) is untouched.

let s: TestServer;
beforeAll(async () => {
  ensureBuilt();
  s = await startTestServer({ seed: 'demo' });
});
afterAll(async () => {
  await s?.close();
});

describe('bootstrap with PARTNER_KEY/PARTNER_SECRET', () => {
  it('--brand/--branch is a usage error and saves nothing on the default profile', async () => {
    // The default profile is business 1's; the environment holds business 2's credential.
    const configDir = profileDir(s.baseUrl, s.credential);
    const before = readFileSync(join(configDir, 'config.json'), 'utf8');
    const brand = Number(
      (
        await s.rows<{ id: number }>(
          'SELECT id FROM brands WHERE business_id = ? ORDER BY id',
          s.other.businessId,
        )
      )[0]!.id,
    );
    const env = { PARTNER_KEY: s.other.key, PARTNER_SECRET: s.other.secret };
    const r = await partnerBin(['bootstrap', '--brand', String(brand)], { configDir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: the credential comes from PARTNER_KEY\/PARTNER_SECRET/);
    expect(r.stdout).not.toMatch(/Saved/);
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(before);
  });

  it('without --brand/--branch it reports, and says nothing of the profile it does not use', async () => {
    const configDir = profileDir(s.baseUrl, s.credential);
    const env = { PARTNER_KEY: s.other.key, PARTNER_SECRET: s.other.secret };
    const r = await partnerBin(['bootstrap'], { configDir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/on the profile|on profile local/);
  });
});
