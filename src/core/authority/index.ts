// Public surface of the pure authority core (docs/authority.md#human-authority-records). No I/O, no clock: times are parameters.
export * from './operations.js';
export * from './ids.js';
export * from './predicate.js';
export * from './verify.js';
export * from './judge.js';
export * from './presentation.js';
export * from './scope-digest.js';
export * from './dismissal.js';
