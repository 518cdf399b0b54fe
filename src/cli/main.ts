import type { Io } from './io.js';

/**
 * Entry point (bin/partner.js): runs the CLI and resolves to the exit code; never calls
 * process.exit, so tests run it in-process with an injected Io.
 */
export async function main(argv: readonly string[], io?: Io): Promise<number> {
  // Fast path: `--version` answers before commander or anything else is loaded (bin/partner.js
  // answers it even before this bundle loads; this one serves in-process callers).
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    (io?.stdout ?? process.stdout).write(`${__PARTNER_VERSION__}\n`);
    return 0;
  }
  // undici (listen, logs tail, inspect; API commands use node:http) parses HTTP with a WebAssembly
  // llhttp; V8 then optimises it on background threads and process exit waits for that (~130 ms
  // measured on Node 20), for a parser a short-lived CLI uses for a handful of responses. Baseline
  // (Liftoff) code only; must run before undici loads. (getBuiltinModule: no ESM facade to build.)
  process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  const { run, processIo } = await import('./program.js');
  return run(argv, io ?? processIo());
}
