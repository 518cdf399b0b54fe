// The CLI's plain-JSON view of the operation table. Built from the zod contract at build time
// (scripts/build.mjs) so registering the command tree never loads zod; in tests it is derived
// from the contract directly by the same function (build.ts).

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'any';

export interface ManifestField {
  /** Wire name, e.g. `brand_ids`. */
  name: string;
  type: FieldType;
  /** Element type of an array. */
  items?: FieldType;
  /** Allowed values (of the field, or of the elements of an array). */
  enum?: (string | number)[];
  nullable?: boolean;
  required: boolean;
  description?: string;
  default?: unknown;
  /** Inclusive bounds of a number (or of an array's numbers), when the schema has them. */
  minimum?: number;
  maximum?: number;
  /** `date-time`: an ISO 8601 time; `date-or-time`: that or a bare `YYYY-MM-DD`. */
  format?: 'date-time' | 'date-or-time';
}

export interface ManifestOp {
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  auth: 'partner' | 'operator' | 'none';
  scopes: string[];
  summary: string;
  status: number;
  paginated: boolean;
  /** null: reachable only through `partner api`. */
  cli: { command: string[]; example: string; flags?: Record<string, string> } | null;
  params: ManifestField[];
  query: ManifestField[];
  /** Top-level body fields; `open` when the body accepts fields beyond these. */
  body: { fields: ManifestField[]; open: boolean } | null;
}

export interface Manifest {
  ops: ManifestOp[];
}
