import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST } from '../../src/cli/manifest/data.js';
import {
  CACHE_MODES,
  ensureBuilt,
  expectNoNoise,
  install,
  partner,
  type Run,
  root,
  subcommands,
} from './harness.js';

// `--help` of every command through the launcher, as a user's shell runs it: exit 0, the usage
// line, nothing on stderr. The commands are found the way a user finds them, from the built
// program's own help (the "Commands:" of each group, recursively), so a new command is covered
// without editing this file; a floor on the count and the manifest's commands catch an
// enumeration that breaks. Then the same pages without a usable V8 code cache (absent, damaged):
// the same text, the same silence.

/** Every help page of the program under `pkg`, by command path ('' for the root). */
async function crawl(pkg: string): Promise<Map<string, Run>> {
  const pages = new Map<string, Run>();
  let level: string[][] = [[]];
  // Bounded: the tree is three levels deep today; ten would be a loop.
  for (let depth = 0; level.length > 0 && depth < 10; depth++) {
    const runs = await Promise.all(level.map((path) => partner([...path, '--help'], { pkg })));
    const next: string[][] = [];
    runs.forEach((r, i) => {
      const path = level[i]!;
      pages.set(path.join(' '), r);
      for (const name of subcommands(r.stdout)) next.push([...path, name]);
    });
    level = next;
  }
  expect(level, 'the command tree is deeper than 10 levels: a loop?').toEqual([]);
  return pages;
}

const leavesOf = (pages: Map<string, Run>) =>
  [...pages.entries()].filter(([, r]) => subcommands(r.stdout).length === 0).map(([path]) => path);

let pages: Map<string, Run>;

beforeAll(async () => {
  ensureBuilt();
  pages = await crawl(install('present'));
}, 600_000);

describe('--help of every command (code cache present)', () => {
  it('finds every command: at least 100 leaves, every CLI command of the manifest among them', () => {
    const leaves = leavesOf(pages);
    expect(leaves.length).toBeGreaterThanOrEqual(100);
    const fromManifest = MANIFEST.ops.filter((op) => op.cli).map((op) => op.cli!.command.join(' '));
    expect(fromManifest.length).toBeGreaterThan(50);
    expect(fromManifest.filter((c) => !leaves.includes(c))).toEqual([]);
    // Hand-written commands are found too, not only the manifest's.
    for (const c of ['webhooks sign', 'webhooks verify', 'completion', 'openapi', 'menu push', 'local start'])
      expect(leaves).toContain(c);
  });

  it('each page: exit 0, its usage line, nothing on stderr', () => {
    const bad: string[] = [];
    for (const [path, r] of pages) {
      const usage = `Usage: partner${path ? ` ${path}` : ''}`;
      if (r.code !== 0) bad.push(`${path}: exit ${r.code}`);
      if (!r.stdout.startsWith(usage)) bad.push(`${path}: no "${usage}" (${r.stdout.slice(0, 60)})`);
      if (r.stderr !== '') bad.push(`${path}: stderr ${r.stderr}`);
      bad.push(...expectNoNoise(r));
    }
    expect(bad).toEqual([]);
  });
});

describe('documents named in help', () => {
  it('every docs/… path a help page names exists and ships in the package (npm pack)', () => {
    // The help of an installed package must not point at a file the user does not have
    // (docs/cli.md: the package ships docs/*.md, docs/examples/ and the menu file schema).
    const refs = new Set<string>();
    for (const r of pages.values()) for (const m of r.stdout.matchAll(/\bdocs\/[\w./-]*\w/g)) refs.add(m[0]);
    expect(refs.size).toBeGreaterThan(0);
    const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(packed.status, packed.stderr).toBe(0);
    const files = new Set(
      (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path),
    );
    expect([...refs].filter((r) => !files.has(r))).toEqual([]);
  }, 180_000);
});

// Without a usable cache (absent: nothing to read; damaged: read, rejected by V8) the launcher
// compiles the hot chunk from its source either way: the pages are shared out between the two
// modes, every page once, instead of every page twice (each run is a process start; the machine
// may be busy).
const uncached = CACHE_MODES.filter((m) => m !== 'present');
describe.each(uncached)('--help of every command (code cache %s)', (mode) => {
  it('prints the same pages as with the cache, exit 0, nothing on stderr', async () => {
    const pkg = install(mode);
    const all = [...pages.keys()];
    expect(all.length).toBeGreaterThanOrEqual(100);
    const paths = all.filter((_, i) => i % uncached.length === uncached.indexOf(mode));
    const runs = await Promise.all(
      paths.map((p) => partner([...(p ? p.split(' ') : []), '--help'], { pkg })),
    );
    const bad: string[] = [];
    runs.forEach((r, i) => {
      const path = paths[i]!;
      if (r.code !== 0) bad.push(`${path}: exit ${r.code}`);
      if (r.stderr !== '') bad.push(`${path}: stderr ${r.stderr}`);
      if (r.stdout !== pages.get(path)!.stdout) bad.push(`${path}: not the same page as with the cache`);
    });
    expect(bad).toEqual([]);
  }, 600_000);
});
