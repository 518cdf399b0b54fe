#!/usr/bin/env node
// Thin launcher: the CLI is bundled into dist/ by `npm run build` (run by `prepare`).
import { main } from '../dist/cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`partner: unexpected error: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);
