// Bundles the CLI with code splitting: commander and the command table load up front,
// everything else (client, server, prompts) as lazy chunks so start-up stays cheap. Then the
// library entry points (partner/client, partner/webhooks, partner/menu: docs/library.md) as ESM
// in dist/lib with their declarations in dist/types.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const root = new URL('..', import.meta.url).pathname;

// The CLI registers its commands from a plain-JSON manifest of the operation table, generated here
// from the zod contract so that start-up never loads zod (src/cli/manifest/data.ts is the source
// stand-in, derived at run time, that tests use).
async function generateManifest() {
  const dir = mkdtempSync(join(tmpdir(), 'partner-manifest-'));
  try {
    const out = join(dir, 'gen.mjs');
    await build({
      stdin: {
        contents:
          "import { OPERATION_LIST } from './src/contract/operations.js';\n" +
          "import { buildManifest } from './src/cli/manifest/build.js';\n" +
          "import { buildRecordFields } from './src/cli/output/record-fields.js';\n" +
          'export const manifest = buildManifest(OPERATION_LIST);\n' +
          'export const recordFields = buildRecordFields(OPERATION_LIST);\n',
        resolveDir: root,
        loader: 'ts',
      },
      outfile: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    });
    return await import(pathToFileURL(out).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const { manifest, recordFields } = await generateManifest();
// Stand-in modules replaced by the generated data: the manifest (loaded at start-up) and the
// fields `--json FIELDS` selects (loaded only when that flag is used).
const generated = {
  [resolve(root, 'src/cli/manifest/data.ts')]: `MANIFEST`,
  [resolve(root, 'src/cli/output/record-fields-data.ts')]: `RECORD_FIELDS`,
};
const data = { MANIFEST: manifest, RECORD_FIELDS: recordFields };
const manifestPlugin = {
  name: 'partner-manifest',
  setup(b) {
    b.onLoad(
      { filter: /[\\/]src[\\/]cli[\\/](manifest[\\/]data|output[\\/]record-fields-data)\.ts$/ },
      (args) => {
        const name = generated[resolve(args.path)];
        return name
          ? // JSON.parse of a string literal parses faster than the same object literal (V8's advice for big data).
            {
              contents: `export const ${name} = JSON.parse(${JSON.stringify(JSON.stringify(data[name]))});\n`,
              loader: 'js',
            }
          : undefined;
      },
    );
  },
};

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
  // Native addons and the server framework stay as real dependencies, loaded only when used; jq
  // (1.3 MB of WebAssembly in one file) and handlebars load from node_modules only for --jq/--template.
  external: ['better-sqlite3', 'fastify', '@napi-rs/keyring', 'jq-wasm', 'handlebars'],
  define: { __PARTNER_VERSION__: JSON.stringify(pkg.version) },
  plugins: [manifestPlugin],
  banner: {
    // Some bundled CommonJS dependencies call require(); give ESM chunks one.
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
});

// The page of `partner inspect` (docs/inspect.md): preact and our code in one minified file, its
// styles and HTML beside it, served from the package; nothing is fetched at run time.
await build({
  entryPoints: { app: 'src/inspect-ui/main.tsx' },
  outdir: 'dist/inspect',
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: 'src/inspect-ui/tsconfig.json',
  logLevel: 'warning',
});
await build({
  entryPoints: { app: 'src/inspect-ui/style.css' },
  outdir: 'dist/inspect',
  bundle: true,
  minify: true,
  logLevel: 'warning',
});
copyFileSync(
  new URL('../src/inspect-ui/index.html', import.meta.url),
  new URL('../dist/inspect/index.html', import.meta.url),
);

// The library: our code bundled per entry point (shared parts in chunks), every dependency left as
// an import of the installed package (zod, undici, yaml), as a library should.
await build({
  entryPoints: {
    client: 'src/client/index.ts',
    webhooks: 'src/webhooks/index.ts',
    menu: 'src/menu/index.ts',
  },
  outdir: 'dist/lib',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});

// Declarations by the project's own TypeScript (7: native, and it emits declarations).
const tsc = resolve(root, 'node_modules/typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', resolve(root, 'tsconfig.lib.json')], {
    cwd: root,
    stdio: 'pipe',
  });
} catch (err) {
  process.stderr.write(`${err.stdout ?? ''}${err.stderr ?? ''}`);
  throw new Error('declaration emit (tsc -p tsconfig.lib.json) failed');
}
