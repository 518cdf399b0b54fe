import { OPERATION_LIST } from '../../contract/operations.js';
import { buildRecordFields, type RecordFields } from './record-fields.js';

// In the bundle this module is replaced by the JSON the build generated (scripts/build.mjs), and
// it is loaded only when `--json FIELDS` is used. Under vitest it derives the same data directly.
export const RECORD_FIELDS: Readonly<Record<string, RecordFields>> = buildRecordFields(OPERATION_LIST);
