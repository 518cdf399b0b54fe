export * from './errors.js';
export * from './scopes.js';
export * from './operation.js';
export * from './operations.js';
export * from './idempotency-key.js';
