// `partner/menu` (docs/library.md): the menu file of `partner menu push` and its planner, so a
// TypeScript integrator can push a menu from code with the same resumable plan.

// The file: YAML/JSON text or an object, validated as a whole (every problem with its line).
export {
  type FileProblem,
  type LoadedMenu,
  loadMenuFile,
  MenuFileError,
  type ParsedMenu,
  parseMenuText,
  validateMenu,
} from './load.js';
export {
  formatPath,
  type MenuFile,
  type MenuFileCategoryT as MenuFileCategory,
  type MenuFileItemT as MenuFileItem,
  type MenuFileModifierGroupT as MenuFileModifierGroup,
  type MenuFileModifierT as MenuFileModifier,
  MenuFileSchema,
  type MenuFileSectionT as MenuFileSection,
  menuFileJsonSchema,
} from './schema.js';

// The push: plan (a dry run), then run; or both at once.
export {
  itemHoldingSku,
  type MenuPush,
  type MenuPushClient,
  type PlanMenuPushOptions,
  planMenuPush,
  pushMenu,
  recordMatches,
  type RunMenuPushOptions,
} from './push.js';
export type { Action, Change, Counts, Entity, Plan, Step } from './plan.js';
export {
  type ExecResult,
  PushStopped,
  type PublishOutcome,
  type StepEvent,
  type SyncOutcome,
} from './run.js';

// The state that makes a push resumable, and the lower-level pieces the push is built from.
export {
  emptyTarget,
  ENTITY_KINDS,
  type EntityKind,
  MenuStateError,
  type RunRecord,
  StateFile,
  statePath,
  type TargetId,
  type TargetState,
  targetId,
  targetKey,
} from './state.js';
export {
  type BusinessTree,
  type Current,
  currentOf,
  type Desired,
  desiredOf,
  type Ids,
  type Matching,
  matchKeys,
} from './model.js';
export { plan } from './plan.js';
export { execute, type ExecOptions, idempotencyKey, type PushClient } from './run.js';
