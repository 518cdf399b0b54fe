import { z } from 'zod';
import type { OperationSpec } from '../../contract/operation.js';

// The fields `--json FIELDS` can select, per operation, read from the response schema of the
// contract: a page's `results` items, a list's items, or the record itself. Computed at build
// time (scripts/build.mjs) so the CLI never loads zod for it; tests derive it directly.

type RecordShape = 'page' | 'list' | 'record';

export interface RecordFields {
  shape: RecordShape;
  fields: string[];
}

type Json = Record<string, unknown>;

/** The property names of an object schema (allOf merged, anyOf/oneOf united); undefined when not an object. */
function objectFields(s: Json | undefined): string[] | undefined {
  if (!s) return undefined;
  const alts = (s.anyOf ?? s.oneOf ?? s.allOf) as Json[] | undefined;
  if (Array.isArray(alts)) {
    const all = alts.map(objectFields).filter((f): f is string[] => f !== undefined);
    return all.length ? [...new Set(all.flat())] : undefined;
  }
  if (s.type !== 'object' || !s.properties) return undefined;
  return Object.keys(s.properties as Json);
}

function isPageSchema(s: Json): boolean {
  const props = s.properties as Json | undefined;
  return (
    s.type === 'object' &&
    props !== undefined &&
    (props.results as Json | undefined)?.type === 'array' &&
    'total' in props &&
    'page' in props
  );
}

function recordFieldsOf(response: z.ZodType): RecordFields | undefined {
  const js = z.toJSONSchema(response, { io: 'output', unrepresentable: 'any' }) as Json;
  if (isPageSchema(js)) {
    const items = ((js.properties as Json).results as Json).items as Json | undefined;
    const fields = objectFields(items);
    return fields ? { shape: 'page', fields } : undefined;
  }
  if (js.type === 'array') {
    const fields = objectFields(js.items as Json | undefined);
    return fields ? { shape: 'list', fields } : undefined;
  }
  const fields = objectFields(js);
  return fields?.length ? { shape: 'record', fields } : undefined;
}

/** Operation id → its selectable fields (operations whose payload has none are left out). */
export function buildRecordFields(ops: readonly OperationSpec[]): Record<string, RecordFields> {
  const out: Record<string, RecordFields> = {};
  for (const op of ops) {
    const f = recordFieldsOf(op.response);
    if (f) out[op.id] = f;
  }
  return out;
}
