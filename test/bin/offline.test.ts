import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CACHE_MODES,
  type CacheMode,
  cacheState,
  cleanEnv,
  ensureBuilt,
  expectNoNoise,
  install,
  partner,
  type Run,
  root,
  tempDir,
} from './harness.js';

// Every command that needs no server, with real input, through the launcher, with the V8 code
// cache of the hot chunk as the build made it, missing, and damaged: the cached path and the
// uncached one must behave the same (a lazy import() in the hot chunk once failed only when the
// cache was there, and printed an ExperimentalWarning when it was not).

interface Vector {
  name: string;
  secret: string;
  body_base64: string;
  signature: string;
}
const vectors = (
  JSON.parse(readFileSync(join(root, 'test/fixtures/webhook-vectors.json'), 'utf8')) as { vectors: Vector[] }
).vectors;

beforeAll(() => {
  ensureBuilt();
});

describe.each(CACHE_MODES)('code cache %s', (mode: CacheMode) => {
  let pkg: string;
  let dir: string;
  const runs: Run[] = [];
  const run = async (args: string[], stdin?: string | Buffer): Promise<Run> => {
    const r = await partner(args, { pkg, env: cleanEnv(), cwd: dir, stdin });
    runs.push(r);
    return r;
  };

  beforeAll(async () => {
    pkg = install(mode);
    dir = tempDir('partner-files-');
    const state = Object.values(await cacheState(pkg));
    expect(state.length).toBeGreaterThan(0);
    for (const s of state)
      expect(s).toEqual(
        mode === 'present'
          ? { cached: true, rejected: false }
          : mode === 'absent'
            ? { cached: false, rejected: false }
            : { cached: true, rejected: true },
      );
  }, 60_000);

  it('webhooks sign prints the signature of the fixture vectors, from a file and from stdin', async () => {
    expect(vectors.length).toBeGreaterThan(0);
    const runs = await Promise.all(
      vectors.flatMap((v, i) => {
        const body = Buffer.from(v.body_base64, 'base64');
        writeFileSync(join(dir, `body-${i}.json`), body);
        return [
          run(['webhooks', 'sign', '--secret', v.secret, `body-${i}.json`]),
          run(['webhooks', 'sign', '--secret', v.secret, '-'], body),
        ];
      }),
    );
    vectors.forEach((v, i) => {
      for (const r of [runs[2 * i]!, runs[2 * i + 1]!]) {
        expect(r.stderr, v.name).toBe('');
        expect(r.code, v.name).toBe(0);
        expect(r.stdout, v.name).toBe(`${v.signature}\n`);
      }
    });
  }, 120_000);

  it('webhooks verify: exit 0 for the right signature, 1 for a wrong one', async () => {
    const v = vectors[0]!;
    writeFileSync(join(dir, 'verify.json'), Buffer.from(v.body_base64, 'base64'));
    const wrong = `${v.signature.slice(0, -1)}${v.signature.endsWith('0') ? '1' : '0'}`;
    const [good, bad, json] = await Promise.all([
      run(['webhooks', 'verify', '--secret', v.secret, '--signature', v.signature, 'verify.json']),
      run(['webhooks', 'verify', '--secret', v.secret, '--signature', wrong, 'verify.json']),
      run(['webhooks', 'verify', '--json', '--secret', v.secret, '--signature', v.signature, 'verify.json']),
    ]);
    expect(good.stderr).toBe('');
    expect([good.code, good.stdout]).toEqual([0, 'valid\n']);
    expect(bad.stderr).toBe('');
    expect([bad.code, bad.stdout]).toEqual([1, 'invalid signature\n']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ valid: true });
  }, 60_000);

  it('webhooks sign/verify of a missing file: exit 2 naming the file, "no such file"', async () => {
    const runs = await Promise.all([
      run(['webhooks', 'sign', '--secret', 'whsec_x', 'missing.json']),
      run(['webhooks', 'verify', '--secret', 'whsec_x', '--signature', 'ab', 'missing.json']),
    ]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('error: cannot read missing.json: no such file\n');
    }
  }, 60_000);

  it('completion bash|zsh|fish: a script for that shell (bash: one bash itself parses)', async () => {
    const [bash, zsh, fish, bad] = await Promise.all([
      run(['completion', 'bash']),
      run(['completion', 'zsh']),
      run(['completion', 'fish']),
      run(['completion', 'tcsh']),
    ]);
    for (const r of [bash, zsh, fish]) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('partner __complete');
    }
    expect(bash.stdout).toMatch(/^complete -.* partner$/m);
    expect(zsh.stdout).toMatch(/^#compdef partner$/m);
    expect(fish.stdout).toMatch(/^complete -c partner /m);
    const parsed = spawnSync('bash', ['-n'], { input: bash.stdout, encoding: 'utf8' });
    expect(parsed.status, parsed.stderr).toBe(0);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/tcsh/);
  }, 60_000);

  it('openapi: the OpenAPI 3.1 document of every operation', async () => {
    const r = await run(['openapi']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.openapi).toMatch(/^3\.1\./);
    const operations = Object.values(doc.paths as Record<string, Record<string, unknown>>).flatMap((p) =>
      Object.keys(p),
    );
    expect(operations.length).toBeGreaterThan(50);
  }, 60_000);

  it('menu diff / push --dry-run of a broken menu file: FILE:LINE and the problem, nothing sent, exit 2', async () => {
    // The sample menu with one value of the wrong type on a known line, and a file that is not
    // YAML at all. No credential and no server: the file is checked first.
    const lines = readFileSync(join(root, 'test/fixtures/menu.sample.yaml'), 'utf8').split('\n');
    const at = lines.findIndex((l) => /^ {4}min: \d+$/.test(l));
    expect(at).toBeGreaterThan(0);
    lines[at] = lines[at]!.replace(/\d+$/, 'lots');
    writeFileSync(join(dir, 'menu.yaml'), lines.join('\n'));
    writeFileSync(join(dir, 'torn.yaml'), 'sections:\n  - key: a\n    title: [\n');
    const runs = await Promise.all([
      run(['menu', 'diff', 'menu.yaml', '--brand', '1']),
      run(['menu', 'push', '--dry-run', 'menu.yaml', '--brand', '1']),
      run(['menu', 'diff', 'torn.yaml', '--brand', '1']),
      run(['menu', 'push', '--dry-run', 'torn.yaml', '--brand', '1']),
      run(['menu', 'diff', 'missing.yaml', '--brand', '1']),
    ]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
    }
    for (const r of runs.slice(0, 2)) {
      expect(r.stderr).toContain(`menu.yaml:${at + 1}: modifierGroups[0].min: must be a number`);
      expect(r.stderr).toMatch(/^error: menu\.yaml: 1 problem in the menu file; nothing was sent$/m);
    }
    for (const r of runs.slice(2, 4)) expect(r.stderr).toMatch(/^torn\.yaml:\d+: /m);
    expect(runs[4]!.stderr).toMatch(/^missing\.yaml:1: cannot read the menu file \(no such file\)$/m);
  }, 60_000);

  it('no run of this mode printed a stack trace, a Node warning or an internal error', () => {
    // The checks above compare stderr exactly where they can; this catches the rest.
    expect(runs.length).toBeGreaterThan(5);
    expect(runs.flatMap(expectNoNoise)).toEqual([]);
  });
});
