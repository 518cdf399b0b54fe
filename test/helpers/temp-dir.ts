import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

// The one way tests make temporary directories: each set of dirs is removed together, by default
// after the test file (vitest loads this module once per file, so the hook is the file's own).

export interface TempDirs {
  /** A fresh directory under the OS temp dir. */
  make(prefix?: string): string;
  /** Removes every directory made so far. */
  remove(): void;
}

export function tempDirs(defaultPrefix = 'partner-test-'): TempDirs {
  const made: string[] = [];
  return {
    make: (prefix = defaultPrefix) => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    remove: () => {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

const perFile = tempDirs();
afterAll(() => perFile.remove());

/** A fresh temp dir, removed after the test file. */
export function tempDir(prefix = 'partner-test-'): string {
  return perFile.make(prefix);
}
