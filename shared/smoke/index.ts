/** The smoke test of a deployment: its steps and checks behind small ports (`aws.ts` wires them to AWS). */
export * from './catalogue.js';
export * from './checks.js';
export * from './deployment.js';
export * from './failure.js';
export * from './ports.js';
export * from './report.js';
export * from './results-table.js';
export * from './run-smoke.js';
