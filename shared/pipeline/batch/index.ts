export * from './await-rows.js';
export * from './batch-source.js';
export * from './finalize-batch.js';
export * from './prepare-batch.js';
export * from './results-files.js';
export * from './reuse.js';
export * from './sheet-checker.js';
