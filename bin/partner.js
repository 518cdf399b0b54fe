#!/usr/bin/env node
// Thin launcher: the CLI is bundled into dist/ by `npm run build` (run by `prepare`). CommonJS
// (bin/package.json) so that `--version` never starts Node's ES module loader (~5 ms).
'use strict';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // Answered here, before the bundle loads (start-up budget, docs/benchmarks.md): the version is
  // package.json's, as the bundle's own is (scripts/build.mjs defines it from the same file).
  // Written to fd 1 directly: creating process.stdout's stream costs as much again.
  const fs = require('node:fs');
  const line = `${JSON.parse(fs.readFileSync(`${__dirname}/../package.json`, 'utf8')).version}\n`;
  try {
    fs.writeSync(1, line);
  } catch (err) {
    // A reader gone (`| head -0`) is no error; a full non-blocking pipe takes the stream's way.
    if (err.code === 'EAGAIN') process.stdout.write(line);
    else if (err.code !== 'EPIPE') throw err;
  }
} else {
  import('../dist/cli.js').then(({ main }) =>
    main(argv).then(
      (code) => {
        process.exitCode = code;
      },
      (err) => {
        process.stderr.write(`partner: unexpected error: ${err?.stack ?? err}\n`);
        process.exitCode = 1;
      },
    ),
  );
}
