// Bundles the CLI with code splitting: commander and the command table load up front,
// everything else (client, server, prompts) as lazy chunks so start-up stays cheap.
import { build } from 'esbuild';
import { rmSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  // Native addon and the server framework stay as real dependencies, loaded only by `local`/`operator`.
  external: ['better-sqlite3', 'fastify'],
  define: { __PARTNER_VERSION__: JSON.stringify(pkg.version) },
  banner: {
    // Some bundled CommonJS dependencies call require(); give ESM chunks one.
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
});
