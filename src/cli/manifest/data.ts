import { OPERATION_LIST } from '../../contract/operations.js';
import { buildManifest } from './build.js';
import type { Manifest } from './types.js';

// In the bundle this module is replaced by the JSON the build generated (scripts/build.mjs), so
// zod and the contract never load at start-up. Under vitest it derives the same data directly.
export const MANIFEST: Manifest = buildManifest(OPERATION_LIST);
