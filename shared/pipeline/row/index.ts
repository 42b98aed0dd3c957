export * from './row-decisions.js';
export * from './row-steps.js';
