import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { type CliResult, fakePrompter, runCli, tempDir } from './run-cli.js';

// `partner profiles …` in-process: secrets from every source, masking everywhere, file mode,
// the no-TTY rule, and that a stored profile is what API commands then use.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
});
afterAll(async () => {
  await s?.close();
});

const SECRET = 'sk_ThisIsTheSecretValue_0123456789abcd';
const WEBHOOK = 'whsec_AnotherSecretValue_9876543210';

function expectNoSecret(results: CliResult[], ...secrets: string[]) {
  for (const r of results) {
    for (const secret of secrets) {
      expect(r.stdout).not.toContain(secret);
      expect(r.stderr).not.toContain(secret);
    }
  }
}

describe('profiles', () => {
  it('add · list · show · use · remove, secrets masked in every output', async () => {
    const configDir = tempDir();
    const cli = (argv: string[], o: Parameters<typeof runCli>[1] = {}) => runCli(argv, { configDir, ...o });
    const out: CliResult[] = [];
    const add = await cli([
      'profiles',
      'add',
      'prod',
      '--key',
      'pk_prod',
      '--secret',
      SECRET,
      '--base-url',
      'https://api.example.com',
      '--webhook-secret',
      WEBHOOK,
    ]);
    out.push(add);
    expect(add.code).toBe(0);
    expect(add.stderr).toMatch(/Saved profile prod .*sk_…abcd/);
    const add2 = await cli([
      'profiles',
      'add',
      'local',
      '--key',
      'pk_local',
      '--secret',
      SECRET,
      '--base-url',
      'http://127.0.0.1:8787',
      '--json',
    ]);
    out.push(add2);
    expect(JSON.parse(add2.stdout)).toMatchObject({
      name: 'local',
      secret: 'sk_…abcd',
      default: false,
      storage: 'file',
    });

    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.prod.secret).toBe(SECRET);

    const listTty = await cli(['profiles', 'list', '--no-color'], { tty: true });
    out.push(listTty);
    expect(listTty.stdout).toMatch(/\*\s+prod/);
    expect(listTty.stdout).toContain('storage: file');
    const listJson = await cli(['profiles', 'list', '--json']);
    out.push(listJson);
    expect(
      JSON.parse(listJson.stdout).map((p: { name: string; default: boolean }) => [p.name, p.default]),
    ).toEqual([
      ['local', false],
      ['prod', true],
    ]);
    const listPlain = await cli(['profiles', 'list']);
    out.push(listPlain);
    expect(listPlain.stdout.split('\n')[1]).toBe(
      'prod\thttps://api.example.com\tpk_prod\tsk_…abcd\tdefault\tfile',
    );

    const show = await cli(['profiles', 'show', 'prod', '--json']);
    out.push(show);
    expect(JSON.parse(show.stdout)).toMatchObject({
      key: 'pk_prod',
      secret: 'sk_…abcd',
      webhook_secret: 'whsec_…3210',
    });
    out.push(await cli(['profiles', 'show'], { tty: true }));
    out.push(await cli(['profiles', 'show', 'prod', '--verbose']));

    const use = await cli(['profiles', 'use', 'local']);
    expect(use.code).toBe(0);
    expect(JSON.parse((await cli(['profiles', 'show', '--json'])).stdout).name).toBe('local');
    expect((await cli(['profiles', 'use', 'nope'])).code).toBe(2);

    const noYes = await cli(['profiles', 'remove', 'prod']);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toMatch(/--yes/);
    expect((await cli(['profiles', 'remove', 'prod', '--yes'])).code).toBe(0);
    expect(
      JSON.parse((await cli(['profiles', 'list', '--json'])).stdout).map((p: { name: string }) => p.name),
    ).toEqual(['local']);
    expectNoSecret(out, SECRET, WEBHOOK);
  });

  it('takes the secret from stdin with --secret -, from PARTNER_SECRET, or a hidden prompt on a TTY', async () => {
    const configDir = tempDir();
    const base = ['--base-url', 'http://127.0.0.1:1'];
    const viaStdin = await runCli(['profiles', 'add', 'a', '--key', 'pk_a', '--secret', '-', ...base], {
      configDir,
      stdin: `${SECRET}\n`,
    });
    expect(viaStdin.code).toBe(0);
    const viaEnv = await runCli(['profiles', 'add', 'b', '--key', 'pk_b', ...base], {
      configDir,
      env: { PARTNER_SECRET: SECRET },
    });
    expect(viaEnv.code).toBe(0);
    const prompter = fakePrompter([SECRET]);
    const viaPrompt = await runCli(['profiles', 'add', 'c', '--key', 'pk_c', ...base], {
      configDir,
      tty: true,
      prompter,
    });
    expect(viaPrompt.code).toBe(0);
    expect(prompter.calls).toEqual([{ kind: 'password', message: 'Partner secret (hidden):' }]);
    const stored = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles;
    expect([stored.a.secret, stored.b.secret, stored.c.secret]).toEqual([SECRET, SECRET, SECRET]);
    expectNoSecret([viaStdin, viaEnv, viaPrompt], SECRET);
  });

  it('without a TTY a missing input is exit 2 naming the flag', async () => {
    const configDir = tempDir();
    const noSecret = await runCli(
      ['profiles', 'add', 'x', '--key', 'pk_x', '--base-url', 'http://127.0.0.1:1'],
      { configDir },
    );
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/missing required flag --secret/);
    const noKey = await runCli(
      ['profiles', 'add', 'x', '--secret', 's', '--base-url', 'http://127.0.0.1:1'],
      { configDir },
    );
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/missing required flag --key/);
    const noUrl = await runCli(['profiles', 'add', 'x', '--key', 'k', '--secret', 's'], { configDir });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/--base-url/);
    expect(
      (await runCli(['profiles', 'add', '../x', '--key', 'k', '--secret', 's'], { configDir })).code,
    ).toBe(2);
  });

  it('a stored profile drives API commands; --profile and PARTNER_PROFILE choose one', async () => {
    const configDir = tempDir();
    const cli = (argv: string[], o: Parameters<typeof runCli>[1] = {}) => runCli(argv, { configDir, ...o });
    await cli([
      'profiles',
      'add',
      'good',
      '--key',
      s.credential.key,
      '--secret',
      s.credential.secret,
      '--base-url',
      s.baseUrl,
    ]);
    await cli([
      'profiles',
      'add',
      'bad',
      '--key',
      s.credential.key,
      '--secret',
      'sk_wrong',
      '--base-url',
      s.baseUrl,
    ]);
    expect((await cli(['brands', 'list'])).code).toBe(0);
    expect((await cli(['brands', 'list', '--profile', 'bad'])).code).toBe(3);
    expect((await cli(['brands', 'list'], { env: { PARTNER_PROFILE: 'bad' } })).code).toBe(3);
    expect(
      (await cli(['brands', 'list', '--profile', 'good'], { env: { PARTNER_PROFILE: 'bad' } })).code,
    ).toBe(0);
    const missing = await cli(['brands', 'list', '--profile', 'nope']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no profile named "nope"/);
    expect((await runCli(['brands', 'list'], { configDir: tempDir() })).code).toBe(2);
  });
});

// Where secrets live when no OS keyring can be reached (CI, SSH, containers, or PARTNER_KEYRING=off):
// the file, said plainly; nothing half-written when the keyring is asked for. The keyring itself
// is exercised for real in keyring.test.ts.
describe('profiles without an OS keyring', () => {
  const add = (configDir: string, extra: string[] = [], env: Record<string, string | undefined> = {}) =>
    runCli(['profiles', 'add', 'p', '--key', 'pk_p', '--secret', SECRET, '--base-url', s.baseUrl, ...extra], {
      configDir,
      env,
    });
  const stored = (configDir: string) =>
    JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles as Record<
      string,
      Record<string, unknown>
    >;

  it('add falls back to the file and says why; on Linux without a session bus the binding is not needed', async () => {
    const configDir = tempDir();
    // No PARTNER_KEYRING and no DBUS_SESSION_BUS_ADDRESS: what CI and an SSH session look like.
    const r = await add(configDir, [], process.platform === 'linux' ? { PARTNER_KEYRING: undefined } : {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^secret: file \(0600\) .*config\.json; no OS keyring here: /m);
    if (process.platform === 'linux') expect(r.stderr).toContain('DBUS_SESSION_BUS_ADDRESS is not set');
    expect(stored(configDir).p).toMatchObject({ secret: SECRET });
    expect(stored(configDir).p?.storage).toBeUndefined();
    const show = await runCli(['profiles', 'show', 'p', '--no-color'], { configDir, tty: true });
    expect(show.stdout).toMatch(/secret\s+file \(0600\) · sk_…abcd/);
    expectNoSecret([r, show], SECRET);
  });

  it('--storage keyring and move --to keyring fail with the reason, and change nothing', async () => {
    const configDir = tempDir();
    const asked = await add(configDir, ['--storage', 'keyring']);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toBe(
      'error: saving profile "p" to the OS keyring: no OS keyring can be reached here (turned off by PARTNER_KEYRING=off)\n',
    );
    expect(existsSync(join(configDir, 'config.json')) ? stored(configDir).p : undefined).toBeUndefined();

    expect((await add(configDir)).code).toBe(0);
    const before = readFileSync(join(configDir, 'config.json'), 'utf8');
    const move = await runCli(['profiles', 'move', 'p', '--to', 'keyring'], { configDir });
    expect(move.code).toBe(1);
    expect(move.stderr).toMatch(
      /^error: saving profile "p" to the OS keyring: no OS keyring can be reached here/,
    );
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(before);
    const same = await runCli(['profiles', 'move', 'p', '--to', 'file'], { configDir });
    expect(same.code).toBe(0);
    expect(same.stderr).toBe('Profile p: the secret is already in the file\n');
    const bad = await runCli(['profiles', 'move', 'p', '--to', 'cloud'], { configDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--to <where>.*cloud.*Allowed choices are keyring, file/);
  });

  it('a keyring profile where no keyring can be reached: commands say what to do; show and remove still work', async () => {
    const configDir = tempDir();
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({
        default: 'vault',
        profiles: {
          vault: {
            base_url: s.baseUrl,
            key: 'pk_vault',
            storage: 'keyring',
            keyring_account: 'vault@elsewhere',
          },
        },
      }),
      { mode: 0o600 },
    );
    const call = await runCli(['brands', 'list'], { configDir });
    expect(call.code).toBe(1);
    expect(call.stderr).toBe(
      'error: profile "vault" keeps its secret in the OS keyring, which cannot be reached here (turned off by PARTNER_KEYRING=off); set PARTNER_KEY and PARTNER_SECRET instead, or run `partner profiles move vault --to file` where the keyring is reachable\n',
    );
    // The environment's credential still works without the keyring.
    const viaEnv = await runCli(['brands', 'list', '--json'], {
      configDir,
      env: { PARTNER_KEY: s.credential.key, PARTNER_SECRET: s.credential.secret },
    });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);

    const show = await runCli(['profiles', 'show', '--json'], { configDir });
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ name: 'vault', secret: null, storage: 'keyring' });
    expect(show.stderr).toMatch(/^warning: profile "vault" keeps its secret in the OS keyring/);
    const list = await runCli(['profiles', 'list'], { configDir });
    expect(list.stdout).toBe(`vault\t${s.baseUrl}\tpk_vault\t\tdefault\tkeyring\n`);

    const removed = await runCli(['profiles', 'remove', 'vault', '--yes'], { configDir });
    expect(removed.code).toBe(0);
    expect(removed.stderr).toBe(
      'warning: the keyring entry "vault@elsewhere" (service "partner") of profile "vault" could not be deleted: no OS keyring can be reached here (turned off by PARTNER_KEYRING=off); delete it there\nRemoved profile vault\n',
    );
    expect(stored(configDir).vault).toBeUndefined();
  });
});
