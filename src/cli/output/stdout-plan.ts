import { UsageError } from '../errors.js';
import type { Io } from '../io.js';

// What a command's stdout goes through: the output controls (--json FIELDS, --jq, --template)
// and the pager. Cheap to load: the parts that do the work load only when a flag asks for them.

interface OutputFlags {
  json?: boolean | string;
  jq?: string;
  template?: string;
  /** false with --no-pager. */
  pager?: boolean;
  /** false with --no-color. */
  color?: boolean;
}

interface StdoutPlan {
  /** The Io the command gets (its stdout filtered and/or paged). */
  io: Io;
  /** JSON output asked for: --json (with or without fields), --jq or --template. */
  json: boolean;
  /** Flushes the filter (its errors surface here) and waits for the pager to be quit. */
  finish(): Promise<void>;
  /** The command failed: what it wrote stays as it is; only the pager is waited for. */
  abort(): Promise<void>;
}

interface PlanOptions {
  /** Command path for messages, e.g. `orders list`. */
  what: string;
  /** The operation the command runs, whose record fields the contract knows. */
  opId?: string | undefined;
  /** The command applies --jq/--template itself (`partner api`). */
  ownFilter?: boolean;
  /** Long one-shot output: worth a pager on a terminal. */
  pageable: boolean;
}

/** `--json id,status` → the field list text; bare `--json` (true or '') → undefined. */
export function fieldsFlag(json: OutputFlags['json']): string | undefined {
  return typeof json === 'string' && json.trim() !== '' ? json : undefined;
}

export async function planStdout(io: Io, flags: OutputFlags, o: PlanOptions): Promise<StdoutPlan> {
  const fields = fieldsFlag(flags.json);
  if (flags.jq !== undefined && flags.template !== undefined)
    throw new UsageError('--jq and --template cannot be used together: pick one');
  const filtering =
    !o.ownFilter && (fields !== undefined || flags.jq !== undefined || flags.template !== undefined);
  let out = io.stdout;
  let closePager = async () => {};
  if (o.pageable && flags.pager !== false && io.stdoutIsTTY) {
    const { openPager } = await import('../pager.js');
    const pager = openPager(io);
    if (pager) {
      out = pager.out;
      closePager = () => pager.close();
    }
  }
  let flush = async () => {};
  if (filtering) {
    const [{ createOutputFilter }, { colorAllowed }] = await Promise.all([
      import('./controls.js'),
      import('../context.js'),
    ]);
    const filter = await createOutputFilter(out, io, {
      color: colorAllowed(io, io.stdoutIsTTY, flags.color),
      ...(fields !== undefined ? { fields } : {}),
      ...(flags.jq !== undefined ? { jq: flags.jq } : {}),
      ...(flags.template !== undefined ? { template: flags.template } : {}),
      what: o.what,
      opId: o.opId,
    });
    out = filter;
    flush = () => filter.finish();
  }
  const planned: Io = out === io.stdout ? io : { ...io, stdout: out };
  return {
    io: planned,
    json: flags.json !== undefined || flags.jq !== undefined || flags.template !== undefined,
    async finish() {
      try {
        await flush();
      } finally {
        await closePager();
      }
    },
    abort: () => closePager(),
  };
}
