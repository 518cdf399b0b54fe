import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/webhooks/signature.js';
import { keyringSupport, type KeyringSession, startKeyringSession } from '../helpers/keyring-session.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ensureBuilt } from '../pty/harness.js';
import { type CliResult, runCli, tempDir } from './run-cli.js';

// Secrets in a real OS keyring: a headless Secret Service (GNOME Keyring on a private D-Bus
// session), reached by the in-process CLI and by the built binary. Where that cannot run here the
// suite is skipped and says why; CI sets PARTNER_TEST_KEYRING=required, and then it fails instead.
// The checks that the keyring binding is loaded only when a profile needs it run everywhere.

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/partner.js');
const require = createRequire(import.meta.url);

const SECRET_WEBHOOK = 'whsec_KeyringHeldWebhookSecret_4242';

let s: TestServer;
beforeAll(async () => {
  ensureBuilt();
  s = await startTestServer({ seed: 'demo' });
}, 60_000);
afterAll(async () => {
  await s?.close();
});

/**
 * A preload that reports on stderr when the keyring binding is loaded (a require), and which of
 * the CLI's chunks are (`[esm] NAME`: required CommonJS chunks, or ES modules by a loader hook).
 */
function loadTracer(): string {
  const dir = tempDir('partner-trace-');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `export async function load(url, context, next) {
  const m = /\\/dist\\/chunks\\/([a-z][a-z-]*?)-[\\w-]{8}\\.js$/.exec(url);
  if (m) process._rawDebug('[esm] ' + m[1]);
  return next(url, context);
}
`,
  );
  const file = join(dir, 'trace.cjs');
  writeFileSync(
    file,
    `const Module = require('node:module');
Module.register(${JSON.stringify(`file://${join(dir, 'hooks.mjs')}`)});
const load = Module._load;
Module._load = function (request, ...rest) {
  if (String(request).includes('@napi-rs/keyring')) process.stderr.write('[trace] @napi-rs/keyring loaded\\n');
  const chunk = /^\\.\\/(?:chunks\\/)?([a-z][a-z-]*?)(-[\\w-]{8})?\\.cjs$/.exec(String(request));
  if (chunk) process._rawDebug('[esm] ' + chunk[1]);
  return load.call(this, request, ...rest);
};
`,
  );
  return file;
}

/** The built binary, asynchronously (the test server runs in this process and must keep answering). */
function runBin(
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['-r', loadTracer(), bin, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempDir('partner-home-'), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the keyring binding loads only when a profile needs it', () => {
  it('a file profile: --version and an API command never load it', async () => {
    const configDir = tempDir();
    const env = { PARTNER_CONFIG_DIR: configDir };
    const add = await runBin(
      [
        'profiles',
        'add',
        'f',
        '--key',
        s.credential.key,
        '--secret',
        '-',
        '--base-url',
        s.baseUrl,
        '--storage',
        'file',
      ],
      env,
      s.credential.secret,
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).not.toContain('[trace]');
    for (const args of [['--version'], ['orders', 'statuses', '--json'], ['profiles', 'show']]) {
      const r = await runBin(args, env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('[trace]');
    }
    // An API command loads none of what profiles and auth add (their bodies are lazy chunks):
    // only its own chunk (command tree, run step, client) and the bundler's runtime.
    const api = await runBin(['orders', 'statuses', '--json'], env);
    const chunks = [...api.stderr.matchAll(/^\[esm\] (\S+)$/gm)].map((m) => m[1]);
    expect([...new Set(chunks)].sort()).toEqual(['api-command', 'rolldown-runtime']);
    expect(chunks.filter((c) => /profiles-run|auth-run|scope-probes/.test(c!))).toEqual([]);
    const status = await runBin(['auth', 'status', '--json'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toMatch(/^\[esm\] auth-run$/m);
  });
});

const support = keyringSupport();
const required = process.env.PARTNER_TEST_KEYRING === 'required';
if (!support.ok && !required)
  console.warn(
    `keyring tests skipped: ${support.reason} (PARTNER_TEST_KEYRING=required makes this a failure)`,
  );

describe.skipIf(!support.ok && !required)('secrets in the OS keyring (headless Secret Service)', () => {
  let session: KeyringSession;
  beforeAll(async () => {
    if (!support.ok) throw new Error(`PARTNER_TEST_KEYRING=required, but ${support.reason}`);
    session = await startKeyringSession();
    // The binding reads the bus address from this process's environment.
    process.env.DBUS_SESSION_BUS_ADDRESS = session.address;
  }, 30_000);
  afterAll(async () => {
    delete process.env.DBUS_SESSION_BUS_ADDRESS;
    await session?.close();
  });

  const keyringEnv = () => ({ PARTNER_KEYRING: undefined, DBUS_SESSION_BUS_ADDRESS: session.address });
  const cli = (configDir: string, argv: string[], o: Parameters<typeof runCli>[1] = {}) =>
    runCli(argv, { configDir, ...o, env: { ...keyringEnv(), ...o.env } });
  /** The entry as the keyring itself holds it, read without the CLI. */
  const entry = (configDir: string, name: string): string | null => {
    const { Entry } = require('@napi-rs/keyring') as typeof import('@napi-rs/keyring');
    return new Entry('partner', `${name}@${configDir}`, { linux: { store: 'secret-service' } }).getPassword();
  };
  const fileText = (configDir: string) => readFileSync(join(configDir, 'config.json'), 'utf8');
  const stored = (configDir: string) => JSON.parse(fileText(configDir)).profiles;
  const noSecret = (rs: CliResult[]) => {
    for (const r of rs) {
      expect(r.stdout + r.stderr).not.toContain(s.credential.secret);
      expect(r.stdout + r.stderr).not.toContain(SECRET_WEBHOOK);
    }
  };
  const add = (configDir: string, name: string, extra: string[] = []) =>
    cli(configDir, [
      'profiles',
      'add',
      name,
      '--key',
      s.credential.key,
      '--secret',
      s.credential.secret,
      '--base-url',
      s.baseUrl,
      '--webhook-secret',
      SECRET_WEBHOOK,
      ...extra,
    ]);

  it('add puts the secrets in the keyring and not in the file; commands and show read them from there', async () => {
    const configDir = tempDir();
    const added = await add(configDir, 'vault');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('\nsecret: keyring (Secret Service)\n');
    expect(fileText(configDir)).not.toContain(s.credential.secret);
    expect(fileText(configDir)).not.toContain(SECRET_WEBHOOK);
    expect(stored(configDir).vault).toEqual({
      base_url: s.baseUrl,
      key: s.credential.key,
      storage: 'keyring',
      keyring_account: `vault@${configDir}`,
    });
    expect(JSON.parse(entry(configDir, 'vault')!)).toEqual({
      secret: s.credential.secret,
      webhook_secret: SECRET_WEBHOOK,
    });

    const brands = await cli(configDir, ['brands', 'list', '--json']);
    expect(brands.code, brands.stderr).toBe(0);
    expect(JSON.parse(brands.stdout)[0].business.id).toBe(s.credential.businessId);

    const show = await cli(configDir, ['profiles', 'show', '--no-color'], { tty: true });
    expect(show.stdout).toMatch(/secret\s+keyring · sk_…/);
    expect(show.stdout).toMatch(/webhook_secret\s+whsec_…4242/);
    const showJson = await cli(configDir, ['profiles', 'show', '--json']);
    expect(JSON.parse(showJson.stdout)).toMatchObject({ storage: 'keyring', webhook_secret: 'whsec_…4242' });

    const status = await cli(configDir, ['auth', 'status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      profile: 'vault',
      secret_storage: 'keyring',
      valid: true,
    });

    // The webhook secret too comes from the keyring.
    const body = join(tempDir(), 'body.json');
    writeFileSync(body, '{"brand_id":1}');
    const signed = await cli(configDir, ['webhooks', 'sign', body]);
    expect(signed.stdout.trim()).toBe(sign(SECRET_WEBHOOK, '{"brand_id":1}'));
    noSecret([added, brands, show, showJson, status]);
  });

  it('move to the file and back: the secrets are in one place at a time', async () => {
    const configDir = tempDir();
    expect((await add(configDir, 'm')).code).toBe(0);
    const toFile = await cli(configDir, ['profiles', 'move', 'm', '--to', 'file']);
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stderr).toMatch(
      /^Moved the secret of profile m to the file .* the keyring no longer holds it\n$/,
    );
    expect(entry(configDir, 'm')).toBeNull();
    expect(stored(configDir).m).toMatchObject({
      secret: s.credential.secret,
      webhook_secret: SECRET_WEBHOOK,
    });
    expect(stored(configDir).m.storage).toBeUndefined();
    expect((await cli(configDir, ['brands', 'list'])).code).toBe(0);

    const toKeyring = await cli(configDir, ['profiles', 'move', 'm', '--to', 'keyring', '--json']);
    expect(toKeyring.code, toKeyring.stderr).toBe(0);
    expect(JSON.parse(toKeyring.stdout)).toMatchObject({
      storage: 'keyring',
      secret: expect.stringMatching(/…/),
    });
    expect(fileText(configDir)).not.toContain(s.credential.secret);
    expect(JSON.parse(entry(configDir, 'm')!).secret).toBe(s.credential.secret);
    expect((await cli(configDir, ['brands', 'list'])).code).toBe(0);
    noSecret([toFile, toKeyring]);
  });

  it('replacing a keyring profile with --storage file, or removing one, deletes its entry', async () => {
    const configDir = tempDir();
    expect((await add(configDir, 'r')).code).toBe(0);
    const replaced = await add(configDir, 'r', ['--storage', 'file']);
    expect(replaced.code).toBe(0);
    expect(entry(configDir, 'r')).toBeNull();
    expect(stored(configDir).r.secret).toBe(s.credential.secret);

    expect((await add(configDir, 'gone')).code).toBe(0);
    expect(entry(configDir, 'gone')).not.toBeNull();
    const removed = await cli(configDir, ['profiles', 'remove', 'gone', '--yes']);
    expect(removed.stderr).toBe('Removed profile gone\n');
    expect(entry(configDir, 'gone')).toBeNull();
  });

  it('a keyring profile saved again by other commands stays in the keyring (local start, bootstrap defaults)', async () => {
    const configDir = tempDir();
    expect((await add(configDir, 'local')).code).toBe(0);
    const { openProfiles } = await import('../../src/cli/profiles.js');
    const store = openProfiles({ configDir, env: keyringEnv() });
    // What `local start --seed demo` does with a fresh credential: the new secret goes where the old one was.
    const saved = store.save({
      name: 'local',
      base_url: s.baseUrl,
      key: s.other.key,
      secret: s.other.secret,
    });
    expect(saved.storage).toBe('keyring');
    expect(fileText(configDir)).not.toContain(s.other.secret);
    // The webhook secret not given is kept.
    expect(JSON.parse(entry(configDir, 'local')!)).toEqual({
      secret: s.other.secret,
      webhook_secret: SECRET_WEBHOOK,
    });
    // What bootstrap does to save defaults: the profile as read (no secrets) plus a field.
    store.save({ ...store.get('local')!, default_brand_id: 3 });
    expect(stored(configDir).local).toMatchObject({ storage: 'keyring', default_brand_id: 3 });
    expect(JSON.parse(entry(configDir, 'local')!).secret).toBe(s.other.secret);
  });

  it('two config dirs with a profile of the same name keep separate entries', async () => {
    const a = tempDir();
    const b = tempDir();
    expect((await add(a, 'same')).code).toBe(0);
    const other = await cli(b, [
      'profiles',
      'add',
      'same',
      '--key',
      s.other.key,
      '--secret',
      s.other.secret,
      '--base-url',
      s.baseUrl,
    ]);
    expect(other.code).toBe(0);
    expect(JSON.parse(entry(a, 'same')!).secret).toBe(s.credential.secret);
    expect(JSON.parse(entry(b, 'same')!).secret).toBe(s.other.secret);
    expect((await cli(b, ['profiles', 'remove', 'same', '--yes'])).code).toBe(0);
    expect(entry(a, 'same')).not.toBeNull();
  });

  it('the built binary: add and an API command through the keyring, the binding loaded for that profile only', async () => {
    const configDir = tempDir();
    const env = { PARTNER_CONFIG_DIR: configDir, DBUS_SESSION_BUS_ADDRESS: session.address };
    const added = await runBin(
      ['profiles', 'add', 'bin', '--key', s.credential.key, '--secret', '-', '--base-url', s.baseUrl],
      env,
      s.credential.secret,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('secret: keyring (Secret Service)');
    expect(fileText(configDir)).not.toContain(s.credential.secret);
    const statuses = await runBin(['orders', 'statuses', '--json'], env);
    expect(statuses.code, statuses.stderr).toBe(0);
    expect(statuses.stderr).toContain('[trace] @napi-rs/keyring loaded');
    expect(JSON.parse(statuses.stdout).length).toBe(11);
    // The environment's credential needs no profile secret: the binding stays unloaded.
    const viaEnv = await runBin(['orders', 'statuses', '--json'], {
      ...env,
      PARTNER_KEY: s.credential.key,
      PARTNER_SECRET: s.credential.secret,
    });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(viaEnv.stderr).not.toContain('[trace]');
  });
});
