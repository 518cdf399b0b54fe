import type { z } from 'zod';
import type { OperationSpec } from '../../contract/operation.js';
import { ApiError, type FieldIssue } from '../errors.js';
import { illFormedString } from './json-body.js';

// Stage: the body's shape, then params, query and body through the operation's zod schemas. Every
// failure is collected and answered at once: 400 request_invalid with [{path, message}].

function issues(err: z.ZodError, root: string): FieldIssue[] {
  return err.issues.map((i) => ({
    path: [root, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    // A bad map key: zod says only "Invalid key in record"; the key's own rule says why.
    message: i.code === 'invalid_key' && i.issues[0] ? i.issues[0].message : i.message,
  }));
}

function parsePart(schema: z.ZodType | undefined, value: unknown, root: string, out: FieldIssue[]): unknown {
  if (!schema) return {};
  // A path or query may carry %00 too: refused as in a body, before any store sees it.
  const bad = root === 'body' ? undefined : illFormedString(value);
  if (bad) {
    out.push({ path: [root, ...bad.path], message: bad.why });
    return undefined;
  }
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  out.push(...issues(r.error, root));
  return undefined;
}

function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`;
}

/** What a request gives to validate: its parsed body, path parameters and query. */
interface RawInput {
  body: unknown;
  params: unknown;
  query: unknown;
}

/**
 * The operation's input, validated, or 400 request_invalid listing every problem. `query` is the
 * operation's query schema (a partner operation without one still takes the tenancy keys).
 */
export function validInput(
  op: OperationSpec,
  query: z.ZodType | undefined,
  req: RawInput,
): { params: unknown; query: unknown; body: unknown } {
  if (op.body && req.body !== undefined && !isJsonObject(req.body)) {
    throw new ApiError('request_invalid', 'the body must be a JSON object', [
      { path: ['body'], message: `expected a JSON object, got ${jsonType(req.body)}` },
    ]);
  }
  const bad: FieldIssue[] = [];
  const input = {
    params: parsePart(op.params, req.params, 'params', bad),
    query: parsePart(query, req.query, 'query', bad),
    body: op.body ? parsePart(op.body, req.body, 'body', bad) : undefined,
  };
  // An empty object is tolerated (some clients always send one); anything else is a mistake.
  if (
    !op.body &&
    op.method !== 'GET' &&
    req.body !== undefined &&
    !(isJsonObject(req.body) && Object.keys(req.body).length === 0)
  ) {
    bad.push({ path: ['body'], message: 'this operation takes no body' });
  }
  // Validation failures are not stored against the Idempotency-Key: the client may fix and resend.
  if (bad.length > 0)
    throw new ApiError(
      'request_invalid',
      `invalid request: ${bad.map((b) => `${b.path.join('.')}: ${b.message}`).join('; ')}`,
      bad,
    );
  return input;
}
