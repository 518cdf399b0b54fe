// Bundles the CLI with code splitting (rolldown: it can put a chosen path into one chunk): the
// command tree, the run step of an API command and the client load as one chunk, everything else
// (server, prompts, flows) as lazy chunks so start-up stays cheap. Then the library entry points (partner/client, partner/webhooks, partner/menu: docs/library.md) as ESM
// in dist/lib with their declarations in dist/types.
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { build } from 'esbuild';
import { rolldown } from 'rolldown';
import { parseAst } from 'rolldown/parseAst';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  load(id) {
    const name = generated[resolve(id)];
    // JSON.parse of a string literal parses faster than the same object literal (V8's advice for big data).
    return name
      ? `export const ${name} = JSON.parse(${JSON.stringify(JSON.stringify(data[name]))});\n`
      : null;
  },
};

// commander requires node:child_process at load, for executable subcommands, which partner has
// none of: loaded on first use instead (~0.6 ms of CPU at every start, measured alone).
const lazyChildProcessPlugin = {
  name: 'partner-lazy-child-process',
  transform(code, id) {
    if (!/[\\/]commander[\\/]lib[\\/]command\.js$/.test(id)) return null;
    const eager = "const childProcess = require('node:child_process');";
    if (!code.includes(eager)) throw new Error(`commander changed: no "${eager}" in ${id}`);
    // Same line, same place: the source map stays right without a new one.
    const lazy = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
    return { code: code.replace(eager, lazy), map: null };
  },
};

// string-width 8 (bundled through wrap-ansi, once in the hot chunk, and through ora) builds an
// Intl.Segmenter and compiles Unicode property regular expressions (`/v`) as it loads: the hot
// chunk's load went from 29 to 74 ms of every command's start when wrap-ansi came in, and most
// commands never measure a width. Each is made on its first use instead: the same objects, so
// the widths are unchanged.
const lazyStringWidthPlugin = {
  name: 'partner-lazy-string-width',
  transform(code, id) {
    if (!/[\\/]string-width[\\/]index\.js$/.test(id) || !code.includes('new Intl.Segmenter()')) return null;
    let out = code;
    const swap = (eager, lazy) => {
      if (!out.includes(eager)) throw new Error(`string-width changed: no "${eager}" in ${id}`);
      out = out.replace(eager, lazy);
    };
    // Same lines, same places: the source map stays right without a new one.
    swap(
      'const segmenter = new Intl.Segmenter();',
      'let segmenter$ = undefined; const segmenter = { segment: (s) => (segmenter$ ??= new Intl.Segmenter()).segment(s) };',
    );
    for (const name of [
      'visibleCharacterRegex',
      'spacingMarkRegex',
      'rgiEmojiRegex',
      'unqualifiedKeycapRegex',
      'extendedPictographicRegex',
    ]) {
      const m = new RegExp(`const ${name} = (/.*/[a-z]*);`).exec(out);
      if (!m) throw new Error(`string-width changed: no ${name} in ${id}`);
      swap(m[0], `const ${name} = lazyRegExp$(() => ${m[1]});`);
    }
    // What string-width does with them: test, String#search and String#match.
    return {
      code: `${out}\nfunction lazyRegExp$(make) { let re; const get = () => (re ??= make()); return { test: (s) => get().test(s), [Symbol.search]: (s) => get()[Symbol.search](s), [Symbol.match]: (s) => get()[Symbol.match](s) }; }\n`,
      map: null,
    };
  },
};

// wrap-ansi 10 (text-width.ts's wrap helper: help and messages at a terminal) makes its own
// Intl.Segmenter as it loads: ~16 ms of CPU (V8 loads ICU's break-iterator data), which it uses
// only for text that is not plain ASCII. Made on its first use instead, like string-width's above.
// wrap-ansi is in a lazy chunk since; checkHotChunks() refuses an Intl object made at a hot
// chunk's load, whichever module brings it.
const lazyWrapAnsiPlugin = {
  name: 'partner-lazy-wrap-ansi',
  transform(code, id) {
    if (!/[\\/]wrap-ansi[\\/]index\.js$/.test(id) || !code.includes('new Intl.Segmenter()')) return null;
    const eager = 'const segmenter = new Intl.Segmenter();';
    if (!code.includes(eager)) throw new Error(`wrap-ansi changed: no "${eager}" in ${id}`);
    // Same line, same place: the source map stays right without a new one.
    const lazy =
      'let segmenter$ = undefined; const segmenter = { segment: (s) => (segmenter$ ??= new Intl.Segmenter()).segment(s) };';
    return { code: code.replace(eager, lazy), map: null };
  },
};

// What an API command runs before its first byte is sent: the command tree and everything it
// imports, the run step and the client. In one chunk with their dependencies: Node 20 spends
// ~0.5 ms on every ES module file it loads, and esbuild's automatic splitting spread this path
// over 17 files (issue 14). Everything else stays in lazy chunks of its own.
const HOT_ROOTS = ['src/cli/program.ts', 'src/cli/commands/run-operation.ts', 'src/client/client.ts'].map(
  (f) => resolve(root, f),
);

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const cli = await rolldown({
  input: { cli: resolve(root, 'src/cli/main.ts') },
  platform: 'node',
  // Sources import './x.js' for './x.ts' (TypeScript's ESM convention).
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  transform: { target: 'node20', define: { __PARTNER_VERSION__: JSON.stringify(pkg.version) } },
  // Native addons stay as real dependencies, loaded only when used (better-sqlite3 is optional:
  // docs/library.md); jq (1.3 MB of WebAssembly in one file) and handlebars load from node_modules
  // only for --jq/--template. The server's router (find-my-way) is bundled into the lazy server
  // chunk like pg, so that installing the package installs neither.
  external: [/^node:/, /^(better-sqlite3|@napi-rs\/keyring|jq-wasm|handlebars)(\/|$)/],
  plugins: [manifestPlugin, lazyChildProcessPlugin, lazyStringWidthPlugin, lazyWrapAnsiPlugin],
  logLevel: 'warn',
});
// CommonJS, not ES modules: the launcher (bin/partner.js) compiles the hot chunk itself through
// vm.Script with a V8 code cache, which spares both the compile and Node's ES module loader
// (issue 14; Node 20 has no module.enableCompileCache). The hot chunk and the bundler's runtime get
// fixed names so that the launcher finds them without a listing; lazy chunks keep their hashes.
const HOT_CHUNKS = ['api-command', 'rolldown-runtime'];
await cli.write({
  dir: 'dist',
  format: 'cjs',
  sourcemap: true,
  entryFileNames: '[name].cjs',
  // import() of an external (node: built-ins; better-sqlite3, jq-wasm, handlebars: all CommonJS)
  // becomes a require() behind a promise. The launcher compiles the hot chunk through vm.Script
  // with a code cache, and on Node 20 a script compiled from a code cache has no dynamic-import
  // callback (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING); without the cache the callback Node offers,
  // USE_MAIN_CONTEXT_DEFAULT_LOADER, prints an ExperimentalWarning. require() needs neither, and
  // a CommonJS bundle has it anyway. checkHotChunks() below holds the rule.
  dynamicImportInCjs: false,
  // Non-ASCII characters (…, ≥, – in messages) escaped: an all-ASCII file is read into a one-byte
  // string, where one such character makes the whole 320 KB hot chunk a two-byte one, slower to
  // decode and twice the memory at every start.
  charset: 'ascii',
  // Doc comments stripped (the source maps point at the sources): ~15 % less for every start to read.
  // Licence comments stay.
  comments: { legal: true, annotation: false, jsdoc: false },
  chunkFileNames: (chunk) =>
    HOT_CHUNKS.includes(chunk.name) ? `chunks/${chunk.name}.cjs` : 'chunks/[name]-[hash].cjs',
  codeSplitting: { groups: [{ name: 'api-command', test: (id) => HOT_ROOTS.includes(resolve(id)) }] },
});
await cli.close();
checkHotChunks();
// An ES module entry with the CLI's `main`, for callers in this repository that run the built CLI
// in-process; the binary does not use it.
writeFileSync(
  new URL('../dist/cli.js', import.meta.url),
  "import cli from './cli.cjs';\nexport const main = cli.main;\n",
);

// The V8 code caches of the hot chunks (bin/partner.js loads them): made by one run of an API
// command through the launcher, so that the functions that run compiled go in too, not only the
// top level. The run talks to a stand-in server on 127.0.0.1 that answers like the real one; its
// credential is a throw-away. Build artefacts, never written at run time. A cache that fails to
// be made only costs start-up time, so that is a warning, not a failed build.
await writeCodeCaches();

/**
 * Fails the build if a hot chunk (compiled by bin/partner.js through vm.Script) still has an
 * import() expression: one that dynamicImportInCjs could not turn into require() (a computed
 * specifier). It would fail at run time on the cached path only. Also if it makes an Intl object
 * (a segmenter, collator, number format...) as it loads, outside any function: each loads ICU
 * data, ~16 ms of every command's start for a segmenter (see lazyWrapAnsiPlugin).
 */
function checkHotChunks() {
  const FUNCTION = /^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/;
  for (const name of HOT_CHUNKS) {
    const file = resolve(root, `dist/chunks/${name}.cjs`);
    const source = readFileSync(file, 'utf8');
    const found = [];
    const intlAtLoad = [];
    const walk = (node, inFunction) => {
      if (Array.isArray(node)) for (const n of node) walk(n, inFunction);
      else if (node && typeof node === 'object') {
        if (node.type === 'ImportExpression') found.push(source.slice(node.start, node.end));
        if (
          !inFunction &&
          node.type === 'NewExpression' &&
          node.callee?.type === 'MemberExpression' &&
          node.callee.object?.type === 'Identifier' &&
          node.callee.object.name === 'Intl'
        )
          intlAtLoad.push(source.slice(node.start, node.end));
        const inner = inFunction || FUNCTION.test(node.type);
        for (const k in node) if (k !== 'type') walk(node[k], inner);
      }
    };
    walk(parseAst(source, { sourceType: 'script' }, file), false);
    if (found.length > 0)
      throw new Error(
        `${file} has import() that the launcher's vm.Script cannot run (use a static import or require): ${found.join(', ')}`,
      );
    if (intlAtLoad.length > 0)
      throw new Error(
        `${file} makes an Intl object as it loads (make it on first use, as lazyWrapAnsiPlugin does): ${intlAtLoad.join(', ')}`,
      );
  }
}

async function writeCodeCaches() {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end(
      JSON.stringify({
        request_id: 'req_build',
        data: [{ id: 1, status: 'PLACED', translation: { en: 'Placed' } }],
      }),
    );
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'partner-cache-'));
  try {
    const script = `require(${JSON.stringify(resolve(root, 'bin/partner.js'))}).runCli(['orders', 'statuses', '--json'], { writeCache: true }).then((c) => { process.exitCode = c; });`;
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      PARTNER_CONFIG_DIR: dir,
      PARTNER_KEYRING: 'off',
      NO_COLOR: '1',
    };
    const child = spawn(process.execPath, ['-e', script], {
      env: {
        ...env,
        PARTNER_BASE_URL: `http://127.0.0.1:${server.address().port}`,
        PARTNER_KEY: 'pk_build',
        PARTNER_SECRET: 'sk_build',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((r) => child.on('close', r));
    if (code !== 0)
      process.stderr.write(
        `warning: no V8 code cache for the CLI (the warm-up run exited ${code}): ${stderr}\n`,
      );
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

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
