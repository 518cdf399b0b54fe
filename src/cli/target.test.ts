import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openProfiles } from './profiles.js';
import { resolveOperatorTarget, resolvePartnerTarget } from './target.js';

const dirs: string[] = [];
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const configDir = tmp('partner-target-');
  const s = openProfiles({ configDir });
  s.save({ name: 'prod', base_url: 'https://prod.example', key: 'pk_prod', secret: 'sk_prod' });
  s.save({ name: 'stage', base_url: 'https://stage.example', key: 'pk_stage', secret: 'sk_stage' });
  return configDir;
}

describe('resolvePartnerTarget: flag > env > profile', () => {
  it('uses the default profile', () => {
    const t = resolvePartnerTarget({ configDir: setup(), env: {} });
    expect(t).toMatchObject({
      baseUrl: 'https://prod.example',
      key: 'pk_prod',
      secret: 'sk_prod',
      source: 'profile prod',
    });
  });
  it('PARTNER_PROFILE picks another profile; --profile beats it', () => {
    const configDir = setup();
    expect(resolvePartnerTarget({ configDir, env: { PARTNER_PROFILE: 'stage' } }).key).toBe('pk_stage');
    expect(resolvePartnerTarget({ configDir, env: { PARTNER_PROFILE: 'stage' }, profile: 'prod' }).key).toBe(
      'pk_prod',
    );
  });
  it('PARTNER_KEY/SECRET/BASE_URL beat the profile, but not an explicit --profile', () => {
    const configDir = setup();
    const env = { PARTNER_KEY: 'pk_env', PARTNER_SECRET: 'sk_env', PARTNER_BASE_URL: 'https://env.example' };
    expect(resolvePartnerTarget({ configDir, env })).toMatchObject({
      key: 'pk_env',
      baseUrl: 'https://env.example',
      source: 'env',
    });
    expect(resolvePartnerTarget({ configDir, env, profile: 'stage' })).toMatchObject({
      key: 'pk_stage',
      baseUrl: 'https://stage.example',
    });
  });
  it('--base-url beats everything for the URL', () => {
    const configDir = setup();
    const env = { PARTNER_BASE_URL: 'https://env.example' };
    expect(resolvePartnerTarget({ configDir, env, baseUrl: 'http://127.0.0.1:1' }).baseUrl).toBe(
      'http://127.0.0.1:1',
    );
    expect(resolvePartnerTarget({ configDir, env, profile: 'stage', baseUrl: 'http://x' }).baseUrl).toBe(
      'http://x',
    );
  });
  it('explains what is missing', () => {
    const empty = tmp('partner-target-');
    expect(() => resolvePartnerTarget({ configDir: empty, env: {} })).toThrow(/no credential/);
    expect(() => resolvePartnerTarget({ configDir: empty, env: { PARTNER_KEY: 'k' } })).toThrow(
      /PARTNER_SECRET is not/,
    );
    expect(() =>
      resolvePartnerTarget({ configDir: empty, env: { PARTNER_KEY: 'k', PARTNER_SECRET: 's' } }),
    ).toThrow(/no base URL/);
    expect(() => resolvePartnerTarget({ configDir: setup(), env: {}, profile: 'nope' })).toThrow(
      /--profile: no profile named "nope"/,
    );
  });
});

describe('resolveOperatorTarget', () => {
  it('reads DIR/local.json, or takes --server and --token', () => {
    const dir = tmp('partner-data-');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'local.json'),
      JSON.stringify({ base_url: 'http://127.0.0.1:9', operator_token: 'op_x' }),
    );
    expect(resolveOperatorTarget({ env: { PARTNER_DATA_DIR: dir } })).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      token: 'op_x',
    });
    expect(resolveOperatorTarget({ env: {}, dataDir: dir })).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      token: 'op_x',
    });
    expect(resolveOperatorTarget({ env: {}, server: 'http://s', token: 't' })).toEqual({
      baseUrl: 'http://s',
      token: 't',
    });
    expect(() => resolveOperatorTarget({ env: {}, server: 'http://s' })).toThrow(/go together/);
    expect(() => resolveOperatorTarget({ env: {}, dataDir: join(dir, 'nope') })).toThrow(
      /partner local start/,
    );
  });

  it('takes PARTNER_OPERATOR_URL and PARTNER_OPERATOR_TOKEN, each behind its flag, never before --data', () => {
    const dir = tmp('partner-data-');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'local.json'),
      JSON.stringify({ base_url: 'http://127.0.0.1:9', operator_token: 'op_x' }),
    );
    const env = {
      PARTNER_OPERATOR_URL: 'http://lb:80',
      PARTNER_OPERATOR_TOKEN: 'op_env',
      PARTNER_DATA_DIR: dir,
    };
    expect(resolveOperatorTarget({ env })).toEqual({ baseUrl: 'http://lb:80', token: 'op_env' });
    expect(resolveOperatorTarget({ env, server: 'http://s' })).toEqual({
      baseUrl: 'http://s',
      token: 'op_env',
    });
    expect(resolveOperatorTarget({ env, token: 't' })).toEqual({ baseUrl: 'http://lb:80', token: 't' });
    // --data names one local server: its local.json, not the environment's cluster.
    expect(resolveOperatorTarget({ env, dataDir: dir })).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      token: 'op_x',
    });
    // The servers' token alone in the environment leaves local.json in charge.
    expect(
      resolveOperatorTarget({ env: { PARTNER_OPERATOR_TOKEN: 'op_env', PARTNER_DATA_DIR: dir } }),
    ).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      token: 'op_x',
    });
    expect(() => resolveOperatorTarget({ env: { PARTNER_OPERATOR_URL: 'http://lb:80' } })).toThrow(
      /PARTNER_OPERATOR_TOKEN/,
    );
  });
});
