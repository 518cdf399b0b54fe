import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/contract/scopes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fakePrompter, profileDir, runCli, tempDir } from './run-cli.js';

// `partner auth status` and `partner auth login` in-process against the real server: what the
// status finds (validity, business, rate limit, scopes, flows), that finding it changes nothing,
// the exit codes, and login's checks before it saves (flags, prompts, refusals).

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
});
afterAll(async () => {
  await s?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: JSON output of the command
type Json = any;

const status = async (configDir: string, extra: string[] = [], env: Record<string, string> = {}) => {
  const r = await runCli(['auth', 'status', '--json', ...extra], { configDir, env });
  return { ...r, json: r.stdout ? (JSON.parse(r.stdout) as Json) : undefined };
};

/** Row counts of every table: a status check must leave all of them as they were. */
function tableCounts(): Record<string, number> {
  const db = s.server.services.db;
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as { name: string }[];
  return Object.fromEntries(
    tables.map((t) => [
      t.name,
      (db.prepare(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n,
    ]),
  );
}

describe('auth status', () => {
  it('a full-scope credential: valid, its business, rate limit, every scope held or explained, flows ready; nothing written', async () => {
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: [...SCOPES],
      rateLimit: 900,
    });
    const configDir = profileDir(s.baseUrl, cred);
    const before = tableCounts();
    const r = await status(configDir);
    expect(r.code, r.stderr).toBe(0);
    expect(tableCounts()).toEqual(before);
    const j = r.json;
    expect(j).toMatchObject({
      profile: 'local',
      base_url: s.baseUrl,
      key: cred.key,
      secret_storage: 'file',
      valid: true,
      business: { id: s.credential.businessId, title: expect.any(String) },
      rate_limit: { limit: 900, remaining: 899 },
    });
    expect(j.secret).toMatch(/^sk_…/);
    expect(r.stdout).not.toContain(cred.secret);
    // Two scopes share their operations with another held scope: reported as such, not guessed.
    expect(j.scopes.missing).toEqual([]);
    expect(j.scopes.unknown).toEqual(['branches:read', 'stock:update']);
    expect([...j.scopes.granted].sort()).toEqual(
      SCOPES.filter((x) => x !== 'branches:read' && x !== 'stock:update').sort(),
    );
    expect(j.scopes.checked.find((c: Json) => c.scope === 'stock:update').note).toBe(
      'menus:oos grants the same calls',
    );
    expect(j.flows.map((f: Json) => [f.name, f.ready, f.limited])).toEqual([
      ['bootstrap', true, []],
      ['orders watch', true, []],
      ['menu push', true, []],
    ]);
  });

  it('a narrow credential: what is missing, and what each guided flow needs', async () => {
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: ['orders:read', 'menus:read', 'branches:read'],
    });
    const r = await status(profileDir(s.baseUrl, cred));
    expect(r.code).toBe(0);
    // Without brands:read the branch list tells branches:read apart, and names the business.
    expect(r.json.scopes.granted).toEqual(['branches:read', 'menus:read', 'orders:read']);
    expect(r.json.scopes.unknown).toEqual([]);
    expect(r.json.business.id).toBe(s.credential.businessId);
    const flows = Object.fromEntries(r.json.flows.map((f: Json) => [f.name, f]));
    expect(flows.bootstrap).toMatchObject({ ready: false, missing: ['brands:read'] });
    expect(flows['orders watch']).toMatchObject({
      ready: true,
      limited: [{ scope: 'orders:update', for: 'changing statuses and comments' }],
    });
    expect(flows['menu push']).toMatchObject({ ready: false, missing: ['menus:create', 'menus:update'] });

    const piped = await runCli(['auth', 'status'], { configDir: profileDir(s.baseUrl, cred) });
    expect(piped.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'valid\ttrue',
        'secret\tfile',
        'scopes_granted\tbranches:read,menus:read,orders:read',
        'bootstrap\tmissing brands:read',
        'menu_push\tmissing menus:create, menus:update',
      ]),
    );
    const tty = await runCli(['auth', 'status', '--no-color'], {
      configDir: profileDir(s.baseUrl, cred),
      tty: true,
    });
    expect(tty.stdout).toMatch(/^Credential {2}valid · business \d+ "/m);
    expect(tty.stdout).toMatch(/^Flows {7}bootstrap {4}missing brands:read$/m);
    expect(tty.stdout).toMatch(/^Secret {6}file \(0600\) .*config\.json · sk_…/m);
  });

  it('a wrong secret or a revoked credential: exit 3, said on stderr, and in --json as valid:false', async () => {
    const cred = await s.issueCredential({ businessId: s.credential.businessId, scopes: ['orders:read'] });
    const wrong = profileDir(s.baseUrl, { key: cred.key, secret: 'sk_NotTheSecret_000000000000' });
    const human = await runCli(['auth', 'status'], { configDir: wrong });
    expect(human.code).toBe(3);
    expect(human.stdout).toContain('valid\tfalse\nerror\tauth_invalid_credential: ');
    expect(human.stderr).toMatch(/^error: auth_invalid_credential: /);
    expect(human.stderr).toMatch(/hint: the key or secret of profile "local" is wrong/);
    const json = await status(wrong);
    expect(json.code).toBe(3);
    expect(json.json).toMatchObject({ valid: false, error: { code: 'auth_invalid_credential' } });
    expect(json.stderr).toBe('');

    await s.operator('POST', `/v1/operator/credentials/${cred.key}/revoke`);
    const revoked = await status(profileDir(s.baseUrl, cred));
    expect(revoked.code).toBe(3);
    expect(revoked.json.error.code).toBe('auth_revoked');
  });

  it('PARTNER_KEY/PARTNER_SECRET: no profile, the secret from the environment', async () => {
    const r = await status(tempDir(), [], {
      PARTNER_KEY: s.credential.key,
      PARTNER_SECRET: s.credential.secret,
      PARTNER_BASE_URL: s.baseUrl,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ profile: null, secret_storage: 'env', valid: true });
  });

  it('a credential near its limit is not probed: one request, and it says why', async () => {
    const cred = await s.issueCredential({
      businessId: s.credential.businessId,
      scopes: [...SCOPES],
      rateLimit: 10,
    });
    const before = tableCounts();
    const r = await status(profileDir(s.baseUrl, cred));
    expect(r.code).toBe(0);
    expect(r.json.rate_limit).toMatchObject({ limit: 10, remaining: 9 });
    expect(r.json.scopes.not_checked).toMatch(
      /^only 9 requests left this minute and the check takes 16; run it again/,
    );
    expect(r.json.scopes.unknown).toHaveLength(16);
    expect(r.json.flows.every((f: Json) => f.ready === null)).toBe(true);
    // The one request spent one token: the next answer still shows 8 left.
    const again = await status(profileDir(s.baseUrl, cred));
    expect(again.json.rate_limit.remaining).toBe(8);
    expect(tableCounts()).toEqual(before);
  });

  it('no server at the URL: exit 7; no credential at all: exit 2', async () => {
    const down = await runCli(['auth', 'status'], {
      configDir: profileDir('http://127.0.0.1:1', s.credential),
    });
    expect(down.code).toBe(7);
    expect(down.stderr).toMatch(/^error: network: cannot reach http:\/\/127\.0\.0\.1:1/);
    const none = await runCli(['auth', 'status'], { configDir: tempDir() });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: no credential: /);
  });
});

describe('auth login', () => {
  const stored = (configDir: string) =>
    JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as { default?: string; profiles: Json };

  it('with flags (no terminal): checks the credential, saves it, and the profile works', async () => {
    const configDir = tempDir();
    const r = await runCli(
      [
        'auth',
        'login',
        '--name',
        'main',
        '--key',
        s.credential.key,
        '--secret',
        '-',
        '--base-url',
        `${s.baseUrl}/`,
      ],
      { configDir, stdin: `${s.credential.secret}\n` },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `^Logged in to ${s.baseUrl} as ${s.credential.key} \\(business ${s.credential.businessId} ".+"\\)\\.\n`,
      ),
    );
    expect(r.stderr).toMatch(/^Saved profile main \(key .*, secret sk_…\S{4}\) as the default to /m);
    expect(r.stderr).toMatch(
      /^secret: file \(0600\) .*; no OS keyring here: turned off by PARTNER_KEYRING=off$/m,
    );
    expect(r.stderr + r.stdout).not.toContain(s.credential.secret);
    expect(stored(configDir)).toEqual({
      default: 'main',
      profiles: { main: { base_url: s.baseUrl, key: s.credential.key, secret: s.credential.secret } },
    });
    expect((await runCli(['brands', 'list'], { configDir })).code).toBe(0);
  });

  it('without a terminal every missing input is named at once (exit 2), and nothing is saved', async () => {
    const configDir = tempDir();
    const r = await runCli(['auth', 'login', '--key', 'pk_x'], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: auth login: missing --name, --base-url (or PARTNER_BASE_URL), --secret (or --secret - to read stdin, or PARTNER_SECRET); there is no terminal to ask on\n',
    );
    expect(existsSync(join(configDir, 'config.json'))).toBe(false);
    const badUrl = await runCli(
      ['auth', 'login', '--name', 'n', '--key', 'k', '--secret', 's', '--base-url', 'ftp://x'],
      { configDir },
    );
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toBe('error: --base-url: use an http(s) URL ("ftp://x")\n');
    const badName = await runCli(
      ['auth', 'login', '--name', '../up', '--key', 'k', '--secret', 's', '--base-url', s.baseUrl],
      { configDir },
    );
    expect(badName.code).toBe(2);
    expect(badName.stderr).toMatch(/^error: --name: invalid profile name "\.\.\/up"/);
  });

  it('a secret the server refuses: exit 3, "Nothing was saved", the profiles untouched', async () => {
    const configDir = profileDir(s.baseUrl, s.credential);
    const before = readFileSync(join(configDir, 'config.json'), 'utf8');
    const r = await runCli(
      [
        'auth',
        'login',
        '--name',
        'local',
        '--key',
        s.credential.key,
        '--secret',
        'sk_wrong',
        '--base-url',
        s.baseUrl,
      ],
      { configDir },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      new RegExp(
        `^Nothing was saved: the server at ${s.baseUrl} did not accept key ${s.credential.key}\\.\nerror: auth_invalid_credential: `,
      ),
    );
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(before);
    const down = await runCli(
      ['auth', 'login', '--name', 'x', '--key', 'k', '--secret', 's', '--base-url', 'http://127.0.0.1:1'],
      { configDir },
    );
    expect(down.code).toBe(7);
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(before);
  });

  it('on a terminal it asks for name, base URL, key and the hidden secret, then for default and replace', async () => {
    const configDir = tempDir();
    const prompter = fakePrompter(['first', s.baseUrl, s.credential.key, s.credential.secret]);
    const r = await runCli(['auth', 'login'], { configDir, tty: true, prompter });
    expect(r.code, r.stderr).toBe(0);
    expect(prompter.calls).toEqual([
      { kind: 'input', message: 'Profile name:' },
      { kind: 'input', message: 'Base URL:' },
      { kind: 'input', message: 'Partner key (pk_…):' },
      { kind: 'password', message: 'Partner secret (hidden):' },
    ]);
    expect(stored(configDir).profiles.first.secret).toBe(s.credential.secret);

    // A second profile: asked whether it becomes the default (yes).
    const second = fakePrompter(['second', s.baseUrl, s.other.key, s.other.secret, true]);
    expect((await runCli(['auth', 'login'], { configDir, tty: true, prompter: second })).code).toBe(0);
    expect(second.calls.at(-1)).toEqual({
      kind: 'confirm',
      message: 'Make second the default profile (now first)?',
    });
    expect(stored(configDir).default).toBe('second');

    // Logging in again as "first" asks before replacing it; no leaves it as it was.
    const before = readFileSync(join(configDir, 'config.json'), 'utf8');
    const declined = fakePrompter([false]);
    const r3 = await runCli(
      [
        'auth',
        'login',
        '--name',
        'first',
        '--key',
        s.credential.key,
        '--secret',
        s.credential.secret,
        '--base-url',
        s.baseUrl,
      ],
      { configDir, tty: true, prompter: declined },
    );
    expect(r3.code).toBe(1);
    expect(declined.calls).toEqual([
      { kind: 'confirm', message: `Replace profile first (key ${s.credential.key} at ${s.baseUrl})?` },
    ]);
    expect(r3.stderr).toBe('Cancelled.\n');
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(before);
  });

  it('logging in again with the same key keeps the default brand and branch; --no-default keeps the default', async () => {
    const configDir = tempDir();
    const flags = ['--key', s.credential.key, '--secret', s.credential.secret, '--base-url', s.baseUrl];
    expect((await runCli(['auth', 'login', '--name', 'a', ...flags], { configDir })).code).toBe(0);
    expect(
      (
        await runCli(['profiles', 'add', 'b', ...flags, '--default-brand', '7', '--default-branch', '9'], {
          configDir,
        })
      ).code,
    ).toBe(0);
    const again = await runCli(['auth', 'login', '--name', 'b', '--no-default', '--json', ...flags], {
      configDir,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ name: 'b', default: false, default_brand_id: 7 });
    expect(stored(configDir).profiles.b).toMatchObject({ default_brand_id: 7, default_branch_id: 9 });
    expect(stored(configDir).default).toBe('a');
  });
});
