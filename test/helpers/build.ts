import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root directory. */
export const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Builds dist/ when a part of it is missing (a fresh clone, or a lone `vitest run`: `npm test`
 * builds first). Tests of the binary, the pty and the inspect page call it in their set-up.
 */
export function ensureBuilt(): void {
  const parts = ['dist/cli.js', 'dist/cli.cjs', 'dist/inspect/index.html'];
  if (parts.every((p) => existsSync(join(root, p)))) return;
  const b = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
}
