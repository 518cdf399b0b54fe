import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A clone of this repository is all a user has: no test, doc, script or source file may point
// at a file outside it (the design notes and fixtures this project was built from stay behind).
// The patterns are assembled from pieces so this file does not match them itself.

const root = fileURLToPath(new URL('../', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', 'coverage']);

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    // Dot folders are the user's (.partner-local/ of the README, .git) except the CI script's.
    if (SKIP.has(name) || (name.startsWith('.') && name !== '.ci')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|mjs|js|json|md|yaml|yml|sh)$/.test(name) || name === 'run') out.push(p);
  }
  return out;
}

const OUTSIDE = [
  // the parent folder of a checkout, the design notes, their fixtures and tools
  new RegExp(['\\.\\./', 'shared\\b'].join('')),
  new RegExp(['shared/', '(fixtures|spec|tools|DES', 'IGN)'].join('')),
  new RegExp(['/wo', 'rk/'].join('')),
  // citations of a design document the reader does not have
  new RegExp(['\\bDES', 'IGN\\b'].join('')),
];

describe('the repository stands alone', () => {
  it('no file refers to a path outside the repository or to design notes a user lacks', () => {
    const files = walk(root).filter((f) => !f.endsWith('package-lock.json'));
    expect(files.length).toBeGreaterThan(100);
    const hits: string[] = [];
    for (const f of files) {
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (OUTSIDE.some((re) => re.test(line))) hits.push(`${relative(root, f)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(hits).toEqual([]);
  });
});
