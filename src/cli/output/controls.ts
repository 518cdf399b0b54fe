import type { Io, OutStream } from '../io.js';
import { UsageError } from '../errors.js';
import { checkFields, parseFields, selectFields } from './fields.js';
import { JsonStreamFilter } from './json-stream.js';

// The output controls at work: narrow to fields, then jq or a template, per JSON value the
// command prints. Everything a flag can get wrong is checked before the command runs.

interface ControlFlags {
  fields?: string;
  jq?: string;
  template?: string;
  /** For messages: `orders list`. */
  what: string;
  /** The operation behind the command: its fields are checked before any request. */
  opId?: string | undefined;
  /** Colours allowed on stdout (a terminal, no NO_COLOR, no --no-color): --jq colours its JSON. */
  color?: boolean;
}

type Transform = (value: unknown, compact: boolean) => Promise<string>;

/** Checks the flags and returns what turns one JSON value into the text to print. */
export async function outputTransform(io: Io, f: ControlFlags): Promise<Transform> {
  const fields = f.fields !== undefined ? parseFields(f.fields) : undefined;
  let known: readonly string[] | undefined;
  if (fields && f.opId) {
    const { RECORD_FIELDS } = await import('./record-fields-data.js');
    const rf = RECORD_FIELDS[f.opId];
    if (!rf)
      throw new UsageError(
        `--json ${fields.join(',')}: ${f.what} prints no records to select fields from; use --jq`,
      );
    checkFields(fields, rf.fields, f.what);
    known = rf.fields;
  }
  let jq: ((v: unknown) => Promise<string>) | undefined;
  if (f.jq !== undefined) {
    const expr = f.jq;
    const { checkJq, runJq } = await import('./jq.js');
    await checkJq(expr);
    jq = (v) => runJq(v, expr, io.stdoutIsTTY, f.color === true);
  }
  let template: ((v: unknown) => string) | undefined;
  if (f.template !== undefined) {
    const { compileTemplate } = await import('./template.js');
    template = await compileTemplate(f.template, () => io.clock.now());
  }
  return async (value, compact) => {
    const v = fields ? selectFields(value, fields, f.what, known) : value;
    if (jq) return jq(v);
    if (template) return template(v);
    return `${JSON.stringify(v, null, compact ? undefined : 2)}\n`;
  };
}

/** A stdout for the command that applies the controls to each JSON value it writes. */
export async function createOutputFilter(out: OutStream, io: Io, f: ControlFlags): Promise<JsonStreamFilter> {
  const transform = await outputTransform(io, f);
  const flag = f.jq !== undefined ? '--jq' : f.template !== undefined ? '--template' : '--json FIELDS';
  return new JsonStreamFilter(out, transform, flag);
}
