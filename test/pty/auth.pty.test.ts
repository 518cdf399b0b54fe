import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProfiles } from '../../src/cli/profiles.js';
import type { TestServer } from '../helpers/server.js';
import { KEYS, spawnPartner, tempDir, localProfile, onDemoServer } from './harness.js';

// `partner auth login` and `partner auth status` at a real terminal: the prompts typed as a person
// types them (the secret never on screen), and the status fitting an 80-column terminal.

let s: TestServer;
onDemoServer((server) => {
  s = server;
});

describe('auth at a real terminal', () => {
  it('login asks for name, base URL, key and a hidden secret, checks them with the server, and saves', async () => {
    const configDir = tempDir('partner-pty-cfg-');
    const t = spawnPartner(['auth', 'login'], { configDir });
    await t.waitFor('Profile name: (default)');
    t.write(`${KEYS.backspace.repeat(7)}shop`);
    t.write(KEYS.enter);
    await t.waitFor('Base URL: (http://127.0.0.1:8787)');
    t.write(`${KEYS.backspace.repeat(21)}${s.baseUrl}`);
    t.write(KEYS.enter);
    await t.waitFor('Partner key (pk_…):');
    t.write(s.credential.key);
    t.write(KEYS.enter);
    await t.waitFor('Partner secret (hidden):');
    t.write(s.credential.secret);
    await t.waitFor('*'.repeat(s.credential.secret.length));
    t.write(KEYS.enter);
    await t.waitFor(`Logged in to ${s.baseUrl} as ${s.credential.key}`);
    await t.waitFor('Saved profile shop');
    expect(await t.exit()).toBe(0);
    expect(t.raw).not.toContain(s.credential.secret);
    const saved = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    expect(saved.profiles.shop).toEqual({
      base_url: s.baseUrl,
      key: s.credential.key,
      secret: s.credential.secret,
    });
  });

  it('a refused secret typed at the prompt: exit 3, nothing saved', async () => {
    const configDir = tempDir('partner-pty-cfg-');
    const t = spawnPartner(
      ['auth', 'login', '--name', 'x', '--key', s.credential.key, '--base-url', s.baseUrl],
      {
        configDir,
      },
    );
    await t.waitFor('Partner secret (hidden):');
    t.write('sk_NotTheRightSecret_0000');
    t.write(KEYS.enter);
    await t.waitFor('Nothing was saved');
    await t.waitFor('error: auth_invalid_credential');
    expect(await t.exit()).toBe(3);
    expect(openProfiles({ configDir }).list()).toEqual([]);
  });

  it('status fits 80 columns: every line within the width, scopes wrapped under their label', async () => {
    const configDir = localProfile(s);
    const t = spawnPartner(['auth', 'status'], { configDir, cols: 80, rows: 30 });
    expect(await t.exit(30_000)).toBe(0);
    const text = t.history().join('\n');
    expect(text).toMatch(/^Credential {2}valid · business \d+ "/m);
    expect(text).toMatch(/^Flows {7}bootstrap {4}ready$/m);
    expect(t.wrappedRows(true), 'lines wider than the terminal').toEqual([]);
  });
});
