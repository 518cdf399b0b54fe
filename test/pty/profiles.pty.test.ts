import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ensureBuilt, KEYS, spawnPartner, tempDir } from './harness.js';

// `profiles add` and `profiles remove` at a real terminal: the hidden secret prompt and the
// delete confirmation, typed as a person types them.

beforeAll(() => ensureBuilt(), 60_000);
afterEach(() => cleanup());

const SECRET = 'sk_TypedAtTheTerminal_5f2b9c1d';

function stored(configDir: string): Record<string, { key: string; secret: string }> {
  return JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles ?? {};
}

describe('profiles at a terminal', () => {
  it('profiles add asks for the secret without showing it, and stores it', async () => {
    const t = spawnPartner([
      'profiles',
      'add',
      'staging',
      '--key',
      'pk_test_123',
      '--base-url',
      'http://127.0.0.1:8787',
    ]);
    await t.waitFor('Partner secret (hidden):');
    t.write(SECRET);
    // Every typed character shows as a mask, never as itself.
    await t.waitFor('*'.repeat(SECRET.length));
    t.write(KEYS.enter);
    await t.waitFor('Saved profile staging');
    expect(await t.exit()).toBe(0);
    expect(t.history().join('\n')).toContain('secret sk_…9c1d');
    expect(t.raw).not.toContain(SECRET);
    expect(stored(t.configDir).staging).toMatchObject({ key: 'pk_test_123', secret: SECRET });
  });

  it('profiles remove: "no" keeps the profile, "yes" removes it', async () => {
    const configDir = tempDir('partner-pty-cfg-');
    const add = spawnPartner(
      ['profiles', 'add', 'gone', '--key', 'pk_1', '--secret', 'sk_x', '--base-url', 'http://127.0.0.1:1'],
      { configDir },
    );
    expect(await add.exit()).toBe(0);

    const no = spawnPartner(['profiles', 'remove', 'gone'], { configDir });
    await no.waitFor('Remove profile gone and its stored secret?');
    no.write('n');
    no.write(KEYS.enter);
    await no.waitFor('Cancelled.');
    expect(await no.exit()).toBe(1);
    expect(stored(configDir).gone).toBeDefined();

    const yes = spawnPartner(['profiles', 'remove', 'gone'], { configDir });
    await yes.waitFor('Remove profile gone and its stored secret?');
    yes.write('y');
    yes.write(KEYS.enter);
    await yes.waitFor('Removed profile gone');
    expect(await yes.exit()).toBe(0);
    expect(stored(configDir).gone).toBeUndefined();
  });
});
