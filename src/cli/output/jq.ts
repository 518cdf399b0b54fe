import { UsageError } from '../errors.js';

// `--jq EXPR` through jq-wasm: the real jq compiled to WebAssembly, loaded only when the flag is
// used (kept external by the build, so it loads from node_modules). Output as gh prints it:
// strings raw, other values as JSON, indented on a terminal and one per line when piped.

type JqModule = { raw(data: string | object, filter: string, flags?: string[]): Promise<string> };

let loaded: Promise<JqModule> | undefined;

async function jq(): Promise<JqModule> {
  loaded ??= import('jq-wasm').then((m) => ((m as { default?: JqModule }).default ?? m) as JqModule);
  return loaded;
}

/** jq's message without its `jq: error…:` prefix noise, on one line. */
function jqMessage(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** Refuses an expression jq cannot compile, before any request is made. */
export async function checkJq(expr: string): Promise<void> {
  try {
    await (await jq()).raw('null', expr, ['-c']);
  } catch (err) {
    const msg = jqMessage(err);
    // Runtime errors on `null` (`.[]`, `error(…)`) say nothing about the real input: only a
    // compile error is the user's typo.
    if (/compile error/.test(msg)) throw new UsageError(`--jq: ${msg}`);
  }
}

/** A jq failure while filtering (a runtime error such as indexing a number). */
class JqError extends Error {
  override readonly name = 'JqError';
}

/**
 * The output of `expr` over `value`, each result on its own line (empty when jq yields nothing):
 * indented when `pretty` (a terminal), coloured with jq's own -C when `color` (a terminal that
 * allows colour), as jq itself prints at a terminal; strings stay raw (-r) either way.
 */
export async function runJq(value: unknown, expr: string, pretty: boolean, color = false): Promise<string> {
  let text: string;
  try {
    // jq-wasm puts -M (no colour) in front of any flags that do not contain "-M", and jq lets -M
    // win over -C; a "-M" given as the value of an unused --arg keeps it out, and means nothing.
    const flags = [...(pretty ? ['-r'] : ['-r', '-c']), ...(color ? ['-C', '--arg', '__partner', '-M'] : [])];
    text = await (await jq()).raw(JSON.stringify(value) ?? 'null', expr, flags);
  } catch (err) {
    throw new JqError(`--jq: ${jqMessage(err)}`);
  }
  return text === '' ? '' : `${text}\n`;
}
