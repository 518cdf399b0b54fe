import type { ManifestField } from '../manifest/types.js';
import type { Ctx } from '../context.js';
import { UsageError } from '../errors.js';
import { coerceArg, coerceFlag, readJsonArg } from '../input.js';
import { canPrompt } from '../io.js';
import { render } from '../output/index.js';
import type { FlagSpec, FlagValues, OperationCommand } from './derive.js';

// Runs a derived operation command: positional args → path params, flags → query and body,
// `--data` for the whole body (flags override its fields), then one call and the output.

/** Columns of a terminal stream minus one (undefined when it does not say). */
function terminalWidth(stream: unknown): number | undefined {
  const cols = (stream as { columns?: number }).columns;
  return cols && cols > 20 ? cols - 1 : undefined;
}

function camel(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());
}

function rawFlag(opts: FlagValues, f: FlagSpec): unknown {
  const values = [f.name, ...f.aliases].map((n) => opts[camel(n)]).filter((v) => v !== undefined);
  if (values.length === 0) return undefined;
  if (f.kind === 'list') return values.flat();
  return values[0];
}

interface OperationInput {
  params: Record<string, string | number>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | unknown[] | undefined;
  idempotencyKey?: string;
}

async function promptFor(ctx: Ctx, field: ManifestField, flag: string): Promise<unknown> {
  const value = await ctx.io.prompter.input({
    message: `${field.name}${field.description ? ` (${field.description})` : ''}:`,
    validate: (v) => {
      if (v.trim() === '') return `${field.name} is required`;
      try {
        coerceFlag(field, field.type === 'array' ? [v] : v, flag);
        return true;
      } catch (err) {
        return (err as Error).message;
      }
    },
  });
  return coerceFlag(field, field.type === 'array' ? [value] : value, flag);
}

/** Builds the request from what was typed (pure apart from reading --data and prompting). */
async function buildInput(
  ctx: Ctx,
  spec: OperationCommand,
  args: readonly string[],
  opts: FlagValues,
): Promise<OperationInput> {
  const params: Record<string, string | number> = {};
  spec.args.forEach((a, i) => {
    params[a.name] = coerceArg(a.field, args[i] ?? '', a.label);
  });
  const query: Record<string, unknown> = {};
  let body: Record<string, unknown> | unknown[] | undefined;
  const bodyFlag = spec.bodyOption ? `--${spec.bodyOption}` : '';
  if (spec.bodyOption && opts[spec.bodyOption] !== undefined) {
    const parsed = await readJsonArg(String(opts[spec.bodyOption]), bodyFlag, ctx.io);
    if (
      spec.op.body?.fields.length &&
      (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    ) {
      throw new UsageError(`${bodyFlag} must be a JSON object for ${spec.path.join(' ')}`);
    }
    body = parsed as Record<string, unknown>;
  }
  for (const f of spec.flags) {
    const v = coerceFlag(f.field, rawFlag(opts, f), `--${f.name}`, ctx.io.clock.now());
    if (v === undefined) continue;
    if (f.in === 'query') query[f.field.name] = v;
    else {
      if (Array.isArray(body))
        throw new UsageError(`--${f.name} cannot be combined with a JSON array in ${bodyFlag}`);
      body = { ...(body ?? {}), [f.field.name]: v };
    }
  }
  const fill = spec.override?.fill;
  if (fill) {
    const req = { params, query, body };
    await fill({ ctx, input: req, args: args.slice(spec.args.length), opts });
    body = req.body;
  }
  const omitted = new Set(spec.override?.omit ?? []);
  // Required inputs: from a flag, --data, or a prompt on a terminal; otherwise a usage error naming the flag.
  for (const f of spec.flags) {
    if (!f.field.required) continue;
    const have =
      f.in === 'query' ? query[f.field.name] !== undefined : isObj(body) && body[f.field.name] !== undefined;
    if (have) continue;
    const promptable = f.field.type !== 'object' && f.field.type !== 'any' && f.kind !== 'boolean';
    if (promptable && canPrompt(ctx.io)) {
      const v = await promptFor(ctx, f.field, `--${f.name}`);
      if (f.in === 'query') query[f.field.name] = v;
      else body = { ...(isObj(body) ? body : {}), [f.field.name]: v };
      continue;
    }
    const alt = f.in === 'body' && bodyFlag ? ` (or give ${f.field.name} in ${bodyFlag})` : '';
    throw new UsageError(`missing required flag --${f.name}${alt}`);
  }
  // Required body fields no flag covers (reserved names): only --data can carry them.
  for (const field of spec.op.body?.fields ?? []) {
    if (!field.required || omitted.has(field.name) || spec.flags.some((f) => f.field === field)) continue;
    if (spec.op.auth !== 'operator' && field.name === 'business_id') continue;
    if (!(isObj(body) && body[field.name] !== undefined)) {
      throw new UsageError(`missing required field ${field.name}: give it in ${bodyFlag || 'the body'}`);
    }
  }
  const key = opts.idempotencyKey;
  if (key !== undefined && (typeof key !== 'string' || key === '' || key.length > 64)) {
    throw new UsageError('--idempotency-key must be 1 to 64 characters');
  }
  return { params, query, body, ...(typeof key === 'string' ? { idempotencyKey: key } : {}) };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `--yes`, or a confirmation on a terminal; never a silent destructive default. */
async function confirmOrThrow(ctx: Ctx, question: string, yes: unknown): Promise<boolean> {
  if (yes === true) return true;
  if (!canPrompt(ctx.io))
    throw new UsageError(`${question.replace(/\?$/, '')}: pass --yes to confirm (no terminal to ask on)`);
  return ctx.io.prompter.confirm({ message: question, default: false });
}

export async function runOperation(
  ctx: Ctx,
  spec: OperationCommand,
  args: readonly string[],
  opts: FlagValues,
): Promise<number> {
  const { op } = spec;
  const input = await buildInput(ctx, spec, args, opts);
  if (spec.confirm) {
    const what = `${spec.path.slice(0, -1).join(' ')} ${Object.values(input.params).join(' ')}`.trim();
    const question = spec.override?.confirm?.(input) ?? `Delete ${what}?`;
    if (!(await confirmOrThrow(ctx, question, opts.yes))) {
      ctx.io.stderr.write('Cancelled.\n');
      return 1;
    }
  }
  const { client } =
    op.auth === 'operator'
      ? await ctx.operator({
          ...(typeof opts.server === 'string' ? { server: opts.server } : {}),
          ...(typeof opts.token === 'string' ? { token: opts.token } : {}),
          ...(typeof opts.data === 'string' ? { dataDir: opts.data } : {}),
        })
      : await ctx.partner();
  const out = ctx.io.stdout;
  const renderOpts = {
    json: ctx.json,
    tty: ctx.io.stdoutIsTTY,
    color: ctx.color,
    now: ctx.io.clock.now(),
    opId: op.id,
    // One column short of the terminal's width: no terminal wraps a line that ends at the edge early.
    width: ctx.io.stdoutIsTTY ? terminalWidth(ctx.io.stdout) : undefined,
  };

  if (spec.all && opts.all === true) {
    // Every page, printed in the shape of one page (docs/cli.md): `{results, page, size, total}`
    // holding every item, so a script reads `.results` with or without --all.
    const size = typeof input.query.size === 'number' ? input.query.size : 100;
    const { page: _page, size: _size, ...query } = input.query;
    const merged = await ctx.spin(`${op.summary}…`, async (progress) => {
      const results: unknown[] = [];
      let total = 0;
      let page = 0;
      for await (const p of client.pages(op.id, { params: input.params, query, size })) {
        results.push(...p.results);
        total = p.total;
        page++;
        const pages = Math.max(page, Math.ceil(total / Math.max(1, size)));
        if (page < pages) progress(`page ${page + 1} of ${pages}`);
      }
      return { results, page: 1, size: results.length, total };
    });
    await render(out, merged, renderOpts);
    return 0;
  }

  const data = await ctx.spin(`${op.summary}…`, () =>
    client.call(op.id, {
      params: input.params,
      query: input.query,
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
    }),
  );
  await render(out, data, renderOpts);
  if (!ctx.json && isObj(data) && typeof data.secret === 'string') {
    ctx.io.stderr.write(
      'note: the secret is shown this once; store it now (e.g. `partner profiles add NAME --secret -`)\n',
    );
  }
  return 0;
}
