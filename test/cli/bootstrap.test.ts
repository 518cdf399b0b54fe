import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatOpeningHours } from '../../src/cli/commands/bootstrap-run.js';
import { openProfiles } from '../../src/cli/profiles.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { fakePrompter, profileDir, runCli } from './run-cli.js';

// `partner bootstrap` against the real server (demo seed), in-process, TTY on and off.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
});
afterAll(async () => {
  await s?.close();
});

const localProfile = (cred: { key: string; secret: string } = s.credential) =>
  profileDir(s.baseUrl, cred, 'partner-boot-cfg-');

const envFor = (cred: { key: string; secret: string }) => ({
  PARTNER_KEY: cred.key,
  PARTNER_SECRET: cred.secret,
  PARTNER_BASE_URL: s.baseUrl,
});

describe('formatOpeningHours', () => {
  const day = (start: number, end: number, disabled = false) => ({
    ...(disabled ? { disabled: true } : {}),
    slots: [{ startTime: start, endTime: end }],
  });
  it('groups days with the same hours, Monday first, and lists closed days', () => {
    const t = {
      '0': day(800, 2300),
      '1': day(700, 2200),
      '2': day(700, 2200),
      '3': day(700, 2200, true),
      '4': day(700, 2200),
      '5': day(700, 2200),
      '6': day(800, 2300),
    };
    expect(formatOpeningHours(t)).toBe('Mon–Tue, Thu–Fri 07:00–22:00, Sat–Sun 08:00–23:00; closed Wed');
  });
  it('says daily when every day is the same, and reads split shifts and snake_case slots', () => {
    const same = Object.fromEntries([0, 1, 2, 3, 4, 5, 6].map((d) => [String(d), day(1000, 2130)]));
    expect(formatOpeningHours(same)).toBe('daily 10:00–21:30');
    const split = {
      ...same,
      '1': {
        slots: [
          { start_time: 1000, end_time: 1500 },
          { start_time: 1700, end_time: 2200 },
        ],
      },
    };
    expect(formatOpeningHours(split)).toBe('Mon 10:00–15:00 & 17:00–22:00, Tue–Sun 10:00–21:30');
    expect(formatOpeningHours({ ...same, '0': day(0, 2359) })).toBe('Mon–Sat 10:00–21:30, Sun 24 h');
  });
  it('null without a schedule; closed every day when every day is dark', () => {
    expect(formatOpeningHours(undefined)).toBeNull();
    const dark = Object.fromEntries([0, 1, 2, 3, 4, 5, 6].map((d) => [String(d), day(900, 1700, true)]));
    expect(formatOpeningHours(dark)).toBe('closed every day');
  });
});

describe('bootstrap --json', () => {
  it('prints one object: business, brands, branches with readable hours, providers, 11 statuses, no missing scope', async () => {
    const r = await runCli(['bootstrap', '--json'], { configDir: localProfile() });
    expect(r.code, r.stderr).toBe(0);
    const found = JSON.parse(r.stdout);
    expect(found.business).toMatchObject({ id: s.credential.businessId, title: 'PT Kopi Kita Nusantara' });
    const brands = (await call(s, 'GET', '/v1/partner/brands')).body.data[0].brands;
    expect(found.brands).toEqual(brands);
    const branches = (await call(s, 'GET', '/v1/partner/branches?size=100')).body.data.results;
    expect(found.branches.map((b: { id: number }) => b.id)).toEqual(
      branches.map((b: { id: number }) => b.id),
    );
    for (const b of found.branches) expect(b.opening_hours).toMatch(/\d\d:\d\d–\d\d:\d\d/);
    const byTitle = Object.fromEntries(
      found.branches.map((b: { title: string; opening_hours: string }) => [b.title, b.opening_hours]),
    );
    expect(byTitle['Kopi Kita Dago']).toBe('Tue–Sun 08:00–21:00; closed Mon');
    expect(byTitle['Kopi Kita Senopati']).toBe('Mon–Thu, Sun 07:00–22:00, Fri–Sat 07:00–23:00');
    expect(found.providers.length).toBeGreaterThan(0);
    expect(found.providers[0]).toMatchObject({ id: expect.any(Number), title: expect.any(String) });
    expect(found.statuses).toHaveLength(11);
    expect(found.statuses.map((x: { status: string }) => x.status)).toContain('DRIVER ASSIGNED');
    expect(found.scopes.missing).toEqual([]);
    expect(found.scopes.unknown).toEqual([]);
    expect(found.scopes.checked.map((c: { scope: string }) => c.scope)).toEqual(
      expect.arrayContaining(['brands:read', 'orders:read', 'orders:update', 'menus:create', 'menus:update']),
    );
    expect(found).toMatchObject({ profile: 'local', base_url: s.baseUrl, key: s.credential.key, errors: {} });
    expect(JSON.stringify(found)).not.toContain(s.credential.secret);
  });

  it('lists the scopes a limited credential lacks, and probing writes changes nothing', async () => {
    const limited = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['brands:read', 'orders:read'],
    });
    const before = (await call(s, 'GET', '/v1/partner/menus')).body.data;
    const r = await runCli(['bootstrap', '--json'], { env: envFor(limited) });
    expect(r.code, r.stderr).toBe(0);
    const found = JSON.parse(r.stdout);
    expect(found.scopes.missing.sort()).toEqual(
      ['menus:create', 'menus:oos', 'menus:read', 'menus:update', 'orders:update', 'webhooks:read'].sort(),
    );
    expect(found.profile).toBeNull();
    expect(found.brands.length).toBe(2);
    expect(found.statuses).toHaveLength(11);
    // The full credential's probes got 400s: the business tree is as it was.
    const full = await runCli(['bootstrap', '--json'], { env: envFor(s.credential) });
    expect(JSON.parse(full.stdout).scopes.missing).toEqual([]);
    expect((await call(s, 'GET', '/v1/partner/menus')).body.data).toEqual(before);
  });

  it('without brands:read: no business, the read failure reported, the missing scopes listed', async () => {
    const ordersOnly = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['orders:read'],
    });
    const r = await runCli(['bootstrap', '--json'], { env: envFor(ordersOnly) });
    expect(r.code, r.stderr).toBe(0);
    const found = JSON.parse(r.stdout);
    expect(found.business).toBeNull();
    expect(found.brands).toEqual([]);
    expect(found.scopes.missing).toEqual(expect.arrayContaining(['brands:read', 'orders:update']));
    expect(found.scopes.missing).not.toContain('orders:read');
    expect(found.errors.brands).toMatch(/^auth_forbidden/);
    expect(found.statuses).toHaveLength(11); // the dictionary needs no scope
  });

  it('a wrong secret exits 3', async () => {
    const r = await runCli(['bootstrap', '--json'], {
      env: envFor({ key: s.credential.key, secret: 'sk_wrong' }),
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('auth_invalid_credential');
  });
});

describe('bootstrap for a person', () => {
  it('without a terminal: plain sections, no prompt, a hint for the defaults', async () => {
    const configDir = localProfile();
    const r = await runCli(['bootstrap'], { configDir, prompter: fakePrompter() });
    expect(r.code, r.stderr).toBe(0);
    for (const h of [
      'Credential',
      'Scopes',
      'Business',
      'Brands (2)',
      'Branches (3)',
      'Providers',
      'Order statuses (11)',
    ])
      expect(r.stdout).toContain(h);
    expect(r.stdout).toContain('Tue–Sun 08:00–21:00; closed Mon');
    expect(r.stdout).toContain('partner bootstrap --brand ID --branch ID');
    expect(r.stdout).not.toMatch(/\u001b\[/);
    expect(openProfiles({ configDir }).get('local')?.default_brand_id).toBeUndefined();
  });

  it('on a terminal: offers to save a default brand and branch on the profile (prompter)', async () => {
    const configDir = localProfile();
    const prompter = fakePrompter([true, '2', '3']);
    const r = await runCli(['bootstrap'], { configDir, tty: true, prompter, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(prompter.calls.map((c) => c.kind)).toEqual(['confirm', 'select', 'select']);
    expect(prompter.calls[0]!.message).toContain('profile "local"');
    const p = openProfiles({ configDir }).get('local');
    expect(p).toMatchObject({ default_brand_id: 2, default_branch_id: 3, key: s.credential.key });
    expect(p?.secret).toBe(s.credential.secret);
    expect(r.stdout).toContain('Saved on profile local: default brand 2, default branch 3');
  });

  it('on a terminal, declining saves nothing', async () => {
    const configDir = localProfile();
    const prompter = fakePrompter([false]);
    const r = await runCli(['bootstrap'], { configDir, tty: true, prompter });
    expect(r.code).toBe(0);
    expect(openProfiles({ configDir }).get('local')?.default_brand_id).toBeUndefined();
  });

  it('--brand/--branch save without prompting, on or off a terminal', async () => {
    for (const tty of [false, true]) {
      const configDir = localProfile();
      const r = await runCli(['bootstrap', '--brand', '1', '--branch', '2', '--json'], {
        configDir,
        tty,
        prompter: fakePrompter(),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).defaults).toEqual({ brand_id: 1, branch_id: 2 });
      expect(openProfiles({ configDir }).get('local')).toMatchObject({
        default_brand_id: 1,
        default_branch_id: 2,
      });
    }
  });

  it('--branch of another business is a usage error (exit 2), and nothing is saved', async () => {
    const configDir = localProfile();
    const theirs = (await call(s, 'GET', '/v1/partner/branches', { cred: s.other })).body.data.results[0].id;
    const r = await runCli(['bootstrap', '--branch', String(theirs)], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--branch ${theirs}`);
    expect(openProfiles({ configDir }).get('local')?.default_branch_id).toBeUndefined();
  });

  it('--brand with a credential from the environment has no profile to save on (exit 2)', async () => {
    const r = await runCli(['bootstrap', '--brand', '1'], { env: envFor(s.credential) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no profile to save defaults on');
  });
});
