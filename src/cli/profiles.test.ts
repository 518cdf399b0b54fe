import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfigDir, defaultDataDir } from './paths.js';
import { openProfiles } from './profiles.js';

const dirs: string[] = [];
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const dir = () => tmp('partner-profiles-');
const p = (name: string, secret = `sk_secret_${name}_abcd`) => ({
  name,
  base_url: 'http://127.0.0.1:8787',
  key: `pk_${name}`,
  secret,
});

describe('openProfiles', () => {
  it('stores profiles in a mode-0600 file, first one default', () => {
    const d = dir();
    const s = openProfiles({ configDir: d });
    expect(s.path).toBe(join(d, 'config.json'));
    s.save(p('a'));
    s.save(p('b'));
    expect((statSync(s.path).mode & 0o777).toString(8)).toBe('600');
    expect(s.defaultName()).toBe('a');
    expect(s.list().map((x) => x.name)).toEqual(['a', 'b']);
    expect(s.get('b')).toEqual(p('b'));
  });

  it('makeDefault, use, remove', () => {
    const s = openProfiles({ configDir: dir() });
    s.save(p('a'));
    s.save(p('b'), { makeDefault: true });
    expect(s.defaultName()).toBe('b');
    s.use('a');
    expect(s.defaultName()).toBe('a');
    expect(() => s.use('zzz')).toThrow(/no profile/);
    expect(s.remove('a')).toBe(true);
    expect(s.remove('a')).toBe(false);
    expect(s.defaultName()).toBeUndefined();
    // The next save becomes the default again.
    s.save(p('c'));
    expect(s.defaultName()).toBe('c');
  });

  it('tightens an existing file to 0600 on write', () => {
    const d = dir();
    writeFileSync(join(d, 'config.json'), '{}', { mode: 0o644 });
    const s = openProfiles({ configDir: d });
    s.save(p('a'));
    expect(statSync(s.path).mode & 0o777).toBe(0o600);
  });

  it('replaces a profile of the same name and drops empty optional fields', () => {
    const s = openProfiles({ configDir: dir() });
    s.save({ ...p('a'), webhook_secret: 'wh_1' });
    s.save({ ...p('a', 'sk_new_secret_value_1234'), webhook_secret: '' });
    expect(s.get('a')).toEqual(p('a', 'sk_new_secret_value_1234'));
    const raw = JSON.parse(readFileSync(s.path, 'utf8'));
    expect(raw.profiles.a).not.toHaveProperty('webhook_secret');
  });

  it('rejects bad names', () => {
    const s = openProfiles({ configDir: dir() });
    expect(() => s.save(p('../x'))).toThrow(/invalid profile name/);
  });

  it('follows PARTNER_CONFIG_DIR', () => {
    const d = dir();
    const s = openProfiles({ env: { PARTNER_CONFIG_DIR: d } });
    expect(s.path).toBe(join(d, 'config.json'));
  });
});

describe('paths', () => {
  it('PARTNER_DATA_DIR / XDG / home', () => {
    if (process.platform === 'win32') return;
    expect(defaultDataDir({ PARTNER_DATA_DIR: '/x' })).toBe('/x');
    expect(defaultDataDir({ XDG_DATA_HOME: '/d', HOME: '/h' })).toBe('/d/partner');
    expect(defaultDataDir({ HOME: '/h' })).toBe('/h/.local/share/partner');
    expect(defaultConfigDir({ HOME: '/h' })).toBe('/h/.config/partner');
    expect(defaultConfigDir({ PARTNER_CONFIG_DIR: '/c', HOME: '/h' })).toBe('/c');
  });
});
