#!/usr/bin/env node
// Thin launcher: the CLI is bundled into dist/ by `npm run build` (run by `prepare`). CommonJS
// (bin/package.json) so that `--version` never starts Node's ES module loader (~5 ms), and so that
// the hot chunk can be compiled here with its V8 code cache (docs/development.md, start-up).
'use strict';

const fs = require('node:fs');

const dist = `${__dirname}/../dist`;
// What every command but --version runs, in load order (the hot chunk requires the runtime), each
// with the V8 code cache the build made beside it (`<file>.v8cache`, scripts/build.mjs).
const HOT = ['chunks/rolldown-runtime.cjs', 'chunks/api-command.cjs'];

/**
 * Compiles one CommonJS file through vm.Script with its code cache and registers it in
 * require.cache, so that the bundle's own require() of it finds it there. V8 checks the cache
 * against the source, the V8 version and the flags and rejects a mismatched or damaged one: then
 * it has compiled the source normally, which is all that is lost. A missing cache is the same.
 */
function loadCached(file, useCache) {
  const vm = require('node:vm');
  const Module = require('node:module');
  const source = fs.readFileSync(file, 'utf8');
  let cachedData;
  if (useCache) {
    try {
      cachedData = fs.readFileSync(`${file}.v8cache`);
    } catch {}
  }
  // No importModuleDynamically: on Node 20 a script compiled from a code cache loses it
  // (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), and without a cache Node's default loader prints an
  // ExperimentalWarning. The build leaves no import() in the hot chunks (scripts/build.mjs).
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const mod = new Module(file, module);
  mod.filename = file;
  require.cache[file] = mod;
  const dir = require('node:path').dirname(file);
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, dir);
  mod.loaded = true;
  return { file, script, cached: cachedData !== undefined, rejected: script.cachedDataRejected === true };
}

/**
 * Loads the hot chunks (with their caches unless `writeCache`) and runs the CLI. The build calls
 * it with `writeCache` once, after which the caches hold every function that run compiled.
 */
function runCli(argv, { writeCache = false } = {}) {
  // Also set by main(); here first because the code cache is only accepted under the flags it was
  // made with, and V8 would otherwise see them change between the compile and the build's run.
  process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  const path = require('node:path');
  // The entry first: without a build, the error names dist/cli.cjs. It loads the hot chunk only
  // when main() runs, from require.cache, where loadCached has put it by then.
  const { main } = require(path.resolve(dist, 'cli.cjs'));
  const loaded = HOT.map((f) => loadCached(path.resolve(dist, f), !writeCache));
  return main(argv).then((code) => {
    if (writeCache)
      for (const l of loaded) fs.writeFileSync(`${l.file}.v8cache`, l.script.createCachedData());
    return code;
  });
}

if (require.main !== module) {
  // Required by the build (to write the caches) and by tests; nothing runs.
  module.exports = { runCli, loadCached, HOT, dist };
} else {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    // Answered here, before the bundle loads (start-up budget, docs/benchmarks.md): the version is
    // package.json's, as the bundle's own is (scripts/build.mjs defines it from the same file).
    // Written to fd 1 directly: creating process.stdout's stream costs as much again.
    const line = `${JSON.parse(fs.readFileSync(`${__dirname}/../package.json`, 'utf8')).version}\n`;
    try {
      fs.writeSync(1, line);
    } catch (err) {
      // A reader gone (`| head -0`) is no error; a full non-blocking pipe takes the stream's way.
      if (err.code === 'EAGAIN') process.stdout.write(line);
      else if (err.code !== 'EPIPE') throw err;
    }
  } else {
    // Through a promise so that a missing dist/ (a throw in runCli) reaches the handler below.
    Promise.resolve(argv)
      .then(runCli)
      .then(
        (code) => {
          process.exitCode = code;
        },
        (err) => {
          // A checkout without `npm run build` (or a dist/ half removed): say so in one line, not
          // with the stack of a failed require. Looked at only here, so a start costs no stat.
          const path = require('node:path');
          const built = ['cli.cjs', ...HOT].every((f) => fs.existsSync(path.resolve(dist, f)));
          process.stderr.write(
            built
              ? `partner: unexpected error: ${err?.stack ?? err}\n`
              : `partner: not built (${path.resolve(dist)} is missing or incomplete): run \`npm run build\` in ${path.resolve(__dirname, '..')}\n`,
          );
          process.exitCode = 1;
        },
      );
  }
}
