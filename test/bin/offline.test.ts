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

  it('no run of this mode printed a stack trace, a Node warning or an internal error', () => {
    // The checks above compare stderr exactly where they can; this catches the rest.
    expect(runs.length).toBeGreaterThan(5);
    expect(runs.flatMap(expectNoNoise)).toEqual([]);
  });
});
