#!/usr/bin/env node
// Thin launcher: the CLI is bundled into dist/ by `npm run build` (run by `prepare`).
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // Answered here, before the bundle loads (start-up budget, docs/benchmarks.md): the version is
  // package.json's, as the bundle's own is (scripts/build.mjs defines it from the same file).
  const { readFileSync } = process.getBuiltinModule('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { main } = await import('../dist/cli.js');
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`partner: unexpected error: ${err?.stack ?? err}\n`);
      process.exitCode = 1;
    },
  );
}
